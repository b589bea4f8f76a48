// take, take_along_axis and scatter. take and scatter move whole sub-arrays per index (one
// strided copy or elementwise op each); take_along_axis gathers element by element.
#include "shard/kernels/gather.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "checks.h"
#include "element_types.h"
#include "shard/kernels/data_movement.h"
#include "shard/kernels/elementwise.h"

namespace shard::kernels {
namespace {

void check_indices(const View& indices, const char* op) {
  detail::check_view(indices, op, "indices");
  if (indices.dtype != DType::i32 && indices.dtype != DType::i64) {
    throw ArgumentError(std::string(op) + ": indices must be int32 or int64, got " +
                        std::string(dtype_name(indices.dtype)));
  }
}

std::int64_t load_index(const View& indices, std::int64_t offset) {
  return indices.dtype == DType::i32 ? static_cast<const std::int32_t*>(indices.data)[offset]
                                    : static_cast<const std::int64_t*>(indices.data)[offset];
}

// Applies JAX's index rules: negative counts from the end; then clip, or -1 for "out of range".
std::int64_t resolve(std::int64_t i, std::int64_t n, IndexMode mode) {
  if (i < 0) i += n;
  if (i >= 0 && i < n) return i;
  if (mode == IndexMode::clip) return n == 0 ? -1 : std::clamp<std::int64_t>(i, 0, n - 1);
  return -1;
}

// Calls fn(flat_position, element_offset) for every element of `v` in row-major order.
template <typename Fn>
void for_each_element(const View& v, Fn&& fn) {
  const std::int64_t count = v.size();
  Shape index(v.shape.size(), 0);
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * v.strides[d];
    fn(n, offset, index);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < v.shape[d]) break;
      index[d] = 0;
    }
  }
}

// `v` without dimension `axis`, moved to position `at` along it.
View drop_axis(const View& v, int axis, std::int64_t at) {
  const auto a = static_cast<std::size_t>(axis);
  View r{static_cast<const char*>(v.data) + at * v.strides[a] * static_cast<std::int64_t>(dtype_size(v.dtype)),
         v.dtype, v.shape, v.strides};
  r.shape.erase(r.shape.begin() + axis);
  r.strides.erase(r.strides.begin() + axis);
  return r;
}

// `v` (shape pre + index_shape + post) with the index dims [axis, axis + k) fixed at `index`.
View fix_index_dims(const View& v, int axis, const Shape& index) {
  View r = v;
  std::int64_t offset = 0;
  for (std::size_t j = 0; j < index.size(); ++j) offset += index[j] * v.strides[static_cast<std::size_t>(axis) + j];
  r.data = static_cast<const char*>(v.data) + offset * static_cast<std::int64_t>(dtype_size(v.dtype));
  r.shape.erase(r.shape.begin() + axis, r.shape.begin() + axis + static_cast<std::ptrdiff_t>(index.size()));
  r.strides.erase(r.strides.begin() + axis, r.strides.begin() + axis + static_cast<std::ptrdiff_t>(index.size()));
  return r;
}

MutView as_mutable(const View& v) { return MutView{const_cast<void*>(v.data), v.dtype, v.shape, v.strides}; }

// jnp.take's default fill values.
void fill_default(const MutView& dst) {
  switch (dst.dtype) {
    case DType::f32:
    case DType::bf16:
    case DType::f16: return fill(dst, std::numeric_limits<double>::quiet_NaN());
    case DType::i32: return fill_int(dst, std::numeric_limits<std::int32_t>::min());
    case DType::i64: return fill_int(dst, std::numeric_limits<std::int64_t>::min());
    case DType::boolean: return fill_int(dst, 1);
  }
}

// The shape x[:axis] + middle + x[axis+1:].
Shape splice(const Shape& x, int axis, const Shape& middle) {
  Shape s(x.begin(), x.begin() + axis);
  s.insert(s.end(), middle.begin(), middle.end());
  s.insert(s.end(), x.begin() + axis + 1, x.end());
  return s;
}

}  // namespace

void take(const View& x, const View& indices, int axis, const MutView& out, IndexMode mode) {
  detail::check_view(x, "take", "operand");
  detail::check_output(out, "take");
  check_indices(indices, "take");
  detail::check_same_dtype(x.dtype, out.dtype, "take");
  const int ax = detail::normalize_axis(axis, x.rank(), "take");
  detail::check_same_shape(out.shape, splice(x.shape, ax, indices.shape), "take");
  const std::int64_t n = x.shape[static_cast<std::size_t>(ax)];
  for_each_element(indices, [&](std::int64_t, std::int64_t offset, const Shape& index) {
    const std::int64_t i = resolve(load_index(indices, offset), n, mode);
    const MutView dst = as_mutable(fix_index_dims(out, ax, index));
    if (i < 0) {
      fill_default(dst);
    } else {
      copy(drop_axis(x, ax, i), dst);
    }
  });
}

void take_along_axis(const View& x, const View& indices, int axis, const MutView& out, IndexMode mode) {
  detail::check_view(x, "take_along_axis", "operand");
  detail::check_output(out, "take_along_axis");
  check_indices(indices, "take_along_axis");
  detail::check_same_dtype(x.dtype, out.dtype, "take_along_axis");
  const int ax = detail::normalize_axis(axis, x.rank(), "take_along_axis");
  if (indices.rank() != x.rank()) {
    throw ShapeError("take_along_axis: indices " + shape_string(indices.shape) + " and operand " +
                     shape_string(x.shape) + " must have one rank");
  }
  const auto a = static_cast<std::size_t>(ax);
  // Broadcast the other dims of x and indices against each other; the axis keeps indices' size.
  Shape x_other = x.shape, i_other = indices.shape;
  x_other[a] = 1;
  i_other[a] = 1;
  Shape shape = detail::broadcast_shapes(x_other, i_other, "take_along_axis");
  shape[a] = indices.shape[a];
  detail::check_same_shape(out.shape, shape, "take_along_axis");
  Shape xb_shape = shape;
  xb_shape[a] = x.shape[a];
  View xb = x.broadcast_to(xb_shape);
  const View ib = indices.broadcast_to(shape);
  const std::int64_t n = x.shape[a];
  const auto esize = static_cast<std::int64_t>(dtype_size(x.dtype));
  // A one-element result view, for writing fill values through fill_default.
  for_each_element(ib, [&](std::int64_t, std::int64_t offset, const Shape& index) {
    std::int64_t out_offset = 0, x_offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      out_offset += index[d] * out.strides[d];
      if (d != a) x_offset += index[d] * xb.strides[d];
    }
    char* dst = static_cast<char*>(out.data) + out_offset * esize;
    const std::int64_t i = resolve(load_index(ib, offset), n, mode);
    if (i < 0) {
      fill_default(MutView{dst, out.dtype, {}, {}});
    } else {
      std::memcpy(dst, static_cast<const char*>(xb.data) + (x_offset + i * xb.strides[a]) * esize,
                  static_cast<std::size_t>(esize));
    }
  });
}

void scatter(Context& ctx, const MutView& operand, const View& indices, const View& updates, int axis, ScatterOp op) {
  detail::check_output(operand, "scatter");
  detail::check_view(updates, "scatter", "updates");
  check_indices(indices, "scatter");
  detail::check_same_dtype(operand.dtype, updates.dtype, "scatter");
  const int ax = detail::normalize_axis(axis, operand.rank(), "scatter");
  detail::check_same_shape(updates.shape, splice(operand.shape, ax, indices.shape), "scatter");
  const std::int64_t n = operand.shape[static_cast<std::size_t>(ax)];
  for_each_element(indices, [&](std::int64_t, std::int64_t offset, const Shape& index) {
    const std::int64_t i = resolve(load_index(indices, offset), n, IndexMode::fill);
    if (i < 0) return;  // out of range: dropped, as JAX's scatter does by default
    const MutView dst = as_mutable(drop_axis(operand, ax, i));
    const View src = fix_index_dims(updates, ax, index);
    switch (op) {
      case ScatterOp::set: return copy(src, dst);
      case ScatterOp::add: return binary(ctx, BinaryOp::add, dst, src, dst);
      case ScatterOp::max: return binary(ctx, BinaryOp::max, dst, src, dst);
      case ScatterOp::min: return binary(ctx, BinaryOp::min, dst, src, dst);
    }
  });
}

}  // namespace shard::kernels
