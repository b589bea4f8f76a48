// JAX's dtype promotion with 64-bit mode off, for the six .shard dtypes.
//
// The lattice (jax._src.dtypes): bool < weak int < {i32 < i64} < weak float <
// {bf16, f16} < f32. Weak types come from literals: `x + 1` keeps x's dtype,
// `i32_array * 0.5` gives f32. bf16 with f16 meets at f32.
#pragma once

#include <optional>
#include <string_view>

#include "shard/dtype.h"

namespace shardc::check {

struct DTypeW {
  shard::DType dtype;
  bool weak = false;
  bool operator==(const DTypeW&) const = default;
};

// The result dtype of a binary arithmetic op (add, mul, max, ...).
DTypeW promote(DTypeW a, DTypeW b);
// `/` is true division: integers and bools give f32.
DTypeW true_divide(DTypeW a, DTypeW b);
// mean / pmean: integers and bools give f32.
shard::DType mean_dtype(shard::DType t);
// sum / psum: bool counts as i32; others keep their dtype.
shard::DType sum_dtype(shard::DType t);

std::optional<shard::DType> parse_dtype(std::string_view short_name);  // "f32", "bool", ...

}  // namespace shardc::check
