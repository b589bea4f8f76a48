// How many bytes a reshard exchange moves between devices: what --emit=schedule prints for it,
// since its input and output block sizes alone do not say how much crosses devices.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/ir.h"

namespace shardc::codegen {

// The most bytes any device of `mesh` copies from blocks held by other devices when a global
// array of `global_shape` (elements of `element_bytes`) moves from layout `from` to `to`,
// reading each piece from the holder the runtime picks (shard::reshard: the one whose
// coordinates on the axes `from` does not name equal the reader's, so the reader itself
// whenever it holds the piece).
std::int64_t reshard_bytes_from_peers(const check::Mesh& mesh, const std::vector<std::int64_t>& global_shape,
                                      std::int64_t element_bytes, const std::vector<AxisList>& from,
                                      const std::vector<AxisList>& to);

}  // namespace shardc::codegen
