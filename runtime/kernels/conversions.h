// Internal: element conversion between any two dtypes, XLA's convert semantics (see copy()).
#pragma once

#include <cmath>
#include <limits>

#include "element_types.h"

namespace shard::kernels::detail {

template <typename From, typename To>
inline typename To::Math convert_value(typename From::Math v) {
  using M = typename To::Math;
  if constexpr (std::is_same_v<To, Bool>) {
    return v != typename From::Math{};
  } else if constexpr (std::is_same_v<From, Bool>) {
    return v ? M{1} : M{0};
  } else if constexpr (is_float_type<To>) {
    return static_cast<float>(v);
  } else if constexpr (is_float_type<From>) {  // float -> integer: truncate, saturate, NaN -> 0
    if (std::isnan(v)) return 0;
    constexpr float lo = static_cast<float>(std::numeric_limits<M>::min());  // exactly -2^(bits-1)
    if (v >= -lo) return std::numeric_limits<M>::max();
    if (v <= lo) return std::numeric_limits<M>::min();
    return static_cast<M>(v);
  } else {  // integer -> integer: modulo 2^bits (well defined since C++20)
    return static_cast<M>(v);
  }
}

}  // namespace shard::kernels::detail
