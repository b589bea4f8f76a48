#include "evaluator/ops_shape.h"

#include <algorithm>
#include <cmath>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

void check_axis(int axis, int limit, const char* what) {
  if (axis < 0 || axis >= limit)
    throw EvalError(std::string(what) + ": axis " + std::to_string(axis) + " out of range for rank " +
                    std::to_string(limit));
}

// Calls f(out_index, coordinates) for every element of `shape`, row-major.
template <typename F>
void for_each_coord(const Shape& shape, F f) {
  std::int64_t n = element_count(shape);
  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    f(i, coord);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

// Where a window of `size` along a dimension of `dim` starts for a dynamic start, as JAX's
// dynamic_slice and dynamic_update_slice take it: a negative start counts from the end
// (allow_negative_indices), then the start is clamped so that the window fits.
std::int64_t dynamic_start(std::int64_t start, std::int64_t dim, std::int64_t size) {
  if (start < 0) start += dim;
  return std::clamp<std::int64_t>(start, 0, dim - size);
}

}  // namespace

HostTensor reshape(const HostTensor& x, const Shape& shape) {
  if (element_count(shape) != x.size())
    throw EvalError("cannot reshape " + shape_text(x.shape) + " to " + shape_text(shape));
  HostTensor out = x;
  out.shape = shape;
  return out;
}

HostTensor transpose(const HostTensor& x, const std::vector<std::int64_t>& perm) {
  if (static_cast<int>(perm.size()) != x.rank()) throw EvalError("transpose: permutation of the wrong length");
  std::vector<bool> seen(perm.size(), false);
  Shape shape;
  for (auto p : perm) {
    if (p < 0 || p >= x.rank() || seen[p]) throw EvalError("transpose: not a permutation");
    seen[p] = true;
    shape.push_back(x.shape[p]);
  }
  auto in_strides = strides_of(x.shape);
  HostTensor out = HostTensor::zeros(x.dtype, shape);
  for_each_coord(shape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < perm.size(); ++d) src += c[d] * in_strides[perm[d]];
    out.copy_element(i, x, src);
  });
  return out;
}

HostTensor expand_dims(const HostTensor& x, int axis) {
  check_axis(axis, x.rank() + 1, "expand_dims");
  Shape s = x.shape;
  s.insert(s.begin() + axis, 1);
  return reshape(x, s);
}

HostTensor squeeze(const HostTensor& x, int axis) {
  check_axis(axis, x.rank(), "squeeze");
  if (x.shape[axis] != 1) throw EvalError("squeeze: dimension " + std::to_string(axis) + " has size " + std::to_string(x.shape[axis]));
  Shape s = x.shape;
  s.erase(s.begin() + axis);
  return reshape(x, s);
}

HostTensor slice(const HostTensor& x, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& limits,
                 const std::vector<std::int64_t>& steps, const std::vector<std::int64_t>& squeezed) {
  int r = x.rank();
  if (static_cast<int>(starts.size()) != r || static_cast<int>(limits.size()) != r || static_cast<int>(steps.size()) != r)
    throw EvalError("slice: bounds for " + std::to_string(starts.size()) + " dimensions of a rank " + std::to_string(r) + " array");
  Shape shape;
  for (int d = 0; d < r; ++d) {
    if (steps[d] < 1 || starts[d] < 0 || starts[d] > limits[d] || limits[d] > x.shape[d])
      throw EvalError("slice [" + std::to_string(starts[d]) + ":" + std::to_string(limits[d]) + ":" +
                      std::to_string(steps[d]) + "] out of range for dimension " + std::to_string(d) + " of " +
                      shape_text(x.shape));
    shape.push_back(shard::slice_count(starts[d], limits[d], steps[d]));
  }
  auto in_strides = strides_of(x.shape);
  HostTensor out = HostTensor::zeros(x.dtype, shape);
  for_each_coord(shape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
    std::int64_t src = 0;
    for (int d = 0; d < r; ++d) src += (starts[d] + c[d] * steps[d]) * in_strides[d];
    out.copy_element(i, x, src);
  });
  Shape kept;
  for (int d = 0; d < r; ++d) {
    bool drop = std::find(squeezed.begin(), squeezed.end(), d) != squeezed.end();
    if (drop && shape[d] != 1) throw EvalError("slice: a squeezed dimension must have size 1");
    if (!drop) kept.push_back(shape[d]);
  }
  out.shape = kept;
  return out;
}

HostTensor block_of(const HostTensor& x, const std::vector<int>& dims, const std::vector<std::int64_t>& counts,
                    const std::vector<std::int64_t>& index) {
  std::vector<std::int64_t> starts(static_cast<std::size_t>(x.rank()), 0);
  std::vector<std::int64_t> sizes(x.shape.begin(), x.shape.end());
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0) continue;
    const auto d = static_cast<std::size_t>(dims[k]);
    sizes[d] = x.shape[d] / counts[k];
    starts[d] = index[k] * sizes[d];
  }
  return dynamic_slice(x, starts, sizes);
}

void for_each_part_index(const std::vector<std::int64_t>& counts,
                         const std::function<void(const std::vector<std::int64_t>&)>& visit) {
  std::vector<std::int64_t> index(counts.size(), 0);
  while (true) {
    visit(index);
    std::size_t k = counts.size();
    while (k > 0 && ++index[k - 1] == counts[k - 1]) index[--k] = 0;
    if (k == 0) return;
  }
}

HostTensor dynamic_slice(const HostTensor& x, std::vector<std::int64_t> starts, const std::vector<std::int64_t>& sizes) {
  int r = x.rank();
  if (static_cast<int>(starts.size()) != r || static_cast<int>(sizes.size()) != r)
    throw EvalError("dynamic_slice: one start and one size per dimension of " + shape_text(x.shape));
  std::vector<std::int64_t> limits(r), steps(r, 1);
  for (int d = 0; d < r; ++d) {
    if (sizes[d] < 0 || sizes[d] > x.shape[d])
      throw EvalError("dynamic_slice: size " + std::to_string(sizes[d]) + " larger than dimension " + std::to_string(d) +
                      " of " + shape_text(x.shape));
    starts[d] = dynamic_start(starts[d], x.shape[d], sizes[d]);
    limits[d] = starts[d] + sizes[d];
  }
  return slice(x, starts, limits, steps);
}

HostTensor dynamic_update_slice(const HostTensor& x, const HostTensor& update_in, std::vector<std::int64_t> starts) {
  int r = x.rank();
  if (update_in.rank() != r || static_cast<int>(starts.size()) != r)
    throw EvalError("dynamic_update_slice: update " + shape_text(update_in.shape) + " into " + shape_text(x.shape));
  HostTensor update = update_in.dtype == x.dtype ? update_in : convert(update_in, x.dtype);
  for (int d = 0; d < r; ++d) {
    if (update.shape[d] > x.shape[d])
      throw EvalError("dynamic_update_slice: update " + shape_text(update.shape) + " larger than " + shape_text(x.shape));
    starts[d] = dynamic_start(starts[d], x.shape[d], update.shape[d]);
  }
  HostTensor out = x;
  auto strides = strides_of(x.shape);
  for_each_coord(update.shape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
    std::int64_t dst = 0;
    for (int d = 0; d < r; ++d) dst += (starts[d] + c[d]) * strides[d];
    out.copy_element(dst, update, i);
  });
  return out;
}

HostTensor concat(const std::vector<HostTensor>& xs_in, int axis, DType result) {
  if (xs_in.empty()) throw EvalError("concat of no arrays");
  check_axis(axis, xs_in.front().rank(), "concat");
  Shape shape = xs_in.front().shape;
  shape[axis] = 0;
  std::vector<HostTensor> xs;
  for (const HostTensor& x : xs_in) {
    Shape s = x.shape;
    if (x.rank() != static_cast<int>(shape.size())) throw EvalError("concat of arrays of different ranks");
    s[axis] = 0;
    Shape expected = xs_in.front().shape;
    expected[axis] = 0;
    if (s != expected)
      throw EvalError("concat: shapes " + shape_text(xs_in.front().shape) + " and " + shape_text(x.shape) + " differ off axis " +
                      std::to_string(axis));
    shape[axis] += x.shape[axis];
    xs.push_back(x.dtype == result ? x : convert(x, result));
  }
  HostTensor out = HostTensor::zeros(result, shape);
  // Rows of the outer dims, each a run of the inner block per operand.
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  std::int64_t dst = 0;
  for (std::int64_t o = 0; o < outer; ++o)
    for (const HostTensor& x : xs) {
      std::int64_t run = x.shape[axis] * inner;
      for (std::int64_t j = 0; j < run; ++j) out.copy_element(dst++, x, o * run + j);
    }
  return out;
}

HostTensor stack(const std::vector<HostTensor>& xs, int axis, DType result) {
  std::vector<HostTensor> expanded;
  for (const HostTensor& x : xs) {
    if (x.shape != xs.front().shape) throw EvalError("stack of arrays of different shapes");
    expanded.push_back(expand_dims(x, axis));
  }
  return concat(expanded, axis, result);
}

std::vector<HostTensor> split(const HostTensor& x, std::int64_t parts, int axis) {
  check_axis(axis, x.rank(), "split");
  if (parts < 1 || x.shape[axis] % parts != 0)
    throw EvalError("split: dimension " + std::to_string(axis) + " of " + shape_text(x.shape) + " does not split into " +
                    std::to_string(parts) + " equal parts");
  std::int64_t size = x.shape[axis] / parts;
  std::vector<HostTensor> out;
  for (std::int64_t p = 0; p < parts; ++p) {
    std::vector<std::int64_t> starts(x.rank(), 0), limits(x.shape.begin(), x.shape.end()), steps(x.rank(), 1);
    starts[axis] = p * size;
    limits[axis] = (p + 1) * size;
    out.push_back(slice(x, starts, limits, steps));
  }
  return out;
}

HostTensor roll(const HostTensor& x, std::int64_t shift, int axis) {
  check_axis(axis, x.rank(), "roll");
  std::int64_t n = x.shape[axis];
  HostTensor out = HostTensor::zeros(x.dtype, x.shape);
  if (n == 0) return out;
  auto strides = strides_of(x.shape);
  std::int64_t s = ((shift % n) + n) % n;
  for_each_coord(x.shape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
    std::int64_t from = ((c[axis] - s) % n + n) % n;
    out.copy_element(i, x, i + (from - c[axis]) * strides[axis]);
  });
  return out;
}

HostTensor full(DType dtype, const Shape& shape, const HostTensor& scalar) {
  if (scalar.size() != 1) throw EvalError("full: the fill value must be a scalar, got shape " + shape_text(scalar.shape));
  HostTensor v = convert(scalar, dtype);
  HostTensor out = HostTensor::zeros(dtype, shape);
  for (std::int64_t i = 0; i < out.size(); ++i) out.copy_element(i, v, 0);
  return out;
}

HostTensor arange(double start, double stop, double step, DType dtype) {
  if (step == 0) throw EvalError("arange: step must not be 0");
  double count = std::ceil((stop - start) / step);
  if (count < 0) count = 0;
  HostTensor out = HostTensor::zeros(dtype, {static_cast<std::int64_t>(count)});
  // A float array is filled as NumPy fills it (shard::arange_fill), from its first two elements
  // as the dtype stores them.
  const bool floating = out.is_float();
  const float first = floating ? round_to(dtype, static_cast<float>(start)) : 0.0f;
  const float second = floating ? round_to(dtype, static_cast<float>(start + step)) : 0.0f;
  for (std::int64_t i = 0; i < out.size(); ++i) {
    if (floating) {
      out.store_float(i, i == 0 ? first : i == 1 ? second : shard::arange_fill(first, second, i));
    } else {
      // A bool element is whether the value is non-zero, as NumPy sets one from a float (0.5 is
      // true; it truncated to 0 here, where the generated code said true).
      out.store_int(i, dtype == DType::boolean ? (start + static_cast<double>(i) * step != 0.0 ? 1 : 0)
                                               : shard::arange_int_fill(start, step, i));
    }
  }
  return out;
}

}  // namespace shardc::eval
