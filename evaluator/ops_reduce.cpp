#include "evaluator/ops_reduce.h"

#include "evaluator/ops_shape.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

// Splits x's dimensions into kept and reduced ones. For every output element (over the kept
// dims, row-major) `groups` lists the input indices it reduces, in row-major order.
struct Reduction {
  Shape kept_shape;
  Shape keepdims_shape;
  std::vector<std::vector<std::int64_t>> groups;
};

Reduction plan(const Shape& shape, const std::vector<int>& axes_in) {
  std::vector<bool> reduced(shape.size(), axes_in.empty());
  for (int a : axes_in) {
    SHARDC_ASSERT(a >= 0 && a < static_cast<int>(shape.size()), "reduction axis out of range");
    reduced[a] = true;
  }
  Reduction r;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) r.kept_shape.push_back(shape[d]);
    r.keepdims_shape.push_back(reduced[d] ? 1 : shape[d]);
  }
  r.groups.resize(static_cast<std::size_t>(element_count(r.kept_shape)));
  auto kept_strides = strides_of(r.kept_shape);
  std::vector<std::int64_t> coord(shape.size(), 0);
  std::int64_t n = element_count(shape);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t out = 0;
    for (std::size_t d = 0, k = 0; d < shape.size(); ++d)
      if (!reduced[d]) out += coord[d] * kept_strides[k++];
    r.groups[out].push_back(i);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  return r;
}

bool float_greater(float a, float b) {  // NaN counts as the largest
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a > b;
}

// XLA's total order of sort and TopK: float_greater, and +0 above -0 (argmax, like jnp.argmax,
// takes them as equal).
// XLA's total order of floats, as its TopK uses: -NaN < -inf < ... < -0 < +0 < ... < +inf <
// +NaN (NaNs of one sign are equal).
bool float_greater_total(float a, float b) {
  auto side = [](float v) { return std::isnan(v) ? (std::signbit(v) ? -1 : 1) : 0; };
  if (side(a) != side(b)) return side(a) > side(b);
  if (side(a) != 0) return false;
  if (a == b && a == 0) return !std::signbit(a) && std::signbit(b);
  return a > b;
}

}  // namespace

HostTensor reduce(std::string_view op, const HostTensor& x_in, const std::vector<int>& axes, bool keepdims,
                  DType result) {
  Reduction r = plan(x_in.shape, axes);
  HostTensor out = HostTensor::zeros(result, keepdims ? r.keepdims_shape : r.kept_shape);
  bool arg = op == "argmax" || op == "argmin";
  // Sums and products compute in the result dtype (bool counts as i32, ints as f32 for mean).
  HostTensor x = (arg || op == "max" || op == "min" || x_in.dtype == result) ? x_in : convert(x_in, result);
  for (std::size_t o = 0; o < r.groups.size(); ++o) {
    const auto& g = r.groups[o];
    auto oi = static_cast<std::int64_t>(o);
    if (arg) {
      bool want_max = op == "argmax";
      std::int64_t best = 0;
      for (std::size_t j = 1; j < g.size(); ++j) {
        bool better;
        if (x.is_float()) {
          float v = x.floats[g[j]], b = x.floats[g[best]];
          better = want_max ? float_greater(v, b) : (std::isnan(v) && !std::isnan(b)) || (!std::isnan(b) && v < b);
        } else {
          better = want_max ? x.ints[g[j]] > x.ints[g[best]] : x.ints[g[j]] < x.ints[g[best]];
        }
        if (better) best = static_cast<std::int64_t>(j);
      }
      if (g.empty()) throw EvalError(std::string(op) + " of an empty dimension");
      out.store_int(oi, best);
    } else if (op == "max" || op == "min") {
      bool want_max = op == "max";
      if (x.is_float()) {
        float acc = want_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
        for (auto i : g) {
          float v = x.floats[i];
          if (std::isnan(acc)) break;
          if (std::isnan(v) || (want_max ? v > acc : v < acc)) acc = v;
        }
        out.store_float(oi, acc);
      } else {
        std::int64_t acc = x.dtype == DType::boolean ? (want_max ? 0 : 1)
                           : x.dtype == DType::i32
                               ? (want_max ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max())
                               : (want_max ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max());
        for (auto i : g) acc = want_max ? std::max(acc, x.ints[i]) : std::min(acc, x.ints[i]);
        out.store_int(oi, acc);
      }
    } else if (op == "sum" || op == "mean" || op == "prod") {
      bool prod = op == "prod";
      if (x.is_float()) {
        double acc = prod ? 1.0 : 0.0;
        for (auto i : g) acc = prod ? acc * x.floats[i] : acc + x.floats[i];
        // mean is the f32 sum divided in f32 (jnp.mean's computation dtype), so a sum beyond
        // f32's range is inf as in JAX, whatever the count.
        if (op == "mean") acc = static_cast<float>(acc) / static_cast<float>(g.size());
        out.store_float(oi, acc);
      } else {
        SHARDC_ASSERT(op != "mean", "mean with an integer result dtype");
        auto acc = static_cast<std::uint64_t>(prod ? 1 : 0);
        for (auto i : g) acc = prod ? acc * static_cast<std::uint64_t>(x.ints[i]) : acc + static_cast<std::uint64_t>(x.ints[i]);
        out.store_int(oi, static_cast<std::int64_t>(acc));
      }
    } else {
      SHARDC_ASSERT(false, "unknown reduction '" + std::string(op) + "'");
    }
  }
  return out;
}

HostTensor reduce_of_rounded_partials(std::string_view op, const HostTensor& x, const std::vector<int>& axes,
                                      bool keepdims, DType result,
                                      const std::vector<std::pair<int, std::int64_t>>& split) {
  if (split.empty()) return reduce(op, x, axes, keepdims, result);
  SHARDC_ASSERT(op == "sum" || op == "mean" || op == "prod", "reduce_of_rounded_partials of " + std::string(op));
  std::vector<int> dims;
  std::vector<std::int64_t> counts;
  for (const auto& [d, blocks] : split) {
    dims.push_back(d);
    counts.push_back(blocks);
  }
  HostTensor out;
  std::vector<float> combined;  // the partials combined in f32, in the group's order
  std::int64_t members = 0;
  for_each_part_index(counts, [&](const std::vector<std::int64_t>& index) {
    const HostTensor partial = reduce(op, block_of(x, dims, counts, index), axes, keepdims, DType::f32);
    if (members++ == 0) {
      out = HostTensor::zeros(result, partial.shape);
      combined = partial.floats;
      if (op != "prod")  // a sum starts from +0 (XLA's all-reduce)
        for (float& v : combined) v = 0.0f + v;
      return;
    }
    for (std::size_t i = 0; i < combined.size(); ++i)
      combined[i] = op == "prod" ? combined[i] * partial.floats[i] : combined[i] + partial.floats[i];
  });
  for (std::size_t i = 0; i < combined.size(); ++i)
    out.store_float(static_cast<std::int64_t>(i), op == "mean" ? combined[i] / static_cast<float>(members) : combined[i]);
  return out;
}

HostTensor softmax(const HostTensor& x_in, int axis, DType result) {
  SHARDC_ASSERT(axis >= 0 && axis < x_in.rank(), "softmax axis out of range");
  HostTensor x = convert(x_in, DType::f32);
  Reduction r = plan(x.shape, {axis});
  HostTensor out = HostTensor::zeros(result, x.shape);
  for (const auto& g : r.groups) {
    float m = -std::numeric_limits<float>::infinity();
    for (auto i : g) m = std::isnan(m) ? m : (std::isnan(x.floats[i]) || x.floats[i] > m ? x.floats[i] : m);
    double total = 0;
    std::vector<float> e(g.size());
    for (std::size_t j = 0; j < g.size(); ++j) total += e[j] = std::exp(x.floats[g[j]] - m);
    for (std::size_t j = 0; j < g.size(); ++j) out.store_float(g[j], static_cast<double>(e[j]) / total);
  }
  return out;
}

std::pair<HostTensor, HostTensor> top_k(const HostTensor& x, std::int64_t k) {
  if (x.rank() == 0) throw EvalError("top_k of a scalar");
  std::int64_t n = x.shape.back();
  if (k < 0 || k > n) throw EvalError("top_k: k=" + std::to_string(k) + " for a last dimension of " + std::to_string(n));
  Shape shape = x.shape;
  shape.back() = k;
  HostTensor values = HostTensor::zeros(x.dtype, shape);
  HostTensor indices = HostTensor::zeros(DType::i32, shape);
  std::int64_t rows = n == 0 ? 0 : x.size() / n;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t row = 0; row < rows; ++row) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      if (x.is_float()) return float_greater_total(x.floats[row * n + a], x.floats[row * n + b]);
      return x.ints[row * n + a] > x.ints[row * n + b];
    });
    for (std::int64_t j = 0; j < k; ++j) {
      values.copy_element(row * k + j, x, row * n + order[j]);
      indices.store_int(row * k + j, order[j]);
    }
  }
  return {values, indices};
}

}  // namespace shardc::eval
