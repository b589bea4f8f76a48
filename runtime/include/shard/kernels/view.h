// Raw strided views: what every kernel takes. A view is a pointer, a dtype, a shape and strides
// counted in elements (not bytes). Strides express transposes, slices and broadcasts (stride 0)
// without copies, so the kernels stay independent of the runtime's Array/Tensor types.
#pragma once

#include <cstdint>
#include <string>

#include "shard/dtype.h"

namespace shard::kernels {

// Row-major (C order) strides of a shape.
Shape row_major_strides(const Shape& shape);
std::int64_t element_count(const Shape& shape);
std::string shape_string(const Shape& shape);  // "[2, 3]"

// A read-only view. bf16/f16 elements are their 16-bit patterns; bool elements are bytes 0/1.
struct View {
  const void* data = nullptr;
  DType dtype = DType::f32;
  Shape shape;
  Shape strides;  // in elements; same length as shape

  // A dense row-major array.
  static View contiguous(const void* data, DType dtype, Shape shape);
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  std::int64_t size() const { return element_count(shape); }
  bool is_row_major() const;  // dense, C order (size-1 and empty dims ignored)

  // Zero-copy re-views: permute dims; take [start, start + size) along `axis` with a step;
  // insert a size-1 dim before `axis` (0..rank); reshape a row-major view; broadcast size-1
  // dims to a larger shape (stride 0), numpy-aligned. Each throws ShapeError when it cannot.
  View permuted(const std::vector<int>& axes) const;
  View sliced(int axis, std::int64_t start, std::int64_t size, std::int64_t step = 1) const;
  View expanded(int axis) const;
  View reshaped(const Shape& shape) const;
  View broadcast_to(const Shape& target) const;
};

// A writable view: the same, with a mutable pointer. Converts to View for reading.
struct MutView {
  void* data = nullptr;
  DType dtype = DType::f32;
  Shape shape;
  Shape strides;

  static MutView contiguous(void* data, DType dtype, Shape shape);
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  std::int64_t size() const { return element_count(shape); }
  bool is_row_major() const { return as_view().is_row_major(); }
  View as_view() const { return View{data, dtype, shape, strides}; }
  operator View() const { return as_view(); }  // NOLINT: reading a writable view is always fine
  MutView permuted(const std::vector<int>& axes) const;
  MutView sliced(int axis, std::int64_t start, std::int64_t size, std::int64_t step = 1) const;
  MutView expanded(int axis) const;
  MutView reshaped(const Shape& shape) const;
};

}  // namespace shard::kernels
