// lower_reshards: reshard(x) -> the cheapest per-device form of a layout change. The only pass
// that invents communication for a layout change. In order of preference:
//  1. the same layout: nothing (the value keeps its block under the result's id);
//  2. only axes added (every dimension's axes are a prefix of its target's): take_piece per
//     grown dimension, this device's 1/size of the block along it, no traffic;
//  3. one dimension drops a suffix S of its axes, the rest unchanged: one tiled all_gather
//     over S along that dimension;
//  4. one dimension drops a suffix S and another appends exactly S: one tiled all_to_all over
//     S (split the growing dimension, concat the shrinking one), as JAX's explicit mode does;
//  5. anything else: ONE reshard exchange (the runtime's shard::reshard), where each device
//     copies the intersections of its new block with the old blocks in a single rendezvous,
//     instead of a chain of gathers, all_to_alls and slices that would move (and copy) the
//     intermediate layouts.
//
//   f32[1024@dp,256@tp] -> [tp, dp]:   reshard_exchange {from=[dp,tp], to=[tp,dp]}
//   f32[1024@dp,256@tp] -> [None,None]: reshard_exchange (not two all_gathers)
//   f32[8@(X,Y), 4] -> [None, None]:   all_gather((X,Y), axis=0)
//   f32[8@X, 4] -> [None, X]:          all_to_all(X, split=1, concat=0)
//   f32[8, 4] -> [X, None]:            take_piece(X, dim=0)
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module lower_reshards(const Module& module);

}  // namespace shardc::codegen
