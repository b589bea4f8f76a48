// Walks a block of a global array in the block's row-major order and hands out each element's
// global row-major index: the 64-bit counter the partitionable threefry hashes.
#pragma once

#include <cstdint>
#include <vector>

#include "shard/random.h"

namespace shard::random::detail {

// Calls fn(position_in_block, global_index) for every element of the block, one innermost row
// at a time (consecutive global indices), so fn can be inlined into a tight loop.
template <typename Fn>
void for_each_global_index(const Block& block, Fn&& fn) {
  const std::int64_t count = checked_block_size(block);
  if (count == 0) return;
  const std::size_t rank = block.global_shape.size();
  if (rank == 0) {
    fn(std::int64_t{0}, std::uint64_t{0});
    return;
  }
  const bool whole = block.shape.empty() && block.offset.empty();
  const std::vector<std::int64_t>& shape = whole ? block.global_shape : block.shape;
  // Row-major strides of the global array.
  std::vector<std::uint64_t> global_stride(rank, 1);
  for (std::size_t d = rank - 1; d > 0; --d) {
    global_stride[d - 1] = global_stride[d] * static_cast<std::uint64_t>(block.global_shape[d]);
  }
  std::vector<std::int64_t> position(rank, 0);  // within the block, dims 0..rank-2
  const std::int64_t row = shape[rank - 1];
  std::int64_t out = 0;
  while (out < count) {
    std::uint64_t base = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t start = whole ? 0 : block.offset[d];
      base += static_cast<std::uint64_t>(start + (d + 1 < rank ? position[d] : 0)) * global_stride[d];
    }
    for (std::int64_t j = 0; j < row; ++j) fn(out + j, base + static_cast<std::uint64_t>(j));
    out += row;
    for (std::size_t d = rank - 1; d-- > 0;) {  // advance the odometer over the outer dims
      if (++position[d] < shape[d]) break;
      position[d] = 0;
    }
  }
}

}  // namespace shard::random::detail
