// Internal: the total order lax.sort and lax.top_k use: ascending, -0.0 equal to +0.0, every
// NaN after +inf (and equal to other NaNs).
#pragma once

#include <cmath>
#include <type_traits>

namespace shard::kernels::detail {

template <typename M>
inline bool sort_less(M a, M b) {
  if constexpr (std::is_floating_point_v<M>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

}  // namespace shard::kernels::detail
