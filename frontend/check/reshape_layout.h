// Which dimensions of a reshape correspond, and where mesh axes sit so that each device's
// block is a contiguous run of the flattened dimensions. Shared by the checker's sharding rule
// for reshape (rules_shape.cpp) and by code generation, which reshapes blocks in place when
// the operand's layout lets it and moves data first when it does not.
//
//   (8, 6)    -> (2, 4, 6):  groups {0}->{0,1} (a split) and {1}->{2}
//   (2, 4, 3) -> (8, 3):     groups {0,1}->{0} (a merge) and {2}->{1}
//   (4, 6)    -> (6, 4):     one group {0,1}->{0,1} (a regrouping)
//
//   spread_axes((X,Y), (2, 8)) with X=2, Y=2  ->  [X, Y]      (JAX: f32[16@(X,Y)] -> [2@X,8@Y])
//   spread_axes((X,Y), (4, 4)) with X=2, Y=2  ->  [(X,Y), None]
//   spread_axes((X),   (2, 4)) with X=4       ->  nullopt     (4 does not divide 2)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontend/check/types.h"

namespace shardc::check {

struct ReshapeGroup {
  std::vector<int> old_dims, new_dims;  // consecutive, products equal; never a size-1 dim
};

// The shortest runs of old and new dimensions whose products are equal, in order; size-1
// dimensions belong to no group. Shapes without elements have groups only where their
// dimensions other than size-1 ones are the same (one group each); otherwise, and where the
// element counts differ, there are none.
std::vector<ReshapeGroup> reshape_groups(const std::vector<std::int64_t>& old_sizes,
                                         const std::vector<std::int64_t>& new_sizes);

// JAX's placement of a split dimension's axes (lax's split_partitions): each dimension of
// `sizes` in turn takes the next axes of `axes` while what is left of it exceeds 1, and each
// axis must divide what is left. Size-1 axes left at the end join the last dimension that took
// one. nullopt when an axis does not divide. The blocks this gives are contiguous runs of the
// flattened dimensions, in the order of `axes`: a dimension before the last one with axes is
// split down to 1 element per device.
std::optional<std::vector<AxisList>> spread_axes(const Mesh& mesh, const AxisList& axes,
                                                 const std::vector<std::int64_t>& sizes);

// The axes of `specs` one after another.
AxisList concatenated(const std::vector<AxisList>& specs);

}  // namespace shardc::check
