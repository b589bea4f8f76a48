#include "block_cache.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <list>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "shard/block_cache.h"
#include "shard/errors.h"

namespace shard::detail {

std::size_t block_cache_budget_from_text(const char* text) {
  // Digits only (strtoull would take "-5" as 2^64 - 5), and no more than fits in bytes.
  char* end = nullptr;
  errno = 0;
  const unsigned long long mb = std::strtoull(text, &end, 10);
  const bool digits = *text >= '0' && *text <= '9' && *end == '\0';
  if (!digits)
    throw ArgumentError("SHARD_BLOCK_CACHE_MB must be a whole number of MiB (0 turns block reuse off), got '" +
                        std::string(text) + "'");
  constexpr unsigned long long kMost = std::numeric_limits<std::size_t>::max() >> 20;
  if (errno == ERANGE || mb > kMost)
    throw ArgumentError("SHARD_BLOCK_CACHE_MB=" + std::string(text) + " is too large: at most " +
                        std::to_string(kMost) + " MiB");
  return static_cast<std::size_t>(mb) << 20;
}

namespace {

constexpr std::size_t kAlignment = 64;  // a cache line, and enough for any SIMD load

std::size_t budget_from_environment() {
#if defined(__SANITIZE_ADDRESS__)
  return 0;  // AddressSanitizer must see every large buffer freed, to catch uses after free
#endif
  if (const char* v = std::getenv("SHARD_BLOCK_CACHE_MB")) return block_cache_budget_from_text(v);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::size_t{1} << 30;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8;
}

class BlockCache {
 public:
  static BlockCache& instance() {
    // Never destroyed: Tensors held by static objects may be freed after it would be.
    static BlockCache* cache = new BlockCache;
    return *cache;
  }

  void* take(std::size_t capacity) {
    {
      std::lock_guard lock(mutex_);
      auto it = by_capacity_.find(capacity);
      if (it != by_capacity_.end() && !it->second.empty()) {
        const auto entry = it->second.back();  // the most recently freed of the class
        it->second.pop_back();
        void* p = entry->p;
        lru_.erase(entry);
        cached_bytes_ -= capacity;
        ++stats_.reused;
        return p;
      }
      ++stats_.fresh;
    }
    return std::aligned_alloc(kAlignment, capacity);
  }

  // Keeps the block, evicting the least recently freed ones while the budget is exceeded, so
  // that the cache follows the sizes in use now rather than those of an earlier phase.
  void give(void* p, std::size_t capacity) noexcept {
    std::lock_guard lock(mutex_);
    if (capacity > budget_ || !remember(p, capacity)) {
      std::free(p);
      return;
    }
    while (cached_bytes_ > budget_) std::free(evict_oldest());
  }

  void release_all() noexcept {
    std::lock_guard lock(mutex_);
    for (const Entry& e : lru_) std::free(e.p);
    lru_.clear();
    by_capacity_.clear();
    cached_bytes_ = 0;
  }

  void set_budget(std::size_t bytes) noexcept {
    std::lock_guard lock(mutex_);
    budget_ = bytes;
    while (cached_bytes_ > budget_) std::free(evict_oldest());
  }

  BlockCacheStats stats() {
    std::lock_guard lock(mutex_);
    BlockCacheStats s = stats_;
    s.cached_bytes = cached_bytes_;
    s.budget_bytes = budget_;
    return s;
  }

 private:
  struct Entry {
    void* p;
    std::size_t capacity;
  };
  using Position = std::list<Entry>::iterator;

  // Adds a block to both indexes; false when the bookkeeping itself has no memory.
  bool remember(void* p, std::size_t capacity) noexcept {
    try {
      lru_.push_back({p, capacity});
    } catch (...) {
      return false;
    }
    try {
      by_capacity_[capacity].push_back(std::prev(lru_.end()));
    } catch (...) {
      lru_.pop_back();
      return false;
    }
    cached_bytes_ += capacity;
    return true;
  }
  // Removes an entry from both indexes (not freeing its block).
  void forget(Position e) {
    auto& same = by_capacity_[e->capacity];
    same.erase(std::find(same.begin(), same.end(), e));
    cached_bytes_ -= e->capacity;
    lru_.erase(e);
  }
  void* evict_oldest() {
    void* p = lru_.front().p;
    forget(lru_.begin());
    return p;
  }

  std::mutex mutex_;
  std::list<Entry> lru_;  // cached blocks, least recently freed first
  std::unordered_map<std::size_t, std::vector<Position>> by_capacity_;
  std::size_t cached_bytes_ = 0;
  std::size_t budget_ = budget_from_environment();
  BlockCacheStats stats_;
};

}  // namespace

std::size_t block_capacity(std::size_t bytes) {
  // Rounding up below would wrap around 2^64 for the largest sizes and allocate a tiny buffer;
  // no allocation of 2^63 bytes or more can succeed anyway.
  if (bytes > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
  const std::size_t aligned = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (aligned < kMinCachedBytes) return aligned;
  const std::size_t step = std::bit_floor(aligned) / 8;
  return (aligned + step - 1) / step * step;
}

void* allocate_block(std::size_t bytes) {
  const std::size_t capacity = block_capacity(bytes);
  if (capacity < kMinCachedBytes) return std::aligned_alloc(kAlignment, capacity);
  return BlockCache::instance().take(capacity);
}

void free_block(void* p, std::size_t capacity) noexcept {
  if (p == nullptr) return;
  if (capacity < kMinCachedBytes) {
    std::free(p);
    return;
  }
  BlockCache::instance().give(p, capacity);
}

}  // namespace shard::detail

namespace shard {

BlockCacheStats block_cache_stats() { return detail::BlockCache::instance().stats(); }

void release_cached_blocks() { detail::BlockCache::instance().release_all(); }

void set_block_cache_budget(std::size_t bytes) { detail::BlockCache::instance().set_budget(bytes); }

}  // namespace shard
