#include "checks.h"

#include <algorithm>
#include <stdexcept>
#include <cstdlib>
#include <vector>

namespace shard::kernels::detail {

void check_view(const View& v, const char* op, const char* name) {
  if (v.shape.size() != v.strides.size()) {
    throw ShapeError(std::string(op) + ": " + name + " has shape " + shape_string(v.shape) + " but strides " +
                     shape_string(v.strides));
  }
  for (auto d : v.shape) {
    if (d < 0) throw ShapeError(std::string(op) + ": " + name + " has a negative dimension: " + shape_string(v.shape));
  }
  if (v.data == nullptr && v.size() > 0) throw ArgumentError(std::string(op) + ": " + name + " has no data");
}

void check_output(const View& v, const char* op) {
  check_view(v, op, "result");
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] > 1 && v.strides[d] == 0) {
      throw ArgumentError(std::string(op) + ": the result is a broadcast view (stride 0 in dimension " +
                          std::to_string(d) + " of shape " + shape_string(v.shape) + ")");
    }
  }
}

namespace {

// Whether element address `p` is one of the view's elements: the offset is decomposed over the
// dims from the largest stride down (exact for the nested strides that slices, transposes and
// broadcasts of one array have). May miss an element for exotic strides, never invents one.
bool holds_element(const View& v, const char* p) {
  const auto esize = static_cast<std::int64_t>(dtype_size(v.dtype));
  std::int64_t offset_bytes = p - static_cast<const char*>(v.data);
  if (offset_bytes % esize != 0) return false;
  std::int64_t rest = offset_bytes / esize;
  std::vector<std::size_t> dims(v.shape.size());
  for (std::size_t d = 0; d < dims.size(); ++d) dims[d] = d;
  std::sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) {
    return std::llabs(v.strides[x]) > std::llabs(v.strides[y]);
  });
  for (std::size_t d : dims) {
    const std::int64_t stride = v.strides[d];
    if (stride == 0) continue;
    const std::int64_t i = std::clamp<std::int64_t>(rest / stride, 0, v.shape[d] - 1);
    rest -= i * stride;
  }
  return rest == 0;
}

}  // namespace

void check_no_overlap(const View& out, const View& in, const char* op, bool same_view_ok) {
  if (out.size() == 0 || in.size() == 0) return;
  if (same_view_ok && out.data == in.data && out.dtype == in.dtype && out.shape == in.shape &&
      out.strides == in.strides) {
    return;
  }
  // A shared element is proven by either view's first element lying in the other. This catches
  // in-place transposes, shifted copies and matmuls into an operand, and never rejects views
  // that merely interleave (two column blocks of one array).
  if (holds_element(out, static_cast<const char*>(in.data)) || holds_element(in, static_cast<const char*>(out.data))) {
    throw ArgumentError(std::string(op) + ": the result " + shape_string(out.shape) +
                        " shares memory with an input " + shape_string(in.shape) +
                        (same_view_ok ? " without being the same view" : "") + "; use a separate buffer");
  }
}

void check_same_dtype(DType a, DType b, const char* op) {
  if (a != b) {
    throw ArgumentError(std::string(op) + ": dtypes differ: " + std::string(dtype_name(a)) + " and " +
                        std::string(dtype_name(b)));
  }
}

void check_same_shape(const Shape& a, const Shape& b, const char* op) {
  if (a != b) throw ShapeError(std::string(op) + ": shapes differ: " + shape_string(a) + " and " + shape_string(b));
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw ShapeError(std::string(op) + ": shapes " + shape_string(a) + " and " + shape_string(b) +
                       " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalize_axis(std::int64_t axis, std::int64_t rank, const char* op) {
  if (axis < -rank || axis >= rank) {
    throw ShapeError(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

void unsupported_dtype(const char* op, DType dtype) {
  throw ArgumentError(std::string(op) + " is not defined for dtype " + std::string(dtype_name(dtype)));
}

void internal_error(const std::string& what) {
  throw std::logic_error("internal error in shard kernels: " + what);
}

}  // namespace shard::kernels::detail
