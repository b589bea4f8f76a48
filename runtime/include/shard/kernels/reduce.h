// Reductions over any set of axes, arg-reductions and softmax.
//
// reduce: `out` has x's shape with the reduced axes removed, or kept as size 1 (keepdims);
// an empty axis list copies. dtypes, as jnp: sum/prod keep the dtype (of bool they count into
// an i32 or i64 result; integer sums and products wrap); mean of floats keeps the dtype, of integers/bool gives
// a float `out`; max/min keep the dtype (bool: any/all) and propagate NaN. Identities for empty
// reductions: sum 0, prod 1, max -inf / INT_MIN / false, min +inf / INT_MAX / true, mean NaN.
// f32 sum/mean of a dense array of at least kOneDnnMinElements go to oneDNN's reduction; the
// rest loop, accumulating floats in double and rounding once.
#pragma once

#include <vector>

#include "shard/kernels/context.h"
#include "shard/kernels/view.h"

namespace shard::kernels {

enum class ReduceOp { sum, mean, max, min, prod };

void reduce(Context& ctx, ReduceOp op, const View& x, const std::vector<int>& axes, const MutView& out);

// jnp.argmax / argmin along one axis: the first index of the extreme value (a NaN counts as
// the extreme, as in JAX). `out` (i32 or i64) has x's shape without the axis (or keepdims).
void argmax(const View& x, int axis, const MutView& out);
void argmin(const View& x, int axis, const MutView& out);

// jax.nn.softmax along `axis`: exp(x - max) / sum(exp(x - max)). Floats only. f32 dense
// arrays of at least kOneDnnMinElements use oneDNN's softmax.
void softmax(Context& ctx, const View& x, int axis, const MutView& y);

const char* op_name(ReduceOp op);

}  // namespace shard::kernels
