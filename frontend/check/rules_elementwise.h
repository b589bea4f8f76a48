// Elementwise ops: unary math keeps its operand's type; binary and n-ary ops
// broadcast NumPy-style (right-aligned) with JAX's broadcasting_sharding_rule:
//
//   f32[4@X,1] + f32[1,8@Y]   ->  f32[4@X,8@Y]   (size-1 unsharded dims give way)
//   f32[8@X]   + f32[8]       ->  f32[8@X]       (one opinion wins)
//   f32[8@X]   + f32[8@Y]     ->  error: incompatible shardings for broadcasting
//   f32[4@X,4] + f32[4,4@X]   ->  error: illegally sharded result f32[4@X,4@X]
//
// In a shard_map body the operands are local blocks: shapes broadcast, the
// result varies over the union of the operands' varying axes (JAX inserts pvary).
#pragma once

#include <string_view>
#include <vector>

#include "frontend/check/dtype_rules.h"
#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

// Operands must share a mesh (static scalars and keys have none) and a view.
std::optional<RuleError> check_same_mesh(const std::vector<Type>& inputs);

// Shape, sharding, mesh and varying axes of broadcasting `inputs` together. The
// result's dtype is the promotion of the operands' dtypes (callers may override it).
Result<Type> broadcast_nary(std::string_view op, const std::vector<Type>& inputs);

enum class BinaryKind { arithmetic, divide, compare, logical };
Result<Type> binary_op(std::string_view op, BinaryKind kind, const Type& a, const Type& b);
// `op` given an unreduced operand (a pending sum) it cannot take: every op but add, sub and reshard.
RuleError unreduced_operand_error(std::string_view op, const Type& x, int operand);

// select(pred, on_true, on_false): pred is bool; branches promote.
Result<Type> select_op(const Type& pred, const Type& on_true, const Type& on_false);

// An array converted to another dtype keeps its shape and sharding.
Type with_dtype(Type t, DType dtype);

}  // namespace shardc::check
