// schedule_collectives: each collective -> `start` as early as its operand allows and
// `wait` as late as its result allows, so local math runs while data moves.
//
// A start goes right after the last definition of its operands (and after the previous
// collective's wait: at most one collective is in flight per device, in program order on
// every device, so the SPMD order of collectives is unchanged). A wait goes right before
// the first use of its result, or before the next collective, whichever comes first. A call
// counts as a collective here: the callee runs its own.
//
//   %3 = einsum(%l, %r_i)           %h = start(%l) {collective=ppermute, shift}
//   %4 = ppermute(%l) {shift=-1}  =>  %3 = einsum(%l, %r_i)
//   %5 = einsum(%4, %r_j)           %4 = wait(%h)
//                                   %5 = einsum(%4, %r_j)
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module schedule_collectives(const Module& module);

// Whether the runtime has a start/wait form of this collective.
bool has_async_form(OpKind kind);

}  // namespace shardc::codegen
