// Internal: how each DType is stored and computed on. Loops load an element into its `Math`
// type (float for f32/bf16/f16, the integer itself for i32/i64, bool for bool), compute, and
// store back with the dtype's rounding (round-to-nearest-even for bf16/f16).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "shard/errors.h"
#include "shard/kernels/float16.h"
#include "shard/dtype.h"

namespace shard::kernels::detail {

struct F32 {
  using Stored = float;
  using Math = float;
  static constexpr DType dtype = DType::f32;
  static Math load(Stored v) { return v; }
  static Stored store(Math v) { return v; }
};
struct BF16 {
  using Stored = std::uint16_t;
  using Math = float;
  static constexpr DType dtype = DType::bf16;
  static Math load(Stored v) { return bf16_to_f32(v); }
  static Stored store(Math v) { return f32_to_bf16(v); }
};
struct F16 {
  using Stored = std::uint16_t;
  using Math = float;
  static constexpr DType dtype = DType::f16;
  static Math load(Stored v) { return f16_to_f32(v); }
  static Stored store(Math v) { return f32_to_f16(v); }
};
struct I32 {
  using Stored = std::int32_t;
  using Math = std::int32_t;
  static constexpr DType dtype = DType::i32;
  static Math load(Stored v) { return v; }
  static Stored store(Math v) { return v; }
};
struct I64 {
  using Stored = std::int64_t;
  using Math = std::int64_t;
  static constexpr DType dtype = DType::i64;
  static Math load(Stored v) { return v; }
  static Stored store(Math v) { return v; }
};
struct Bool {
  using Stored = std::uint8_t;  // bytes 0/1, never reinterpreted as C++ bool (no UB on other bytes)
  using Math = bool;
  static constexpr DType dtype = DType::boolean;
  static Math load(Stored v) { return v != 0; }
  static Stored store(Math v) { return v ? 1 : 0; }
};

template <typename T>
constexpr bool is_float_type = std::is_same_v<typename T::Math, float>;
template <typename T>
constexpr bool is_int_type = std::is_same_v<T, I32> || std::is_same_v<T, I64>;

// Calls fn(TypeTag{}) for the dtype's tag type.
template <typename Fn>
decltype(auto) dispatch(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32: return fn(F32{});
    case DType::bf16: return fn(BF16{});
    case DType::f16: return fn(F16{});
    case DType::i32: return fn(I32{});
    case DType::i64: return fn(I64{});
    case DType::boolean: return fn(Bool{});
  }
  throw ArgumentError("unknown dtype code " + std::to_string(static_cast<int>(dtype)));
}

// Wrapping integer arithmetic: computed in the unsigned type, so overflow is defined.
template <typename I>
inline I wrap_add(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename I>
inline I wrap_sub(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename I>
inline I wrap_mul(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) * static_cast<U>(b));
}
template <typename I>
inline I wrap_neg(I a) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(U{0} - static_cast<U>(a));
}

}  // namespace shard::kernels::detail
