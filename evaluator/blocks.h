// Global arrays <-> per-device blocks, by a sharding spec (per dimension, the mesh axes it is
// split over, major first; an empty list: not split).
//
//   global int32[4, 4], spec [[X], [Y]] on [X: 2, Y: 2]: device (x, y) holds rows 2x..2x+1,
//   columns 2y..2y+1; spec [[X], []]: devices (x, 0) and (x, 1) hold the same rows.
#pragma once

#include <string>
#include <vector>

#include "evaluator/host_tensor.h"
#include "evaluator/mesh_groups.h"

namespace shardc::eval {

using Spec = std::vector<AxisList>;

struct BlockPlace {
  std::vector<std::int64_t> starts;
  Shape shape;
};

// Where `device`'s block of a global array of `global_shape` lies. Throws EvalError when a
// dimension does not divide over its axes.
BlockPlace block_place(const Mesh& mesh, const Shape& global_shape, const Spec& spec, std::int64_t device);

// The device's block, copied out of the global array.
HostTensor block_of(const Mesh& mesh, const HostTensor& global, const Spec& spec, std::int64_t device);

// The global array of `dtype` and `global_shape` from every device's block (blocks[d] is
// device d's). A replicated block is taken from the lowest device id holding it; with
// `check_replicas`, a higher device's copy that differs is an internal error naming `what`.
HostTensor assemble(const Mesh& mesh, DType dtype, const Shape& global_shape, const Spec& spec,
                    const std::vector<HostTensor>& blocks, bool check_replicas, const std::string& what);

}  // namespace shardc::eval
