// Elementwise reduction of n equally long arrays, the arithmetic of psum/pmax/pmin/pprod and
// psum_scatter. Inputs are combined in rank order (0, 1, ..., n-1) so every device, and the
// reference, get bit-identical results. bf16/f16 accumulate in f32 and round once at the end;
// integer sums and products wrap modulo 2^bits (computed in unsigned types); floating max/min propagate NaN as
// XLA does; bool max/min are or/and.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shard/communicator.h"
#include "shard/dtype.h"

namespace shard::detail {

// out[i] = op(inputs[0][i], ..., inputs[n-1][i]) for i in [0, count). `out` may alias inputs[k]
// only when every input pointer is the same array position (it is read before it is written).
// Bool sums and products are not handled here (they count in int32: the caller converts first).
// `streaming`: write `out` with non-temporal stores (for outputs too large to stay in cache; the
// stores are fenced before this returns).
void reduce_elements(DType dtype, ReduceOp op, const std::byte* const* inputs, int n, std::byte* out,
                     std::int64_t count, bool streaming = false);

}  // namespace shard::detail
