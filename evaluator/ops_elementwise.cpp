#include "evaluator/ops_elementwise.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "evaluator/eval_error.h"
#include "frontend/internal_error.h"

namespace shardc::eval {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    std::int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw EvalError("shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast");
    out[k] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// For each element of `out_shape`, the row-major index of the element of `in_shape` that
// broadcasting maps to it (in_shape aligned at the right, size-1 dims repeat).
std::vector<std::int64_t> broadcast_index_map(const Shape& in_shape, const Shape& out_shape) {
  std::int64_t n = element_count(out_shape);
  std::vector<std::int64_t> map(static_cast<std::size_t>(n));
  std::size_t offset = out_shape.size() - in_shape.size();
  auto in_strides = strides_of(in_shape);
  std::vector<std::int64_t> coord(out_shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < in_shape.size(); ++d)
      if (in_shape[d] != 1) src += coord[d + offset] * in_strides[d];
    map[i] = src;
    for (int d = static_cast<int>(out_shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < out_shape[d]) break;
      coord[d] = 0;
    }
  }
  return map;
}

// ---- floats ----

float float_sign(float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : x); }

float float_unary(std::string_view op, float x) {
  if (op == "neg") return -x;
  if (op == "abs") return std::fabs(x);
  if (op == "sign") return float_sign(x);
  if (op == "square") return x * x;
  // maximum(x, 0), which keeps x on equal values (XLA's max): relu(-0.0) is -0.0.
  if (op == "relu") return x < 0 ? 0.0f : x;
  if (op == "floor") return std::floor(x);
  if (op == "ceil") return std::ceil(x);
  if (op == "round") return std::nearbyint(x);  // default rounding mode: half to even
  if (op == "exp") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "log1p") return std::log1p(x);
  if (op == "expm1") return std::expm1(x);
  if (op == "sqrt") return std::sqrt(x);
  if (op == "rsqrt") return 1.0f / std::sqrt(x);
  if (op == "sin") return std::sin(x);
  if (op == "cos") return std::cos(x);
  if (op == "tan") return std::tan(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "erf") return std::erf(x);
  if (op == "sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (op == "gelu") {  // JAX's default: the tanh approximation
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
  }
  SHARDC_ASSERT(false, "unknown unary op '" + std::string(op) + "' on floats");
}

// On a tie (+0 and -0) the first operand, as XLA's CPU max and min (a select on a >= b).
float float_max(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a >= b ? a : b;
}

float float_min(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a <= b ? a : b;
}

// jnp.remainder / floor_divide on floats (JAX's _float_divmod): C fmod moved into the
// divisor's sign; the quotient from the exact remainder.
float float_mod(float a, float b) {
  float r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

float float_floor_div(float a, float b) {
  float r = std::fmod(a, b);
  // A zero divisor divides a itself: x // 0.0 is +-inf, 0.0 // 0.0 is NaN (docs/language.md).
  float q = (b == 0 ? a : a - r) / b;
  if (r != 0 && float_sign(b) != float_sign(r)) q -= 1.0f;
  return std::round(q);
}

float float_binary(std::string_view op, float a, float b) {
  if (op == "add") return a + b;
  if (op == "sub") return a - b;
  if (op == "mul") return a * b;
  if (op == "div") return a / b;
  if (op == "floor_div") return float_floor_div(a, b);
  if (op == "rem") return float_mod(a, b);
  if (op == "maximum") return float_max(a, b);
  if (op == "minimum") return float_min(a, b);
  if (op == "pow") return std::pow(a, b);
  SHARDC_ASSERT(false, "unknown binary op '" + std::string(op) + "' on floats");
}

// lax.integer_pow of a float: repeated squaring, each product rounded to `dtype` (JAX's
// _integer_pow; codegen/lower_to_spmd.cpp emits the same chain of multiplications).
float integer_pow_of_float(float x, std::int64_t n, DType dtype) {
  if (n == 0) return 1.0f;
  const std::uint64_t magnitude = n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
  bool have = false;
  float acc = 0.0f, power = x;
  for (std::uint64_t y = magnitude; y > 0;) {
    if (y & 1u) {
      acc = have ? static_cast<float>(round_to(dtype, acc * power)) : power;
      have = true;
    }
    y >>= 1;
    if (y > 0) power = static_cast<float>(round_to(dtype, power * power));
  }
  return n < 0 ? static_cast<float>(round_to(dtype, 1.0f / acc)) : acc;
}

// ---- integers: computed in uint64 and wrapped to the dtype by the caller ----

std::int64_t sign_of(std::int64_t x) { return (x > 0) - (x < 0); }

std::int64_t add_wrapping(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t sub_wrapping(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t mul_wrapping(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// XLA's truncating division of the dtype: x / 0 = -1, MIN / -1 = MIN (wrapped by the caller).
std::int64_t int_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return -1;
  if (b == -1) return sub_wrapping(0, a);
  return a / b;
}
// XLA's remainder: sign of the dividend, x % 0 = x, MIN % -1 = 0.
std::int64_t int_rem(std::int64_t a, std::int64_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}

std::int64_t int_binary(std::string_view op, std::int64_t a, std::int64_t b, DType dtype) {
  if (op == "add") return add_wrapping(a, b);
  if (op == "sub") return sub_wrapping(a, b);
  if (op == "mul") return mul_wrapping(a, b);
  if (op == "floor_div") {  // jnp.floor_divide on integers
    std::int64_t q = wrap_to(dtype, int_div(a, b));
    return (sign_of(a) != sign_of(b) && int_rem(a, b) != 0) ? sub_wrapping(q, 1) : q;
  }
  if (op == "rem") {  // jnp.remainder: a zero divisor is replaced by one (x % 0 == 0)
    if (b == 0) b = 1;
    std::int64_t r = int_rem(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? add_wrapping(r, b) : r;
  }
  if (op == "maximum") return a > b ? a : b;
  if (op == "minimum") return a < b ? a : b;
  if (op == "integer_pow") {  // lax.integer_pow: every bit of a non-negative exponent
    SHARDC_ASSERT(b >= 0, "integer_pow with a negative exponent (the checker refuses it)");
    std::int64_t acc = 1;
    std::int64_t base = a;
    for (auto e = static_cast<std::uint64_t>(b); e != 0; e >>= 1) {
      if (e & 1u) acc = wrap_to(dtype, mul_wrapping(acc, base));
      base = wrap_to(dtype, mul_wrapping(base, base));
    }
    return acc;
  }
  if (op == "pow") {  // JAX's _pow_int_int: binary exponentiation over the low six bits
    std::int64_t acc = (a == 0 && b != 0) ? 0 : 1;
    auto e = static_cast<std::uint64_t>(b);
    std::int64_t base = a;
    for (int bit = 0; bit < 6; ++bit) {
      if (e & 1u) acc = wrap_to(dtype, mul_wrapping(acc, base));
      base = wrap_to(dtype, mul_wrapping(base, base));
      e >>= 1;
    }
    return acc;
  }
  SHARDC_ASSERT(false, "unknown binary op '" + std::string(op) + "' on integers");
}

bool is_compare(std::string_view op) {
  return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge";
}

template <typename T>
bool compare(std::string_view op, T a, T b) {
  if (op == "eq") return a == b;
  if (op == "ne") return a != b;
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  return a >= b;
}

// Element i of `x` converted to the float dtype `to` (rounded to its precision).
float element_as_float(const HostTensor& x, std::int64_t i, DType to) {
  float v = x.is_float() ? x.floats[i] : static_cast<float>(x.ints[i]);
  return round_to(to, v);
}

}  // namespace

HostTensor broadcast_to(const HostTensor& x, const Shape& shape) {
  if (x.rank() > static_cast<int>(shape.size()) || broadcast_shapes(x.shape, shape) != shape)
    throw EvalError("cannot broadcast shape " + shape_text(x.shape) + " to " + shape_text(shape));
  HostTensor out = HostTensor::zeros(x.dtype, shape);
  auto map = broadcast_index_map(x.shape, shape);
  for (std::size_t i = 0; i < map.size(); ++i) out.copy_element(static_cast<std::int64_t>(i), x, map[i]);
  return out;
}

HostTensor convert(const HostTensor& x, DType to) {
  HostTensor out = HostTensor::zeros(to, x.shape);
  std::int64_t n = x.size();
  for (std::int64_t i = 0; i < n; ++i) {
    if (out.is_float()) out.floats[i] = element_as_float(x, i, to);
    else if (x.is_float()) out.store_float(i, x.floats[i]);
    else out.store_int(i, x.ints[i]);
  }
  return out;
}

HostTensor unary(std::string_view op, const HostTensor& x_in, DType result) {
  HostTensor x = x_in.dtype == result ? x_in : convert(x_in, result);
  HostTensor out = HostTensor::zeros(result, x.shape);
  std::int64_t n = x.size();
  if (out.is_float()) {
    for (std::int64_t i = 0; i < n; ++i) out.floats[i] = round_to(result, float_unary(op, x.floats[i]));
    return out;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t v = x.ints[i];
    std::int64_t r;
    if (op == "logical_not") r = result == DType::boolean ? !v : ~v;
    else if (result == DType::boolean) SHARDC_ASSERT(false, "arithmetic op '" + std::string(op) + "' on bool");
    else if (op == "neg") r = sub_wrapping(0, v);
    else if (op == "abs") r = v < 0 ? sub_wrapping(0, v) : v;
    else if (op == "sign") r = sign_of(v);
    else if (op == "square") r = mul_wrapping(v, v);
    else if (op == "relu") r = v > 0 ? v : 0;
    else if (op == "floor" || op == "ceil" || op == "round") r = v;
    else SHARDC_ASSERT(false, "unary op '" + std::string(op) + "' on integers");
    out.ints[i] = wrap_to(result, r);
  }
  return out;
}

HostTensor float_integer_pow(const HostTensor& x_in, std::int64_t exponent, DType dtype) {
  const HostTensor x = x_in.dtype == dtype ? x_in : convert(x_in, dtype);
  HostTensor out = HostTensor::zeros(dtype, x.shape);
  for (std::int64_t i = 0; i < out.size(); ++i)
    out.store_float(i, integer_pow_of_float(static_cast<float>(x.floats[static_cast<std::size_t>(i)]), exponent, dtype));
  return out;
}

HostTensor binary(std::string_view op, const HostTensor& a, const HostTensor& b, DType compute) {
  Shape shape = broadcast_shapes(a.shape, b.shape);
  // Index maps only for operands that broadcast (same-shape operands index directly).
  std::vector<std::int64_t> map_a, map_b;
  if (a.shape != shape) map_a = broadcast_index_map(a.shape, shape);
  if (b.shape != shape) map_b = broadcast_index_map(b.shape, shape);
  bool logical = op == "and" || op == "or";
  bool boolean_result = logical || is_compare(op);
  HostTensor out = HostTensor::zeros(boolean_result ? DType::boolean : compute, shape);
  std::int64_t n = out.size();
  bool float_math = shard::is_floating(compute);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t ia = map_a.empty() ? i : map_a[i], ib = map_b.empty() ? i : map_b[i];
    if (logical) {
      bool x = a.as_double(ia) != 0, y = b.as_double(ib) != 0;
      out.ints[i] = op == "and" ? (x && y) : (x || y);
    } else if (float_math) {
      float x = element_as_float(a, ia, compute), y = element_as_float(b, ib, compute);
      if (boolean_result) out.ints[i] = compare(op, x, y);
      else out.floats[i] = round_to(compute, float_binary(op, x, y));
    } else {
      std::int64_t x = wrap_to(compute, a.as_int(ia)), y = wrap_to(compute, b.as_int(ib));
      if (boolean_result) out.ints[i] = compare(op, x, y);
      else if (compute == DType::boolean) {
        // Bool max/min are or/and; the checker rejects other arithmetic on bools.
        SHARDC_ASSERT(op == "maximum" || op == "minimum", "arithmetic op '" + std::string(op) + "' on bool");
        out.ints[i] = op == "maximum" ? (x || y) : (x && y);
      } else {
        out.ints[i] = wrap_to(compute, int_binary(op, x, y, compute));
      }
    }
  }
  return out;
}

HostTensor select(const HostTensor& cond, const HostTensor& a, const HostTensor& b, DType result) {
  Shape shape = broadcast_shapes(broadcast_shapes(cond.shape, a.shape), b.shape);
  HostTensor c = broadcast_to(cond, shape);
  HostTensor x = broadcast_to(convert(a, result), shape);
  HostTensor y = broadcast_to(convert(b, result), shape);
  HostTensor out = HostTensor::zeros(result, shape);
  for (std::int64_t i = 0; i < out.size(); ++i) out.copy_element(i, c.as_double(i) != 0 ? x : y, i);
  return out;
}

}  // namespace shardc::eval
