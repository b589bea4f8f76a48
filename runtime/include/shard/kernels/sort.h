// Sorting along an axis. Plain loops (std::stable_sort per row): oneDNN has no sort.
//
// Order, as lax.sort's comparator: ascending, -0.0 equal to +0.0, NaN after everything;
// stable. `descending` reverses the ascending result along the axis, exactly as jnp.sort does
// (so NaNs come first and equal elements appear in reverse order).
#pragma once

#include <cstdint>

#include "shard/kernels/view.h"

namespace shard::kernels {

void sort(const View& x, int axis, const MutView& out, bool descending = false);

// jnp.argsort (stable): indices (i32 or i64) that sort x along `axis`. `descending` as jnp:
// the stable ascending order of the reversed array, reversed back (ties keep index order).
void argsort(const View& x, int axis, const MutView& indices, bool descending = false);

// lax.top_k along the last axis: the k largest values in descending order and their indices
// (i32 or i64); among equal values the lower index comes first; NaN counts as the largest.
// values and indices have x's shape with the last dim replaced by k; 0 <= k <= last dim.
void top_k(const View& x, std::int64_t k, const MutView& values, const MutView& indices);

}  // namespace shard::kernels
