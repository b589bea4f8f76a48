// drop_size_one_axes: an all-reduce that explicit-mode lowering made over mesh axes of size 1
// reduces nothing along them. They are removed from its group, and an all-reduce left with no
// axis becomes a second name (alias) of its operand. A reduction over a dimension sharded on
// [X: 2, Z: 1, Y: 2]'s Z, or on (Z, Y), would otherwise run a collective over a group of one
// device, or over (Z, Y) where Y alone is the group. (Reshards already compare shardings
// without size-1 axes: lower_reshards.) Manual mode keeps its collectives as written.
//
//   %5 = psum(%4) {axes=(Z,Y)}   ->   %5 = psum(%4) {axes=Y}
//   %5 = psum(%4) {axes=Z}       ->   %5 = alias(%4)
#pragma once

#include "codegen/ir.h"

namespace shardc::codegen {

Module drop_size_one_axes(const Module& module);

}  // namespace shardc::codegen
