// Reuse of large tensor buffers between calls.
//
// Why: glibc serves allocations of this size with fresh mmaps and returns them to the system on
// free, so every large block a call creates costs a page fault per 4 KiB page the first time it
// is written. A device's partial products and collective outputs are created and dropped on
// every call: allreduce_collective_matmul's naive form faults ~64 K pages per call (256 MiB),
// which took as long as half of its matmuls. Buffers of at least kMinCachedBytes are kept on
// free, up to a byte budget, and handed out again to requests of the same size class, their
// pages already mapped. 64 KiB, not 1 MiB: glibc maps blocks from 128 KiB afresh until its
// dynamic threshold rises (after a large block happens to be freed), so the ring algorithms'
// 128-256 KiB partial products faulted on every call in a fresh process:
// matmul_psum_scatter's overlapped form took 13 ms a call with a 1 MiB minimum and 9.8 ms with
// this one, its bidirectional form 20.6 ms and 10.4 ms.
//
// Size classes: a request is rounded up to a multiple of an eighth of its power of two (at most
// 12.5% unused), so blocks of nearly equal size share a class. Budget: SHARD_BLOCK_CACHE_MB in
// the environment (0 turns the cache off), else an eighth of the machine's memory; off under
// AddressSanitizer. When a free would exceed the budget, the least recently freed blocks go
// back to the system.
#pragma once

#include <cstddef>

namespace shard::detail {

inline constexpr std::size_t kMinCachedBytes = std::size_t{64} << 10;

// The capacity a request of `bytes` gets (64-byte aligned; the class size from kMinCachedBytes);
// std::bad_alloc from 2^63 bytes on, where rounding up would wrap.
std::size_t block_capacity(std::size_t bytes);
// A 64-byte aligned buffer of block_capacity(bytes) bytes, reused when one is cached; nullptr when
// the system has no memory.
void* allocate_block(std::size_t bytes);
// Gives back a buffer from allocate_block with its capacity.
void free_block(void* p, std::size_t capacity) noexcept;
// The budget in bytes that SHARD_BLOCK_CACHE_MB's text gives; ArgumentError unless it is a whole
// number of MiB. (The Runtime's constructor reads the variable, so a bad value fails there.)
std::size_t block_cache_budget_from_text(const char* text);

}  // namespace shard::detail
