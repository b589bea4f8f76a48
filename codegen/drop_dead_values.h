// drop_dead_values: a local instruction none of whose results is read (by a later instruction
// or as a function result) is removed, and then, in turn, the local instructions only it read.
// Lowering leaves such values behind (pow(x, 3) keeps its exponent's constant, which the
// integer_pow chain of multiplies never reads), and so do programs (a `let` never used); each
// would still be computed and allocated on every device at every call.
//
//   %1 = constant() {value=3}                  (removed: nothing reads %1)
//   %3 = binary(%0, %0) {fn="mul"}
//
// In a shard_map, collectives stay even when nothing reads them: manual code keeps its
// collectives as written (codegen/README.md), and their operands stay with them; so do calls,
// whose callees may hold collectives. A func's collectives are the lowering's own (an unused
// `reshard`, `sum` over a sharded dimension) and go when nothing reads them, as XLA drops them.
// Parameter reads stay: they name the function's arguments.
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module drop_dead_values(const Module& module);

}  // namespace shardc::codegen
