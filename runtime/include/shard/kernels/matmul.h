// Matrix products: c[..., M, N] (+)= a[..., M, K] @ b[..., K, N].
//
// Batch dims follow numpy matmul broadcasting: a's and b's leading dims are right-aligned with
// c's and may be 1 (or missing) where c's are larger. Any operand may be strided, so einsum
// passes transposed operands (`b.permuted({1, 0})`) or slices without copying.
// f32 runs on one cached oneDNN matmul primitive per shape/stride signature, with no copies.
// bf16 runs on oneDNN's bf16 matmul where the CPU has one (AVX-512 BF16, AMX: f32 accumulation,
// one rounding; SHARD_NATIVE_BF16=0 turns it off). Otherwise bf16, and f16 always, are
// converted to f32 around the f32 primitive and rounded back (nearest-even); a product of few
// rows (memory-bound on b) converts b in cached chunks, on the calling thread.
// i32/i64 run a plain loop that wraps modulo 2^bits (oneDNN 2.6 has no s32 matmul).
#pragma once

#include "shard/kernels/context.h"
#include "shard/kernels/view.h"

namespace shard::kernels {

struct MatmulOptions {
  bool accumulate = false;  // c += a @ b instead of c = a @ b
};

// Throws ShapeError (naming the shapes) when shapes do not fit, ArgumentError on dtypes.
void matmul(Context& ctx, const View& a, const View& b, const MutView& c, MatmulOptions options = {});

}  // namespace shard::kernels
