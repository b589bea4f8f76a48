// Indexing along one axis: take, take_along_axis and scatter. Plain loops.
//
// Index arrays are i32 or i64. Negative indices count from the end (index + n), as in JAX.
// Gathers then apply `mode` to indices still out of range: clip clamps them into [0, n - 1]
// (JAX's behaviour for x[idx] on CPU); fill writes the dtype's fill value (NaN for floats, the
// minimum for signed integers, true for bool: jnp.take's default fill). Scatters drop updates
// whose index is out of range, as JAX's default scatter mode does.
#pragma once

#include "shard/kernels/context.h"
#include "shard/kernels/view.h"

namespace shard::kernels {

enum class IndexMode { clip, fill };

// jnp.take(x, indices, axis): out.shape = x.shape[:axis] + indices.shape + x.shape[axis+1:].
void take(const View& x, const View& indices, int axis, const MutView& out, IndexMode mode = IndexMode::fill);

// jnp.take_along_axis(x, indices, axis): x and indices have one rank; indices' other dims
// broadcast against x's; out.shape is that broadcast with indices' size along `axis`.
void take_along_axis(const View& x, const View& indices, int axis, const MutView& out,
                     IndexMode mode = IndexMode::fill);

enum class ScatterOp { set, add, max, min };

// x.at[(:,)*axis, indices].set/add/max/min(updates), in place on `operand`:
// updates.shape = operand.shape[:axis] + indices.shape + operand.shape[axis+1:]. Updates are
// applied in row-major order of `updates`, so with `set` the last duplicate index wins;
// integer `add` wraps.
void scatter(Context& ctx, const MutView& operand, const View& indices, const View& updates, int axis, ScatterOp op);

}  // namespace shard::kernels
