// Copying rectangular boxes between row-major arrays: the one data-movement loop behind
// from_host/to_host, all_to_all and every chunked collective.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "shard/dtype.h"

namespace shard::detail {

// Copies the box of size `extent` at `src_offset` inside the row-major array `src` (shape
// `src_shape`) to `dst_offset` inside `dst` (shape `dst_shape`). All shapes have one rank; the
// caller guarantees that both boxes lie inside their arrays. Contiguous inner runs become one
// memcpy (one copy_streaming when `streaming`, fenced before it returns).
// Shapes are spans so that callers may pass a Shape or numbers on the stack: a small collective
// copies a few boxes per peer, and a heap allocation per box cost as much as its data.
using Dims = std::span<const std::int64_t>;
void copy_box(const std::byte* src, Dims src_shape, Dims src_offset, std::byte* dst, Dims dst_shape, Dims dst_offset,
              Dims extent, std::size_t element_size, bool streaming = false);

// Part `part` of `parts` of the same copy: a slab of the box, cut along its first dimension
// longer than 1 (the dimensions before it have one index, so a slab is a box too). Parts may be
// empty; together they copy the box once. For splitting one copy over a device's team.
void copy_box_part(const std::byte* src, Dims src_shape, Dims src_offset, std::byte* dst, Dims dst_shape,
                   Dims dst_offset, Dims extent, std::size_t element_size, bool streaming, int part, int parts);

// Per-dimension numbers, on the stack up to kInline dimensions (any array in practice), on the
// heap beyond.
class DimScratch {
 public:
  DimScratch(std::size_t size, std::int64_t value) : size_(size) {
    if (size > kInline) heap_.resize(size);
    data_ = size > kInline ? heap_.data() : inline_.data();
    for (std::size_t i = 0; i < size; ++i) data_[i] = value;
  }
  explicit DimScratch(Dims from) : DimScratch(from.size(), 0) {
    for (std::size_t i = 0; i < size_; ++i) data_[i] = from[i];
  }
  DimScratch(const DimScratch&) = delete;
  DimScratch& operator=(const DimScratch&) = delete;
  std::int64_t& operator[](std::size_t i) { return data_[i]; }
  std::int64_t operator[](std::size_t i) const { return data_[i]; }
  operator Dims() const { return {data_, size_}; }

 private:
  static constexpr std::size_t kInline = 12;
  std::array<std::int64_t, kInline> inline_;
  std::vector<std::int64_t> heap_;
  std::int64_t* data_;
  std::size_t size_;
};

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
