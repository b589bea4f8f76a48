// Internal: walks the 1-D rows of some views along one axis (every combination of the other
// dims), for kernels that work a row at a time (sort, argsort, top_k).
#pragma once

#include <array>
#include <cstdint>

#include "shard/kernels/view.h"

namespace shard::kernels::detail {

// Calls fn(offsets) once per row, offsets[k] being the row's start in view k's elements. The
// views share `shape` except along `axis` (where their sizes may differ).
template <std::size_t N, typename Fn>
void for_each_row(const Shape& shape, int axis, const std::array<const Shape*, N>& strides, Fn&& fn) {
  Shape outer = shape;
  outer[static_cast<std::size_t>(axis)] = 1;
  const std::int64_t rows = element_count(outer);
  Shape index(outer.size(), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::array<std::int64_t, N> offsets{};
    for (std::size_t k = 0; k < N; ++k) {
      for (std::size_t d = 0; d < index.size(); ++d) offsets[k] += index[d] * (*strides[k])[d];
    }
    fn(offsets);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < outer[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace shard::kernels::detail
