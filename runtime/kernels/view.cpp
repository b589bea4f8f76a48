#include "shard/kernels/view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "shard/errors.h"

namespace shard::kernels {

Shape row_major_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<std::int64_t>(shape[d], 1);
  return strides;
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

void check_view(const Shape& shape, const Shape& strides, const char* what) {
  if (shape.size() != strides.size()) {
    throw ShapeError(std::string(what) + ": shape " + shape_string(shape) + " and strides " + shape_string(strides) +
                     " differ in rank");
  }
  for (auto d : shape) {
    if (d < 0) throw ShapeError(std::string(what) + ": negative dimension in shape " + shape_string(shape));
  }
}

Shape permute(const Shape& v, const std::vector<int>& axes, const Shape& shape) {
  if (axes.size() != shape.size()) {
    throw ShapeError("permute: " + std::to_string(axes.size()) + " axes given for shape " + shape_string(shape));
  }
  std::vector<bool> seen(axes.size(), false);
  Shape out(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int a = axes[i];
    if (a < 0 || a >= static_cast<int>(axes.size()) || seen[static_cast<std::size_t>(a)]) {
      throw ShapeError("permute: axes are not a permutation of 0.." + std::to_string(axes.size() - 1));
    }
    seen[static_cast<std::size_t>(a)] = true;
    out[i] = v[static_cast<std::size_t>(a)];
  }
  return out;
}

// Validates a slice and returns the element offset of its start.
std::int64_t slice_offset(const Shape& shape, const Shape& strides, int axis, std::int64_t start, std::int64_t size,
                          std::int64_t step) {
  if (axis < 0 || axis >= static_cast<int>(shape.size())) {
    throw ShapeError("slice: axis " + std::to_string(axis) + " out of range for shape " + shape_string(shape));
  }
  const auto dim = shape[static_cast<std::size_t>(axis)];
  if (step < 1 || size < 0 || start < 0 || (size > 0 && start + (size - 1) * step >= dim) || start > dim) {
    throw ShapeError("slice: start " + std::to_string(start) + ", size " + std::to_string(size) + ", step " +
                     std::to_string(step) + " out of range for dimension " + std::to_string(axis) + " of shape " +
                     shape_string(shape));
  }
  return size == 0 ? 0 : start * strides[static_cast<std::size_t>(axis)];
}

// The shape and strides of a view with a size-1 dim inserted before `axis`.
std::pair<Shape, Shape> expand(const Shape& shape, const Shape& strides, int axis) {
  if (axis < 0 || axis > static_cast<int>(shape.size())) {
    throw ShapeError("expand: axis " + std::to_string(axis) + " out of range for shape " + shape_string(shape));
  }
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t stride = a < shape.size() ? strides[a] * std::max<std::int64_t>(shape[a], 1) : 1;
  Shape s = shape, st = strides;
  s.insert(s.begin() + axis, 1);
  st.insert(st.begin() + axis, stride);
  return {s, st};
}

void check_reshape(const View& v, const Shape& shape) {
  for (auto d : shape) {
    if (d < 0) throw ShapeError("reshape: negative dimension in " + shape_string(shape));
  }
  if (element_count(shape) != v.size()) {
    throw ShapeError("reshape: cannot reshape " + shape_string(v.shape) + " (" + std::to_string(v.size()) +
                     " elements) to " + shape_string(shape));
  }
  if (!v.is_row_major()) {
    throw ShapeError("reshape: the view of shape " + shape_string(v.shape) + " with strides " +
                     shape_string(v.strides) + " is not row-major; copy it first");
  }
}

}  // namespace

View View::expanded(int axis) const {
  auto [s, st] = expand(shape, strides, axis);
  return View{data, dtype, std::move(s), std::move(st)};
}

MutView MutView::expanded(int axis) const {
  auto [s, st] = expand(shape, strides, axis);
  return MutView{data, dtype, std::move(s), std::move(st)};
}

View View::reshaped(const Shape& new_shape) const {
  check_reshape(*this, new_shape);
  return View::contiguous(data, dtype, new_shape);
}

MutView MutView::reshaped(const Shape& new_shape) const {
  check_reshape(as_view(), new_shape);
  return MutView::contiguous(data, dtype, new_shape);
}

View View::contiguous(const void* data, DType dtype, Shape shape) {
  check_view(shape, shape, "view");
  Shape strides = row_major_strides(shape);
  return View{data, dtype, std::move(shape), std::move(strides)};
}

MutView MutView::contiguous(void* data, DType dtype, Shape shape) {
  check_view(shape, shape, "view");
  Shape strides = row_major_strides(shape);
  return MutView{data, dtype, std::move(shape), std::move(strides)};
}

bool View::is_row_major() const {
  std::int64_t expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

View View::permuted(const std::vector<int>& axes) const {
  return View{data, dtype, permute(shape, axes, shape), permute(strides, axes, shape)};
}

MutView MutView::permuted(const std::vector<int>& axes) const {
  return MutView{data, dtype, permute(shape, axes, shape), permute(strides, axes, shape)};
}

View View::sliced(int axis, std::int64_t start, std::int64_t size, std::int64_t step) const {
  const auto offset = slice_offset(shape, strides, axis, start, size, step);
  View v = *this;
  v.data = static_cast<const char*>(data) + offset * static_cast<std::int64_t>(dtype_size(dtype));
  v.shape[static_cast<std::size_t>(axis)] = size;
  // One element or none never moves by the step, which may be near i64 max (x[::2**63-1]):
  // multiplying it into the stride would overflow.
  if (size > 1) v.strides[static_cast<std::size_t>(axis)] *= step;
  return v;
}

MutView MutView::sliced(int axis, std::int64_t start, std::int64_t size, std::int64_t step) const {
  // The same window as the read-only view's, over memory this view may write.
  View v = as_view().sliced(axis, start, size, step);
  return MutView{const_cast<void*>(v.data), dtype, std::move(v.shape), std::move(v.strides)};
}

View View::broadcast_to(const Shape& target) const {
  if (target.size() < shape.size()) {
    throw ShapeError("broadcast: cannot broadcast shape " + shape_string(shape) + " to lower-rank shape " +
                     shape_string(target));
  }
  const std::size_t lead = target.size() - shape.size();
  View v{data, dtype, target, Shape(target.size(), 0)};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const auto from = shape[d], to = target[lead + d];
    if (from == to) {
      v.strides[lead + d] = strides[d];
    } else if (from != 1) {
      throw ShapeError("broadcast: shape " + shape_string(shape) + " does not broadcast to " + shape_string(target) +
                       " (dimension " + std::to_string(d) + " has size " + std::to_string(from) + ")");
    }
  }
  return v;
}

}  // namespace shard::kernels
