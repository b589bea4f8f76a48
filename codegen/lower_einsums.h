// lower_einsums: a global einsum -> reshards of its operands, a local einsum on blocks, and
// the collective that finishes a partial sum, as JAX's explicit mode does.
//
// - A contracting dimension sharded on one operand only is all-gathered first (FSDP style).
// - Sharded identically on both, each device's einsum gives a partial sum over those axes:
//   `out=` decides the collective: reduce-scatter (psum_scatter, tiled) when the output
//   sharding adds exactly those axes to one dimension, all-reduce (psum) otherwise. A second
//   contracted letter over axes already partial is all-gathered instead (two partial sums
//   over one axis do not multiply into the whole one).
// - Whatever still differs from the result's sharding is a reshard.
//
//   %2 = einsum(%0 f32[8,4@Y], %1 f32[4@Y,16]) {spec="bd,df->bf", out=[None,Y]}
// becomes
//   %3 = einsum(%0, %1) {spec="bd,df->bf"}                 f32[8,16] partial over Y
//   %2 = psum_scatter(%3) {axes=Y, dim=1, tiled=true}      f32[8,16@Y]
// Shard_map einsums are already local and stay as they are.
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module lower_einsums(const Module& module);

}  // namespace shardc::codegen
