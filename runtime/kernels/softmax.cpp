// softmax along one axis: oneDNN for large dense f32, otherwise a loop per row that computes
// exactly jax.nn.softmax's steps (max, exp(x - max), sum, divide) in f32 and rounds once.
#include <cmath>
#include <limits>
#include <vector>

#include "checks.h"
#include "element_types.h"
#include "nonfinite.h"
#include "onednn.h"
#include "shard/kernels/reduce.h"

namespace shard::kernels {
namespace {

bool try_onednn_softmax(Context& ctx, const View& x, int axis, const MutView& y) {
  if (x.dtype != DType::f32 || x.size() < kOneDnnMinElements || !x.is_row_major() || !y.is_row_major() ||
      !detail::onednn_takes_rank(x.shape.size()))
    return false;
  // oneDNN 2.6 is fast along the innermost axis only; along another it runs reference code,
  // slower than the loop (axis 0 of [1024, 1024]: 167 ms against a plain loop's 4.4 ms).
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < x.shape.size(); ++d)
    if (x.shape[d] != 1) return false;
  if (detail::any_nonfinite(static_cast<const float*>(x.data), x.size())) return false;
  using dnnl::memory;
  const memory::dims dims(x.shape.begin(), x.shape.end());
  const memory::desc md(dims, memory::data_type::f32, memory::dims(row_major_strides(x.shape)));
  std::string key = "softmax" + std::to_string(axis);
  detail::append_key(key, dims, {}, memory::data_type::f32);
  auto& bound = detail::bound_primitive(
      ctx, key,
      [&] {
        const dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, axis);
        const dnnl::softmax_forward::primitive_desc pd(d, detail::user_scratchpad_attr(), ctx.impl().engine);
        return detail::CachedPrimitive{dnnl::softmax_forward(pd), pd.scratchpad_desc()};
      },
      [&] { return detail::ArgDescs{{DNNL_ARG_SRC, md}, {DNNL_ARG_DST, md}}; });
  detail::execute(ctx, bound, {x.data, y.data});
  return true;
}

// Dense x and y with dimensions after `axis` (inner > 1): read as [outer, n, inner], every
// column of a [n, inner] slab at once, row by row, so that memory is read in order. Each column
// takes the same steps in the same order as softmax_loop's walk of it, so the results are the
// same bitwise. (Walking each column at the row stride: 6x slower on [1024, 1024], axis 0.)
template <typename T>
bool softmax_columns(const View& x, int axis, const MutView& y) {
  using S = typename T::Stored;
  if (!x.is_row_major() || !y.is_row_major()) return false;
  const auto ax = static_cast<std::size_t>(axis);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < x.shape.size(); ++d) (d < ax ? outer : inner) *= d == ax ? 1 : x.shape[d];
  if (inner == 1) return false;
  const std::int64_t n = x.shape[ax];
  const auto* xs = static_cast<const S*>(x.data);
  auto* ys = static_cast<S*>(y.data);
  std::vector<float> m(static_cast<std::size_t>(inner)), sum(static_cast<std::size_t>(inner)),
      e(static_cast<std::size_t>(n * inner));
  for (std::int64_t a = 0; a < outer; ++a) {
    const S* slab = xs + a * n * inner;
    std::fill(m.begin(), m.end(), -std::numeric_limits<float>::infinity());
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t b = 0; b < inner; ++b) {
        const float v = T::load(slab[i * inner + b]);
        float& mb = m[static_cast<std::size_t>(b)];
        mb = (std::isnan(v) || v > mb) ? v : mb;  // a NaN max stays NaN, as the row walk stops at it
      }
    std::fill(sum.begin(), sum.end(), 0.0f);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t b = 0; b < inner; ++b) {
        const auto k = static_cast<std::size_t>(i * inner + b);
        e[k] = std::exp(T::load(slab[k]) - m[static_cast<std::size_t>(b)]);
        sum[static_cast<std::size_t>(b)] += e[k];
      }
    S* out = ys + a * n * inner;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t b = 0; b < inner; ++b) {
        const auto k = static_cast<std::size_t>(i * inner + b);
        out[k] = T::store(e[k] / sum[static_cast<std::size_t>(b)]);
      }
  }
  return true;
}

template <typename T>
void softmax_loop(const View& x, int axis, const MutView& y) {
  if (softmax_columns<T>(x, axis, y)) return;
  using S = typename T::Stored;
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t n = x.shape[ax];
  // Walk every row along the axis: all index combinations of the other dims.
  Shape outer = x.shape;
  outer[ax] = 1;
  const std::int64_t rows = element_count(outer);
  Shape index(x.shape.size(), 0);
  std::vector<float> e(static_cast<std::size_t>(n));
  const auto* xs = static_cast<const S*>(x.data);
  auto* ys = static_cast<S*>(y.data);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t xo = 0, yo = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      xo += index[d] * x.strides[d];
      yo += index[d] * y.strides[d];
    }
    float m = -std::numeric_limits<float>::infinity();
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = T::load(xs[xo + i * x.strides[ax]]);
      m = (std::isnan(v) || v > m) ? v : m;
      if (std::isnan(m)) break;
    }
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) {
      e[static_cast<std::size_t>(i)] = std::exp(T::load(xs[xo + i * x.strides[ax]]) - m);
      sum += e[static_cast<std::size_t>(i)];
    }
    for (std::int64_t i = 0; i < n; ++i) ys[yo + i * y.strides[ax]] = T::store(e[static_cast<std::size_t>(i)] / sum);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < outer[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

void softmax(Context& ctx, const View& x, int axis, const MutView& y) {
  detail::check_view(x, "softmax", "operand");
  detail::check_output(y, "softmax");
  detail::check_same_dtype(x.dtype, y.dtype, "softmax");
  detail::check_same_shape(x.shape, y.shape, "softmax");
  const int ax = detail::normalize_axis(axis, x.rank(), "softmax");
  if (!is_floating(x.dtype)) detail::unsupported_dtype("softmax", x.dtype);
  if (x.size() == 0) return;
  if (try_onednn_softmax(ctx, x, ax, y)) return;
  switch (x.dtype) {
    case DType::f32: return softmax_loop<detail::F32>(x, ax, y);
    case DType::bf16: return softmax_loop<detail::BF16>(x, ax, y);
    default: return softmax_loop<detail::F16>(x, ax, y);
  }
}

}  // namespace shard::kernels
