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

template <typename T>
void softmax_loop(const View& x, int axis, const MutView& y) {
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
