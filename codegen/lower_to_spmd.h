// lower_to_spmd: the checker's typed traces -> the SPMD IR, one instruction per traced op.
//
// Each value gets its local block type; a `func`'s values also keep their global shape and
// sharding. Ops keep their global meaning where communication may be needed (einsum with
// `out=`, reductions, reshard): later passes turn those into local ops and collectives.
// Ops that are not block-local in the global view (a slice of a sharded dimension, a softmax
// along one, ...) get their operands resharded to replicated first and their result
// resharded back, so that every op but `reshard`, `einsum` and `reduce` computes on blocks.
//
//   func f(x: f32[8@X, 4]) -> f32[8@X, 4] on grid { return softmax(x, axis=0); }
// becomes
//   %0 = param {index=0}                 f32[4,4]   [X, None]
//   %1 = reshard(%0) {sharding=[None,None]}  f32[8,4]
//   %2 = softmax(%1) {axis=0}            f32[8,4]   [None, None]
//   %3 = reshard(%2) {sharding=[X,None]} f32[4,4]   [X, None]
//
// Anything the code generator cannot express is a located error in `diags`.
#pragma once

#include "codegen/ir.h"
#include "frontend/diagnostics.h"

namespace shardc::codegen {

Module lower_to_spmd(std::shared_ptr<const check::CheckedModule> checked, Diagnostics& diags);

}  // namespace shardc::codegen
