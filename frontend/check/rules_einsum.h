// einsum and `@` (JAX's dot_general sharding rule, explicit mode).
//
//   "bd,df->bf"  f32[8@X,2048] , f32[2048,8192@Y]      -> f32[8@X,8192@Y]
//   "bd,df->bf"  f32[8,4] , f32[4@X,16]                -> f32[8,16]   (one side: all-gather, allowed)
//   "bd,df->bf"  f32[8@X,2048@Y] , f32[2048@Y,8192]    -> error: d sharded on both sides; out= required
//   "bij,bjk->bik" with b split over X on one side only -> error: batch dims sharded differently
//
// With out= the result takes that sharding (lowering adds the all-reduce or the
// reduce-scatter). In a shard_map body einsum is local math: shapes only, and the
// result varies over the union of the operands' varying axes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

struct EinsumSpec {
  std::vector<std::string> inputs;  // one letter per operand dimension
  std::string output;
};

// Parses "bd,df->bf" (letters a-z, A-Z; spaces ignored; `->` required; 1 or 2 operands).
Result<EinsumSpec> parse_einsum(std::string_view text);

// `out` is the out= sharding, one axis list per result dimension, when given. With
// `sums_pending` (unreduced=), contracted dimensions sharded on both operands leave a pending sum
// instead of an ambiguous result, and an illegal result's note does not offer out=.
Result<Type> einsum_op(std::string_view text, const std::vector<Type>& operands,
                       const std::optional<std::vector<AxisList>>& out, bool sums_pending = false);

// einsum with unreduced=U (JAX's out_sharding with unreduced axes): the product stays a pending
// sum over U, no communication. Every contracted dimension must be sharded identically on the
// operands holding it, and U must be the axes they are sharded over (JAX's two errors). The
// result's sharding is the one the operands give their output dimensions; shardc takes no
// other `out=` with U (reduce first, then reshard).
Result<Type> unreduced_einsum_op(std::string_view text, const std::vector<Type>& ops, const AxisList& unreduced,
                                 const std::optional<std::vector<AxisList>>& out);

// The einsum spec of `a @ b` (NumPy matmul, batch dims of equal rank or on one side).
Result<std::string> matmul_spec(const Type& a, const Type& b);

}  // namespace shardc::check
