// lower_reshards: reshard(x) -> the collectives and local slices that move each block from
// one sharding to another. The only pass that invents communication for a layout change.
//
// Invariant of the loop: `state` is the current sharding; every step changes one axis of
// one dimension and keeps the value's global meaning. Until `state` equals the target:
//  1. a dimension whose axes are not a prefix of its target axes drops its minor-most
//     axis g: if g is the next axis some other dimension b needs, one tiled all_to_all over
//     g moves it (split b, concat a); otherwise a tiled all_gather over g along a;
//  2. when every dimension is a prefix of its target, the next missing axis g of a
//     dimension b is added by take_piece (this device's 1/size(g) of the block: no traffic).
//
//   f32[1024@dp,256@tp] -> [None, None]:  all_gather(tp, axis=1), all_gather(dp, axis=0)
//   f32[8@X, 4] -> [None, X]:             all_to_all(X, split=1, concat=0)
//   f32[8, 4] -> [X, None]:               take_piece(X, dim=0)
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module lower_reshards(const Module& module);

}  // namespace shardc::codegen
