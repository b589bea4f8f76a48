// Elementwise operations on HostTensors with NumPy broadcasting: unary math, binary
// arithmetic and comparisons, select (where) and dtype conversion. Semantics are JAX's
// (docs/language.md sections 6.3 and 8): floats compute in f32 and round to bf16/f16 after
// each op; integers wrap modulo 2^bits in unsigned math; `//` and `%` floor.
#pragma once

#include <string_view>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

// NumPy broadcasting of two shapes; throws EvalError naming both when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// `x` broadcast to `shape` (materialised).
HostTensor broadcast_to(const HostTensor& x, const Shape& shape);

// Unary ops by the trace's name: neg abs sign square relu floor ceil round logical_not exp
// log log1p expm1 sqrt rsqrt sin cos tan tanh erf sigmoid gelu. The operand is converted to
// `result` first (float functions of integers compute in f32).
HostTensor unary(std::string_view op, const HostTensor& x, DType result);

// Binary ops by the trace's name: add sub mul div floor_div rem maximum minimum pow (computed
// in `compute`, which is also the result dtype) and eq ne lt le gt ge and or (operands
// converted to `compute`, result bool).
HostTensor binary(std::string_view op, const HostTensor& a, const HostTensor& b, DType compute);
// lax.integer_pow of a float array by a static exponent: repeated squaring, each product rounded.
HostTensor float_integer_pow(const HostTensor& x, std::int64_t exponent, DType dtype);

// where(cond, a, b) with the operands converted to `result`.
HostTensor select(const HostTensor& cond, const HostTensor& a, const HostTensor& b, DType result);

// astype: floats to ints truncate toward zero and saturate (NaN -> 0), to bool is x != 0,
// ints to floats round to nearest.
HostTensor convert(const HostTensor& x, DType to);

}  // namespace shardc::eval
