// Integer arithmetic for shapes and static values: overflow is a located error,
// never undefined behaviour; `//` and `%` floor, as in Python and JAX.
#pragma once

#include <cstdint>
#include <optional>

namespace shardc::check {

inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
// Floor division; nullopt for division by zero and INT64_MIN // -1.
inline std::optional<std::int64_t> floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// Floor modulo: the result has the divisor's sign, so (i0 - i) % n is never negative.
inline std::optional<std::int64_t> floor_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace shardc::check
