// Internal: the one loop nest every elementwise-style kernel runs on. It walks N strided
// operands over a common shape and calls `row(count, pointers, byte_strides)` once per
// innermost run. Dimensions that are contiguous for every operand are merged first, so a dense
// or dense-plus-broadcast problem becomes one long run that the compiler can vectorise.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "shard/kernels/view.h"

namespace shard::kernels::detail {

template <std::size_t N>
struct Operands {
  std::array<char*, N> base{};
  std::array<Shape, N> strides{};  // in elements, per operand, same rank as the loop shape
  std::array<std::int64_t, N> element_size{};
};

template <std::size_t N, typename Row>
void strided_loop(const Shape& shape, const Operands<N>& ops, Row&& row) {
  for (auto d : shape) {
    if (d == 0) return;
  }
  // Collapse: drop size-1 dims, then merge d-1 into d where every operand is contiguous across.
  std::vector<std::int64_t> dims;
  std::array<std::vector<std::int64_t>, N> strides;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merged = false;
    if (!dims.empty()) {
      merged = true;
      for (std::size_t k = 0; k < N; ++k) {
        if (strides[k].back() != ops.strides[k][d] * shape[d]) merged = false;
      }
    }
    if (merged) {
      dims.back() *= shape[d];
      for (std::size_t k = 0; k < N; ++k) strides[k].back() = ops.strides[k][d];
    } else {
      dims.push_back(shape[d]);
      for (std::size_t k = 0; k < N; ++k) strides[k].push_back(ops.strides[k][d]);
    }
  }
  if (dims.empty()) {  // a single element
    dims.push_back(1);
    for (std::size_t k = 0; k < N; ++k) strides[k].push_back(0);
  }
  const std::size_t rank = dims.size();
  std::array<std::int64_t, N> inner_bytes{};
  for (std::size_t k = 0; k < N; ++k) inner_bytes[k] = strides[k][rank - 1] * ops.element_size[k];
  std::vector<std::int64_t> index(rank, 0);
  std::array<char*, N> ptr = ops.base;
  const std::int64_t count = dims[rank - 1];
  while (true) {
    row(count, ptr, inner_bytes);
    // Advance the odometer over the outer dims, moving each operand's pointer.
    std::size_t d = rank - 1;
    while (true) {
      if (d == 0) return;
      --d;
      ++index[d];
      for (std::size_t k = 0; k < N; ++k) ptr[k] += strides[k][d] * ops.element_size[k];
      if (index[d] < dims[d]) break;
      for (std::size_t k = 0; k < N; ++k) ptr[k] -= strides[k][d] * ops.element_size[k] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace shard::kernels::detail
