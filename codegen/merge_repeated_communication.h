// merge_repeated_communication: a collective (or take_piece) that repeats an earlier one, with
// the same inputs and attributes, becomes a second name (alias) of the earlier result instead of
// moving the data again. Lowering makes such repeats wherever one value is laid out the same way
// for several uses: x gathered along a contracting dimension for x @ w1 and again for x @ w2,
// or an operand gathered for two reshapes. The IR is straight-line SSA and collectives are
// deterministic, so the earlier result is the same value. Manual-mode collectives written twice
// merge too.
//
//   %7 = all_gather(%2) {axes=X, axis=1, tiled=true}
//   ...
//   %9 = all_gather(%2) {axes=X, axis=1, tiled=true}   ->   %9 = alias(%7)
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module merge_repeated_communication(const Module& module);

}  // namespace shardc::codegen
