// Which fills the emitter may leave uninitialised: a `zeros(...)` (or any constant fill) whose
// block is entirely overwritten by a chain of dynamic_update_slices before anything reads it,
// as in the JAX idiom
//     out = zeros(...); for c: out = dynamic_update_slice(out, chunk(c), c * size, axis=1)
// (allreduce_collective_matmul's chunked form zero-filled a 16 MiB block per device and call,
// then overwrote all of it).
//
// The chain is followed through the names of one block (alias, pvary); each link must be the
// only reader of the previous one, as its operand 0, with constant starts (clamped as JAX
// does). The updates must cover the block: boxes that span every dim but one, whose intervals
// along that dim cover it. Anything else keeps the fill.
#pragma once

#include <vector>

#include "codegen/ir.h"

namespace shardc::codegen {

// Per value: a fill whose block the following dynamic_update_slices overwrite entirely.
std::vector<bool> find_overwritten_fills(const Function& f);

}  // namespace shardc::codegen
