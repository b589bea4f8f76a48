// lower_reductions: a global reduction over sharded dimensions -> a local reduction of each
// block, then an all-reduce over the axes of the reduced dimensions (JAX's explicit mode:
// "the compiled HLO contains all-reduce").
//
//   %1 = reduce(%0 f32[8@X,4@Y]) {fn=sum, axes=[0]}          f32[4@Y]
// becomes
//   %2 = reduce(%0) {fn=sum, axes=[0]}                       f32[2] partial over X
//   %1 = psum(%2) {axes=X}                                   f32[4@Y]
// sum -> psum, max -> pmax, min -> pmin, prod -> pprod, mean -> pmean (blocks are equal in size, so the
// mean of the block means is the mean). Reductions of replicated dimensions stay local.
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module lower_reductions(const Module& module);

}  // namespace shardc::codegen
