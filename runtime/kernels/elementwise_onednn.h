// Internal: the oneDNN fast paths of elementwise.cpp. Each returns false, having done nothing,
// when the problem is not one it takes (dtype, layout, size or op), and the caller loops.
#pragma once

#include "shard/kernels/elementwise.h"

namespace shard::kernels::detail {

bool try_onednn_unary(Context& ctx, UnaryOp op, const View& x, const MutView& y);
bool try_onednn_binary(Context& ctx, BinaryOp op, const View& a, const View& b, const MutView& out);

}  // namespace shard::kernels::detail
