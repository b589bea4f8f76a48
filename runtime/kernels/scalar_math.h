// Internal: each elementwise op on one element, per kind of Math type, with JAX's semantics
// (jax/_src/numpy/ufuncs.py and XLA's integer rules). The loops in elementwise.cpp call these.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "element_types.h"
#include "shard/errors.h"
#include "shard/kernels/elementwise.h"

namespace shard::kernels::detail {

// ---- floats (f32, and bf16/f16 widened to f32) ----

inline float float_unary(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::neg: return -x;
    case UnaryOp::abs: return std::fabs(x);
    case UnaryOp::sign: return x > 0 ? 1.0f : (x < 0 ? -1.0f : x);  // keeps +-0 and NaN
    case UnaryOp::square: return x * x;
    case UnaryOp::sqrt: return std::sqrt(x);
    case UnaryOp::rsqrt: return 1.0f / std::sqrt(x);
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::log1p: return std::log1p(x);
    case UnaryOp::expm1: return std::expm1(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::sigmoid: return 1.0f / (1.0f + std::exp(-x));
    // maximum(x, 0) keeps x on equal values (XLA's max): relu(-0.0) is -0.0, NaN stays.
    case UnaryOp::relu: return x < 0 ? 0.0f : x;
    case UnaryOp::gelu: {
      const float k = 0.7978845608028654f;  // sqrt(2 / pi)
      return x * (0.5f * (1.0f + std::tanh(k * (x + 0.044715f * (x * x * x)))));
    }
    case UnaryOp::gelu_exact: return x * (std::erf(x / 1.4142135623730951f) + 1.0f) / 2.0f;
    case UnaryOp::sin: return std::sin(x);
    case UnaryOp::cos: return std::cos(x);
    case UnaryOp::tan: return std::tan(x);
    case UnaryOp::erf: return std::erf(x);
    case UnaryOp::floor: return std::floor(x);
    case UnaryOp::ceil: return std::ceil(x);
    case UnaryOp::round: return std::nearbyint(x);  // default rounding mode: half to even
    case UnaryOp::logical_not: break;
  }
  unsupported_dtype(op_name(op), DType::f32);
}

// On a tie (+0 and -0) the first operand, as XLA's CPU max and min (a select on a >= b).
inline float float_max(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a >= b ? a : b;
}
inline float float_min(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a <= b ? a : b;
}
// jnp.remainder: C fmod, moved into the divisor's sign.
inline float float_mod(float a, float b) {
  const float r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// jnp.floor_divide for floats (CPython's float_divmod, as jnp does it). A zero divisor divides
// x itself, so x // 0.0 is +-inf and 0.0 // 0.0 is NaN (current JAX's `x1_corrected`).
inline float float_floor_div(float a, float b) {
  const float r = std::fmod(a, b);
  float q = (b == 0 ? a : a - r) / b;
  const float sign_b = b > 0 ? 1.0f : (b < 0 ? -1.0f : b);
  const float sign_r = r > 0 ? 1.0f : (r < 0 ? -1.0f : r);
  if (r != 0 && sign_b != sign_r) q -= 1.0f;  // also taken when r is NaN, harmlessly
  return std::round(q);  // lax.round: half away from zero
}

// ---- integers: wrap modulo 2^bits, XLA's division rules ----

template <typename I>
inline I int_div(I a, I b) {  // lax.div: truncating; x / 0 = -1; MIN / -1 = MIN
  if (b == 0) return I{-1};
  if (b == -1) return wrap_neg(a);
  return static_cast<I>(a / b);
}
template <typename I>
inline I int_rem(I a, I b) {  // lax.rem: sign of the dividend; x % 0 = x; MIN % -1 = 0
  if (b == 0) return a;
  if (b == -1) return I{0};
  return static_cast<I>(a % b);
}
template <typename I>
inline I int_sign(I a) {
  return static_cast<I>((a > 0) - (a < 0));
}
template <typename I>
inline I int_floor_div(I a, I b) {  // jnp.floor_divide on integers
  const I q = int_div(a, b);
  return (int_sign(a) != int_sign(b) && int_rem(a, b) != 0) ? wrap_sub(q, I{1}) : q;
}
template <typename I>
inline I int_mod(I a, I b) {  // jnp.remainder on integers: a zero divisor is replaced by 1
  if (b == 0) b = 1;
  const I r = int_rem(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? wrap_add(r, b) : r;
}
// jnp.power on integer arrays (_pow_int_int): binary exponentiation over the exponent's low
// six bits, as JAX does ("anything more would overflow"); pow(0, y != 0) = 0.
template <typename I>
inline I int_pow(I base, I exponent) {
  I acc = (base == 0 && exponent != 0) ? I{0} : I{1};
  using U = std::make_unsigned_t<I>;
  U e = static_cast<U>(exponent);
  for (int bit = 0; bit < 6; ++bit) {
    if (e & 1u) acc = wrap_mul(acc, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return acc;
}

// lax.integer_pow (jnp.power with a static exponent): every bit of a non-negative exponent,
// wrapping, so that 3 ** 64 in int32 is 2038349057 where int_pow's six bits give 1.
template <typename I>
inline I int_pow_all_bits(I base, I exponent) {
  if (exponent < 0) throw ShapeError("integer_pow: negative exponent " + std::to_string(exponent));
  I acc = I{1};
  using U = std::make_unsigned_t<I>;
  for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
    if (e & 1u) acc = wrap_mul(acc, base);
    base = wrap_mul(base, base);
  }
  return acc;
}

template <typename I>
inline I int_unary(UnaryOp op, I x, DType dtype) {
  switch (op) {
    case UnaryOp::neg: return wrap_neg(x);
    case UnaryOp::abs: return x < 0 ? wrap_neg(x) : x;
    case UnaryOp::sign: return int_sign(x);
    case UnaryOp::square: return wrap_mul(x, x);
    case UnaryOp::logical_not: return static_cast<I>(~x);
    case UnaryOp::relu: return x < 0 ? I{0} : x;
    case UnaryOp::floor:
    case UnaryOp::ceil:
    case UnaryOp::round: return x;  // identity on integers
    default: break;
  }
  unsupported_dtype(op_name(op), dtype);
}

}  // namespace shard::kernels::detail

namespace shard::kernels::detail {
// Reduction steps with lax.max/min's NaN propagation, as plain functions (usable as folds).
inline float float_max_value(float acc, float v) { return float_max(acc, v); }
inline float float_min_value(float acc, float v) { return float_min(acc, v); }
}  // namespace shard::kernels::detail
