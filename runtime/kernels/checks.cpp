#include "checks.h"

#include <algorithm>
#include <stdexcept>

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
