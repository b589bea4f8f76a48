// Copying rectangular boxes between row-major arrays: the one data-movement loop behind
// from_host/to_host, all_to_all and every chunked collective.
#pragma once

#include <cstddef>
#include <cstring>

#include "shard/dtype.h"

namespace shard::detail {

// Copies the box of size `extent` at `src_offset` inside the row-major array `src` (shape
// `src_shape`) to `dst_offset` inside `dst` (shape `dst_shape`). All shapes have one rank; the
// caller guarantees that both boxes lie inside their arrays. Contiguous inner runs become one
// memcpy (one copy_streaming when `streaming`, fenced before it returns).
void copy_box(const std::byte* src, const Shape& src_shape, const Shape& src_offset, std::byte* dst,
              const Shape& dst_shape, const Shape& dst_offset, const Shape& extent, std::size_t element_size,
              bool streaming = false);

// Part `part` of `parts` of the same copy: a slab of the box, cut along its first dimension
// longer than 1 (the dimensions before it have one index, so a slab is a box too). Parts may be
// empty; together they copy the box once. For splitting one copy over a device's team.
void copy_box_part(const std::byte* src, const Shape& src_shape, const Shape& src_offset, std::byte* dst,
                   const Shape& dst_shape, const Shape& dst_offset, const Shape& extent, std::size_t element_size,
                   bool streaming, int part, int parts);

// Large copies whose destination will not be read before it leaves the caches: non-temporal
// stores skip reading every destination line before overwriting it, a third of a copy's memory
// traffic. Call streaming_fence() before anything publishes the destination to another thread
// (streaming stores are weakly ordered, and a later release store does not order them).
void copy_streaming(std::byte* dst, const std::byte* src, std::size_t bytes);
void streaming_fence();

// copy_streaming when `streaming`, else memcpy (the caller fences once after its last copy).
inline void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes, bool streaming) {
  if (streaming)
    copy_streaming(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}

// Per-device output size from which the collectives write with streaming stores: beyond it the
// output (8 devices: 8 times this) does not stay in cache until it is read.
inline constexpr std::size_t kStreamingBytes = std::size_t{4} << 20;

}  // namespace shard::detail
