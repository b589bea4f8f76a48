// Small helpers the lowering passes share: local block shapes of global values, building
// instructions that define new values, and rewriting a function's body.
#pragma once

#include <string>
#include <vector>

#include "codegen/ir.h"

namespace shardc::codegen {

// The block shape of a global shape laid out on `spec` over `mesh`.
std::vector<std::int64_t> block_shape(const check::Mesh& mesh, const std::vector<std::int64_t>& global,
                                      const std::vector<AxisList>& spec);

// A global-view value like `like` with another sharding (its block shape follows).
Value with_spec(const check::Mesh& mesh, const Value& like, std::vector<AxisList> spec);

// All dimensions replicated.
std::vector<AxisList> replicated_spec(int rank);
bool is_replicated(const std::vector<AxisList>& spec);

// A function with the same signature and values and an empty body, to be refilled by a pass.
Function empty_like(const Function& f);

// Appends `reshard(src) -> spec` to `out` (nothing when src already has that spec) and returns
// the value holding the result. It adds a Value, which may move every Value of `out`: `spec` is
// taken by value for that reason, and a caller's references into out.values dangle after it.
ValueId emit_reshard(Function& out, ValueId src, std::vector<AxisList> spec, const SourceRange& range);

// The attribute map of a collective over `axes`.
Attrs axes_attrs(const AxisList& axes);

// Finishes the partial sums over `partial` that `current`'s blocks hold (an einsum's contracted
// axes, a pending sum's): one reduce-scatter when `result`'s sharding splits one dimension of
// `current`'s further by those axes (in any order; after other axes, which a local split adds
// first), else an all-reduce. Returns the reduced value,
// still pending over any other axes `current` is; that is `result` itself when its sharding is
// `result`'s, and a new value the caller reshards to `result` otherwise.
ValueId emit_partial_sum_reduction(Function& out, ValueId current, const AxisList& partial, ValueId result,
                                   const SourceRange& range);

}  // namespace shardc::codegen
