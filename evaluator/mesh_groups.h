// Device coordinates and collective groups of a mesh, as JAX's shard_map sees them.
//
// Devices are numbered 0 .. device_count-1 inside the mesh (the mesh's first device is 0),
// row-major over the axes: on [dp: 4, tp: 2] device 5 has coordinates (dp=2, tp=1).
// A group over axes A = (a1, a2, ...) is the set of devices sharing their coordinates on
// every other axis; a member's index in it linearises its coordinates on A in the order
// given, a1 major: axis_index((tp, dp)) = tp * size(dp) + dp.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/check/types.h"

namespace shardc::eval {

using check::AxisList;
using check::Mesh;

std::vector<std::int64_t> device_coords(const Mesh& mesh, std::int64_t device);

// The device's index in its group over `axes` (JAX's axis_index).
std::int64_t group_index(const Mesh& mesh, const AxisList& axes, std::int64_t device);

// Every group over `axes`: each lists its member devices by group index. Groups are ordered
// by their lowest device.
std::vector<std::vector<std::int64_t>> groups(const Mesh& mesh, const AxisList& axes);

}  // namespace shardc::eval
