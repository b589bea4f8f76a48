// Internal: scans that keep oneDNN away from inputs it mishandles. oneDNN 2.6's eltwise exp
// maps NaN to inf (JAX keeps NaN), its exp and logistic flush subnormal results
// to 0, and its softmax does not spread a NaN or +inf over the row as jax.nn.softmax does; such
// inputs take the loops, which follow JAX.
#pragma once

#include <cstdint>

namespace shard::kernels::detail {

// True when some element is NaN or below `bound`.
inline bool any_nan_or_below(const float* x, std::int64_t n, float bound) {
  bool found = false;
  for (std::int64_t i = 0; i < n; ++i) found |= !(x[i] >= bound);  // branch-free: vectorises
  return found;
}

inline bool any_nonfinite(const float* x, std::int64_t n) {
  bool found = false;
  for (std::int64_t i = 0; i < n; ++i) found |= !(x[i] - x[i] == 0.0f);  // NaN and +-inf give NaN
  return found;
}

}  // namespace shard::kernels::detail
