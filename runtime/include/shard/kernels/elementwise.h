// Elementwise kernels with numpy broadcasting: every operand broadcasts (right-aligned, size-1
// dims stretch) to the result's shape, which must be exactly the broadcast of the operands'.
//
// Where they run: f32 on dense operands of at least kOneDnnMinElements elements goes to oneDNN
// (eltwise for exp, tanh, sigmoid, relu, sqrt, abs, square; binary for add, sub,
// mul, div with the second operand broadcast), which vectorises the transcendentals and spreads
// large arrays over the device's OpenMP threads. Everything else is a loop: strided or small
// operands, bf16/f16 (computed in f32, rounded to nearest even once per op), integers, bool,
// and ops oneDNN 2.6 lacks or defines differently (NaN-propagating max/min, pow, floor division).
//
// Integer semantics are JAX's (XLA's) with 64-bit mode off: add/sub/mul/neg/abs/square wrap
// modulo 2^bits; floor_div and mod floor like Python; `div` truncates. By zero: div gives
// XLA's -1, floor_div -1 - (x != 0) (jnp's correction of XLA's values), mod 0 (jnp replaces a
// zero divisor by 1); INT_MIN / -1 = INT_MIN. Floats: x // 0.0 is +-inf, 0.0 // 0.0 and
// x % 0.0 are NaN. relu/floor/ceil/round are identities on integers (relu: max(x, 0)).
#pragma once

#include <cstdint>

#include "shard/kernels/context.h"
#include "shard/kernels/view.h"

namespace shard::kernels {

enum class UnaryOp {
  neg, abs, sign, square, sqrt, rsqrt, exp, log, log1p, expm1, tanh, sigmoid, relu,
  gelu,        // jax.nn.gelu's default: the tanh approximation
  gelu_exact,  // jax.nn.gelu(approximate=False): 0.5 x (1 + erf(x / sqrt 2))
  sin, cos, tan, erf, floor, ceil,
  round,       // jnp.round: half to even
  logical_not, // bool only
};

enum class BinaryOp {
  add, sub, mul,
  div,        // true division for floats; truncating lax.div for integers
  max, min,   // NaN-propagating for floats, like lax.max/min
  pow,        // floats: std::pow; integers: JAX's _pow_int_int (binary exponentiation over the
              // exponent's low six bits, wrapping; pow(0, y != 0) = 0)
  integer_pow,  // integers only, y >= 0: lax.integer_pow (what jnp.power of a static exponent
                // is), binary exponentiation over every bit of y, wrapping
  floor_div,  // Python's //
  mod,        // Python's %: the result has the divisor's sign
  logical_and, logical_or, logical_xor,  // bool: logical; integers: bitwise
};

enum class CompareOp { eq, ne, lt, le, gt, ge };

// y = op(x); x and y have one dtype and one shape.
void unary(Context& ctx, UnaryOp op, const View& x, const MutView& y);

// out = a op b; a, b and out have one dtype.
void binary(Context& ctx, BinaryOp op, const View& a, const View& b, const MutView& out);

// out (bool) = a op b; a and b have one dtype. IEEE comparisons: NaN compares unequal.
void compare(CompareOp op, const View& a, const View& b, const MutView& out);

// out = cond ? a : b (jnp.where / lax.select); cond is bool; all three broadcast to out.
void select(const View& cond, const View& a, const View& b, const MutView& out);

const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);

}  // namespace shard::kernels
