// Data movement and constructors on HostTensors: reshape, transpose, expand_dims, squeeze,
// slices (static and dynamic, with JAX's clamping of dynamic starts), dynamic_update_slice,
// concat, stack, split, roll, and zeros/ones/full/arange.
#pragma once

#include <functional>
#include <vector>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

HostTensor reshape(const HostTensor& x, const Shape& shape);  // same element count
HostTensor transpose(const HostTensor& x, const std::vector<std::int64_t>& perm);
HostTensor expand_dims(const HostTensor& x, int axis);
HostTensor squeeze(const HostTensor& x, int axis);  // the dimension must have size 1

// x[starts[d] : limits[d] : steps[d]] for every dimension (static, in range), then the
// dimensions listed in `squeezed` (size 1) removed.
HostTensor slice(const HostTensor& x, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& limits,
                 const std::vector<std::int64_t>& steps, const std::vector<std::int64_t>& squeezed = {});

// lax.dynamic_slice: start d clamped to [0, shape[d] - sizes[d]].
HostTensor dynamic_slice(const HostTensor& x, std::vector<std::int64_t> starts, const std::vector<std::int64_t>& sizes);
// Devices' blocks, for the ops whose sharded arithmetic the evaluator repeats (a partial per
// block). dims[k] is a dimension of x cut into counts[k] equal parts, or -1 (x lacks it);
// block_of is the part index[k] of each.
HostTensor block_of(const HostTensor& x, const std::vector<int>& dims, const std::vector<std::int64_t>& counts,
                    const std::vector<std::int64_t>& index);
// Calls visit(index) for every combination of part indices, the last fastest: the rank order
// of a collective over the mesh axes behind the counts, first axis major.
void for_each_part_index(const std::vector<std::int64_t>& counts,
                         const std::function<void(const std::vector<std::int64_t>&)>& visit);

// lax.dynamic_update_slice: start d clamped to [0, shape[d] - update.shape[d]]; `update` is
// converted to x's dtype.
HostTensor dynamic_update_slice(const HostTensor& x, const HostTensor& update, std::vector<std::int64_t> starts);

// Operands converted to `result`; equal shapes except along `axis`.
HostTensor concat(const std::vector<HostTensor>& xs, int axis, DType result);
HostTensor stack(const std::vector<HostTensor>& xs, int axis, DType result);
std::vector<HostTensor> split(const HostTensor& x, std::int64_t parts, int axis);
// y[i] = x[(i - shift) mod n] along axis.
HostTensor roll(const HostTensor& x, std::int64_t shift, int axis);

HostTensor full(DType dtype, const Shape& shape, const HostTensor& scalar);  // scalar converted as astype
// NumPy's arange: ceil((stop - start) / step) elements start + i * step, in `dtype`.
HostTensor arange(double start, double stop, double step, DType dtype);

}  // namespace shardc::eval
