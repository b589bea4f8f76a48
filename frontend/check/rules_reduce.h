// Reductions and ops along one dimension (JAX explicit mode).
//
//   sum(f32[8@X,4@Y], axis=0)   ->  f32[4@Y]      (reduced dims' specs are dropped: all-reduce)
//   mean(i32[8,4], axis=1)      ->  f32[8]
//   softmax(f32[8@X,16], axis=1) -> f32[8@X,16]   (keeps the operand's type)
//   top_k(f32[8@X,16], k=4)     -> (f32[8@X,4], i32[8@X,4])   last dim must be unsharded
//   roll(f32[8@X], 1, axis=0)   ->  error: roll over a sharded dimension
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

enum class ReduceKind { sum, mean, max, min, prod, argmax, argmin, any, all };

// `axes` are the reduced dimensions (already normalised to [0, rank)); empty = all dims.
Result<Type> reduce_op(std::string_view op, ReduceKind kind, const Type& x, std::vector<int> axes);

// A sum that keeps the sum over `pending`'s blocks waiting (sum's unreduced=, and a one-operand
// einsum's, which is a reduction as in JAX): `pending` must be among `reduced`, the axes of the
// summed dimensions of `x`; the others are all-reduced.
std::optional<RuleError> check_pending_reduction(std::string_view op, const Type& x, AxisSet reduced, AxisSet pending);

// Normalises a possibly negative dimension index; an error names the op and the rank.
Result<int> normalize_axis(std::string_view op, std::int64_t axis, int rank);

Result<Type> softmax_op(const Type& x, int axis);
Result<Type> top_k_op(const Type& x, std::int64_t k);
Result<Type> roll_op(const Type& x, int axis);

}  // namespace shardc::check
