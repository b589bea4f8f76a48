// The runtime keeps freed tensor buffers of 64 KiB and more for reuse, so that blocks created on
// every call do not page-fault anew each time (see src/block_cache.h). Budget: the environment's
// SHARD_BLOCK_CACHE_MB (0: off), else an eighth of the machine's memory; when it is exceeded the
// least recently freed buffers go back to the system.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shard {

struct BlockCacheStats {
  std::int64_t fresh = 0;   // large allocations the cache could not serve
  std::int64_t reused = 0;  // large allocations served from the cache
  std::size_t cached_bytes = 0;
  std::size_t budget_bytes = 0;
};
BlockCacheStats block_cache_stats();

// Returns every cached buffer to the system (e.g. after a phase with large arrays).
void release_cached_blocks();
// Replaces the budget (0 turns caching off), returning the least recently freed buffers to the
// system until the cache fits it.
void set_block_cache_budget(std::size_t bytes);

}  // namespace shard
