// Shape ops and layout changes (JAX explicit mode).
//
//   reshape(f32[8@X], (2, 4)) on X=2       ->  f32[2@X,4]   (split: axes spread over new dims)
//   reshape(f32[16@(X,Y)], (2, 8)), X=Y=2  ->  f32[2@X,8@Y]
//   reshape(f32[2@X,4@Y], (8,))            ->  f32[8@(X,Y)] (merge: axes concatenated)
//   reshape(f32[2,4@X], (8,))              ->  error: this reshape is not supported
//   transpose(f32[8@X,4], perm=[1,0])      ->  f32[4,8@X]
//   concat(f32[8@X], f32[8@X], axis=0)     ->  f32[16@X]    (operands' shardings must be equal)
//   x[0:4] with x: f32[8@X], X=4           ->  error: 4 is not divisible by X's size
//   reshard(f32[8@X,4], [None, X])         ->  f32[8,4@X]   (the only way to change a layout)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

// `sizes` may hold one -1 (inferred).
Result<Type> reshape_op(const Type& x, const std::vector<std::int64_t>& sizes);
Result<Type> transpose_op(const Type& x, const std::vector<std::int64_t>& perm);
Result<Type> concat_op(const std::vector<Type>& xs, int axis);
// stack: operands of one type (shape, dtype, sharding); the new dimension, at `axis`, is replicated.
Result<Type> stack_op(const std::vector<Type>& xs, int axis);

// One dimension of a static slice. `index` means x[i] (the dim is removed).
struct SliceDim {
  std::optional<std::int64_t> begin, end;  // nullopt: from the start / to the end
  std::int64_t step = 1;
  bool index = false;
};
// Fewer SliceDims than the rank keep the trailing dims whole. `op` names the operation in the
// divisibility error (JAX's variants: slicing, split).
Result<Type> slice_op(const Type& x, const std::vector<SliceDim>& dims, const char* op = "slicing");
// What the `slice` op records of a slice that slice_op accepted: per dimension of x its start,
// limit and step (negative bounds normalised, trailing dims whole), and the indexed dims.
struct SliceBounds {
  std::vector<std::int64_t> starts, limits, steps, squeezed;
};
SliceBounds slice_bounds(const Type& x, const std::vector<SliceDim>& dims);

// dynamic_slice along `axis` keeping `size` elements from a (possibly per-device) start.
Result<Type> dynamic_slice_op(const Type& x, int axis, std::int64_t size);
// One size per dimension of x (the tuple form).
Result<Type> dynamic_slice_op(const Type& x, const std::vector<std::int64_t>& sizes);
// x[i] with a per-device index i: dimension 0 removed.
Result<Type> dynamic_index_op(const Type& x);
// dynamic_update_slice: an update no larger than x on any dimension, with x's sharding.
Result<Type> dynamic_update_slice_op(const Type& x, const Type& update);

// reshard(x, spec): same shape and mesh, new sharding (global view only).
// `op` names the operation in messages: reshard, constrain, or arange's out=.
Result<Type> reshard_op(const Type& x, const std::vector<AxisList>& spec, std::string_view op = "reshard");

// broadcast_to(x, shape): NumPy broadcasting to a static shape; new and stretched dims
// are replicated, the others keep their sharding.
Result<Type> broadcast_to_op(const Type& x, const std::vector<std::int64_t>& shape);

// expand_dims / squeeze: new dims are unsharded; a removed dim must have size 1.
Result<Type> expand_dims_op(const Type& x, int axis);
Result<Type> squeeze_op(const Type& x, int axis);

}  // namespace shardc::check
