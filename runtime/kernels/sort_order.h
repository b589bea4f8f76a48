// Internal: the total order lax.sort and lax.top_k use: ascending, -0.0 equal to +0.0, every
// NaN after +inf (and equal to other NaNs).
#pragma once

#include <cmath>
#include <type_traits>

namespace shard::kernels::detail {

// In the total order of floats: 1 for a NaN above +inf (sign bit clear), -1 for one below
// -inf (sign bit set), 0 for a number.
template <typename M>
inline int nan_side(M v) {
  return std::isnan(v) ? (std::signbit(v) ? -1 : 1) : 0;
}

template <typename M>
inline bool sort_less(M a, M b) {
  if constexpr (std::is_floating_point_v<M>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

}  // namespace shard::kernels::detail
