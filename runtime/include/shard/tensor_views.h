// Tensors as the kernels' strided views, so device code can write
//   shard::kernels::matmul(dev.kernels(), shard::view(x), shard::view(w), shard::mut_view(y));
#pragma once

#include "shard/kernels/view.h"
#include "shard/tensor.h"

namespace shard {

inline kernels::View view(const Tensor& t) { return kernels::View::contiguous(t.data(), t.dtype(), t.shape()); }
inline kernels::MutView mut_view(Tensor& t) { return kernels::MutView::contiguous(t.data(), t.dtype(), t.shape()); }

}  // namespace shard
