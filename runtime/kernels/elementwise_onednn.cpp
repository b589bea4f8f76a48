#include "elementwise_onednn.h"

#include <optional>
#include <vector>

#include "nonfinite.h"
#include "onednn.h"

namespace shard::kernels::detail {
namespace {

using dnnl::algorithm;
using dnnl::memory;

struct EltwiseAlgorithm {
  algorithm alg;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The unary ops oneDNN 2.6's eltwise computes with the same definition as JAX's and within
// 3 ulp of libm (measured over [-8, 8]). Its log (about 1e-4 relative error), gelu_tanh and
// gelu_erf (2e-5, 3e-5) are too coarse to stay within the evaluator's tolerance: they loop
// (gelu with its tanh on oneDNN's: gelu_with_onednn_tanh).
// So does relu: oneDNN's makes -0.0 +0.0 and NaN 0, where jax.nn.relu, XLA's maximum(x, 0),
// keeps both.
std::optional<EltwiseAlgorithm> eltwise_for(UnaryOp op) {
  switch (op) {
    case UnaryOp::exp: return EltwiseAlgorithm{algorithm::eltwise_exp};
    case UnaryOp::tanh: return EltwiseAlgorithm{algorithm::eltwise_tanh};
    case UnaryOp::sigmoid: return EltwiseAlgorithm{algorithm::eltwise_logistic};
    case UnaryOp::sqrt: return EltwiseAlgorithm{algorithm::eltwise_sqrt};
    case UnaryOp::abs: return EltwiseAlgorithm{algorithm::eltwise_abs};
    case UnaryOp::square: return EltwiseAlgorithm{algorithm::eltwise_square};
    default: return std::nullopt;
  }
}

std::optional<algorithm> binary_for(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return algorithm::binary_add;
    case BinaryOp::sub: return algorithm::binary_sub;
    case BinaryOp::mul: return algorithm::binary_mul;
    case BinaryOp::div: return algorithm::binary_div;
    default: return std::nullopt;
  }
}

memory::dims row_major(const memory::dims& dims) {
  memory::dims strides(dims.size(), 1);
  for (std::size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<memory::dim>(dims[d], 1);
  return strides;
}

}  // namespace

// y[0, n) = alg(x[0, n)) on oneDNN's eltwise primitive (x == y allowed).
void run_eltwise(Context& ctx, const EltwiseAlgorithm& alg, const void* x, void* y, std::int64_t n) {
  // Dense in and out: the shape does not matter, only the element count.
  const memory::dims dims{n};
  const memory::desc md(dims, memory::data_type::f32, memory::dims{1});
  std::string key = "eltwise" + std::to_string(static_cast<int>(alg.alg));
  append_key(key, dims, {1}, memory::data_type::f32);
  auto& bound = bound_primitive(
      ctx, key,
      [&] {
        const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, alg.alg, md, alg.alpha, alg.beta);
        const dnnl::eltwise_forward::primitive_desc pd(d, user_scratchpad_attr(), ctx.impl().engine);
        return CachedPrimitive{dnnl::eltwise_forward(pd), pd.scratchpad_desc()};
      },
      [&] { return ArgDescs{{DNNL_ARG_SRC, md}, {DNNL_ARG_DST, md}}; });
  execute(ctx, bound, {x, y});
}

// gelu (the tanh form, as the loop computes it) with its tanh on oneDNN, whose eltwise tanh is
// within 3 ulp of libm: the rest of the formula in loops around it. The loop alone spends most
// of its time in libm's tanhf (5.3 ms for 262144 elements, against 0.5 ms this way).
void gelu_with_onednn_tanh(Context& ctx, const float* x, float* y, std::int64_t n) {
  std::vector<float> inner_storage;
  float* inner = y;
  if (x == y) {  // in place: x is still needed after the tanh
    inner_storage.resize(static_cast<std::size_t>(n));
    inner = inner_storage.data();
  }
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  for (std::int64_t i = 0; i < n; ++i) inner[i] = k * (x[i] + 0.044715f * (x[i] * x[i] * x[i]));
  run_eltwise(ctx, EltwiseAlgorithm{algorithm::eltwise_tanh}, inner, inner, n);
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] * (0.5f * (1.0f + inner[i]));
}

bool try_onednn_unary(Context& ctx, UnaryOp op, const View& x, const MutView& y) {
  const auto alg = eltwise_for(op);
  if ((!alg && op != UnaryOp::gelu) || x.dtype != DType::f32 || x.size() < kOneDnnMinElements || !x.is_row_major() ||
      !y.is_row_major()) {
    return false;
  }
  const auto* in = static_cast<const float*>(x.data);
  if (op == UnaryOp::gelu) {
    gelu_with_onednn_tanh(ctx, in, static_cast<float*>(y.data), x.size());
    return true;
  }
  // exp and sigmoid below -87 have subnormal results (exp(-87) = 1.6e-38, just above FLT_MIN),
  // which oneDNN's exp flushes to 0; JAX keeps them (docs/language.md 6.7). Such inputs, and
  // exp of NaN, take the loops.
  if ((op == UnaryOp::exp || op == UnaryOp::sigmoid) && any_nan_or_below(in, x.size(), -87.0f)) return false;
  run_eltwise(ctx, *alg, x.data, y.data, x.size());
  return true;
}

bool try_onednn_binary(Context& ctx, BinaryOp op, const View& a, const View& b, const MutView& out) {
  const auto alg = binary_for(op);
  if (!alg || out.dtype != DType::f32 || out.size() < kOneDnnMinElements || !onednn_takes_rank(out.shape.size()))
    return false;
  if (!a.is_row_major() || !b.is_row_major() || !out.is_row_major()) return false;
  // oneDNN 2.6 broadcasts only its second source: the first must have the result's shape.
  const View* src0 = &a;
  const View* src1 = &b;
  auto padded = [&](const View& v) {
    memory::dims dims(out.shape.size() - v.shape.size(), 1);
    dims.insert(dims.end(), v.shape.begin(), v.shape.end());
    return dims;
  };
  const memory::dims out_dims(out.shape.begin(), out.shape.end());
  if (padded(a) != out_dims) {
    const bool commutative = op == BinaryOp::add || op == BinaryOp::mul;
    if (!commutative || padded(b) != out_dims) return false;
    std::swap(src0, src1);
  }
  const memory::dims src1_dims = padded(*src1);
  const auto f32 = memory::data_type::f32;
  const memory::desc out_md(out_dims, f32, row_major(out_dims));
  const memory::desc src1_md(src1_dims, f32, row_major(src1_dims));
  std::string key = "binary" + std::to_string(static_cast<int>(*alg));
  append_key(key, out_dims, {}, f32);
  append_key(key, src1_dims, {}, f32);
  auto& bound = bound_primitive(
      ctx, key,
      [&] {
        const dnnl::binary::desc d(*alg, out_md, src1_md, out_md);
        const dnnl::binary::primitive_desc pd(d, user_scratchpad_attr(), ctx.impl().engine);
        return CachedPrimitive{dnnl::binary(pd), pd.scratchpad_desc()};
      },
      [&] { return ArgDescs{{DNNL_ARG_SRC_0, out_md}, {DNNL_ARG_SRC_1, src1_md}, {DNNL_ARG_DST, out_md}}; });
  execute(ctx, bound, {src0->data, src1->data, out.data});
  return true;
}

}  // namespace shard::kernels::detail
