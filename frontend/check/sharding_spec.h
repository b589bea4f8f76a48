// Well-formedness of sharded types and the global <-> local (block) view.
//
//   f32[1024@dp, 4096] on [dp:4, tp:2]  --block_type-->  f32[256,4096]{V:dp}
#pragma once

#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

// Product of the sizes of `axes` (checked: mesh sizes are validated, so it cannot overflow).
std::int64_t axes_product(const Mesh& mesh, const AxisList& axes);

// Checks a written or computed global type: rank <= kMaxRank, no mesh axis used
// twice, every sharded dim divisible by its axes' product, sizes >= 0.
// `what` names the type in messages ("parameter type", "out=", ...).
std::optional<RuleError> validate_global(const Type& t, std::string_view what);

// A result computed by a rule must not use one mesh axis twice (JAX:
// "... produces an illegally sharded result"). `op` names the op, `inputs` its operands;
// `out_can_fix`: the note also suggests out= (einsum, @ and matmul without unreduced=).
std::optional<RuleError> check_result_axes(const Type& result, std::string_view op, const std::vector<Type>& inputs,
                                           bool out_can_fix = false);

// The per-device block of a global type, varying over every axis its dims name.
Type block_type(const Type& global);

// The global type a local block is assembled into by an out type (the checker's
// shard_map output check compares block_type(out) with the returned block).
std::vector<Dim> replicated_dims(const std::vector<std::int64_t>& shape);

}  // namespace shardc::check
