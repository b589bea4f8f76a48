// Kernels that move or convert elements without arithmetic. Plain loops: oneDNN has nothing for
// clamped dynamic slices, concatenation or rolls, and a strided copy is all a slice, transpose
// or broadcast needs (see View::sliced/permuted/broadcast_to).
//
// Output views must not overlap inputs unless stated. All take the shapes' product of work.
#pragma once

#include <cstdint>
#include <vector>

#include "shard/kernels/view.h"

namespace shard::kernels {

// dst = src converted to dst.dtype (shapes equal). Conversions follow XLA's convert:
// float -> narrower float rounds to nearest even (NaN stays NaN); float -> int truncates toward
// zero, saturates at the int's range, NaN -> 0; int -> int wraps; x -> bool is x != 0;
// bool -> x is 0 or 1. Same dtype and both dense: one memcpy.
void copy(const View& src, const MutView& dst);

// dst = src.permuted(axes): jnp.transpose.
void transpose(const View& src, const std::vector<int>& axes, const MutView& dst);

// Every element of dst = value, converted as by copy() from f64 (or exactly from i64).
void fill(const MutView& dst, double value);
void fill_int(const MutView& dst, std::int64_t value);

// dst[..., i, ...] = i along `axis` (lax.broadcasted_iota; arange for a 1-D dst).
void iota(const MutView& dst, int axis);

// Where a window of `size` starting at the dynamic `start` sits in a dimension of `dim`, as
// lax.dynamic_slice places it (allow_negative_indices): a negative start counts from the end,
// then the start is clamped into [0, dim - size]. dynamic_slice and dynamic_update_slice use it.
std::int64_t clamp_start(std::int64_t start, std::int64_t dim, std::int64_t size);

// lax.dynamic_slice: dst.shape gives the slice sizes; a negative start counts from the end
// (start + dim), then each start is clamped to [0, dim - size] as JAX does, so an
// out-of-range start never reads out of bounds.
void dynamic_slice(const View& src, const std::vector<std::int64_t>& starts, const MutView& dst);
// The same window as a view into src, nothing copied (generated code reads a slice that only a
// matmul consumes in place).
View dynamic_window(const View& src, const std::vector<std::int64_t>& starts, const Shape& sizes);

// lax.dynamic_update_slice, in place: operand[starts : starts + update.shape] = update, with
// starts taken as in dynamic_slice (negative from the end, then clamped to
// [0, dim - update size]). `update` must not overlap `operand`.
void dynamic_update_slice(const MutView& operand, const View& update, const std::vector<std::int64_t>& starts);

// jnp.concatenate along `axis` (negative counts from the end).
void concat(const std::vector<View>& inputs, int axis, const MutView& dst);

// jnp.roll along `axis`: dst[(i + shift) mod n] = src[i]; any shift, negative included.
void roll(const View& src, std::int64_t shift, int axis, const MutView& dst);

}  // namespace shard::kernels
