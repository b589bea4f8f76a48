// Manual mode (shard_map bodies): collectives' result types and JAX's vma rules.
// Operands are local blocks; `axes` are the named mesh axes in the order given
// (multi-axis groups are linearised in that order, n = product of their sizes).
//
//   psum(f32[4]{V:X,Y}, X)                    -> f32[4]{V:Y}       (invariant over X)
//   all_gather(f32[2,4]{V:X}, X, axis=0)      -> f32[n,2,4]{V:X}   (untiled: new dim)
//   all_gather(..., axis=0, tiled=true)       -> f32[2n,4]{V:X}
//   all_gather(f32[4], X)                     -> error: not varying over X
//   psum_scatter(f32[8,4]{V:X}, X, dim=0, tiled=true) -> f32[8/n,4]{V:X}
//   ppermute / all_to_all / pvary             -> varying over X (pvary applied first, as in JAX)
#pragma once

#include <utility>
#include <vector>

#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

enum class AllReduceKind { sum, mean, max, min };

// The op name as written ("psum"), for messages.
Result<Type> all_reduce_op(std::string_view op, AllReduceKind kind, const Type& x, const AxisList& axes);
// `invariant`: all_gather_invariant (the result no longer varies over `axes`).
// `checked`: false in `shard_map ... unchecked` (no vma requirement).
Result<Type> all_gather_op(const Type& x, const AxisList& axes, int axis, bool tiled, bool invariant, bool checked);
Result<Type> psum_scatter_op(const Type& x, const AxisList& axes, int dim, bool tiled);
Result<Type> all_to_all_op(const Type& x, const AxisList& axes, int split, int concat, bool tiled);
Result<Type> ppermute_op(const Type& x, const AxisList& axes,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& perm);
// shift=k: device j sends to (j + k) mod n.
std::vector<std::pair<std::int64_t, std::int64_t>> shift_perm(std::int64_t n, std::int64_t k);
Result<Type> pvary_op(const Type& x, const AxisList& axes, bool checked);
Type axis_index_type(const Mesh& mesh, const AxisList& axes);
// ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes):
// the result is `output`'s block; the four index arrays are 1-D integers of the group's size.
Result<Type> ragged_all_to_all_op(const std::vector<Type>& args, const AxisList& axes);

// The number of devices in a group of `axes`.
std::int64_t group_size(const Mesh& mesh, const AxisList& axes);

// JAX's check_vma on a shard_map output: the returned block must have the out type's
// block shape and dtype, and may vary only over axes the out type shards over.
// `index` is the result's position (for messages), `in_tuple` whether the results are a tuple
// (`-> (A, B)`: JAX's message then names out_specs[index]); `checked` false skips the vma part.
std::optional<RuleError> check_output(const Type& block, const Type& out_global, int index, bool in_tuple,
                                      bool checked);

// A `var` keeps its type: a reassignment of another shape, dtype or vma is an error.
std::optional<RuleError> check_var_assignment(std::string_view name, const Type& declared, const Type& assigned);

}  // namespace shardc::check
