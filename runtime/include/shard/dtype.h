// Element types of sharded arrays. Shared by the runtime, the generated code and its tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace shard {

// bf16 and f16 are storage types: kernels compute in f32 and round once (oneDNN 2.6 has no
// bf16/f16 matmul on AVX2 CPUs; where it has a bf16 one, it accumulates in f32 too).
enum class DType : std::uint8_t { f32, bf16, f16, i32, i64, boolean };

using Shape = std::vector<std::int64_t>;

// How many elements a slice [start, limit) with `step` (> 0) keeps: ceil((limit - start) /
// step), 0 when limit <= start. Computed without adding step - 1, which overflows for a step
// near i64 max (x[::9223372036854775807] keeps 1 element). The checker, the evaluator and the
// generated code all count slices with it, so they agree on every shape.
constexpr std::int64_t slice_count(std::int64_t start, std::int64_t limit, std::int64_t step) {
  const std::int64_t span = limit > start ? limit - start : 0;
  return span / step + (span % step != 0 ? 1 : 0);
}

// Element i >= 2 of a float arange as NumPy fills one (jnp.arange calls np.arange for static
// arguments): from the first two elements as stored, `first` = start and `second` = start +
// step each rounded to the array's dtype, first + i * (second - first) in f32 arithmetic (then
// rounded to the dtype). So arange(0.3, 4.0, 0.29)[2] is 0.87999994, not f32(0.3 + 2 * 0.29) =
// 0.88. Elements 0 and 1 are `first` and `second`. The evaluator and the generated code share it.
constexpr float arange_fill(float first, float second, std::int64_t i) {
  return first + static_cast<float>(i) * (second - first);
}

// Element i of an integer arange as NumPy fills one, the same way: the first two elements are
// start and start + step converted to the integer (truncated toward zero), and element i is
// first + i * (second - first), wrapping. With integer bounds that is start + i * step; with
// fractional ones it is NumPy's own rule: arange(-3, 3, 0.5, dtype=i32) is -3, -2, -1, ..., 8
// (twelve elements one apart) and arange(0, 2, 0.5, dtype=i32) is 0, 0, 0, 0. The checker
// keeps every element, so the first two, within the dtype. The evaluator and the generated
// code share it.
constexpr std::int64_t arange_int_fill(double start, double step, std::int64_t i) {
  const auto first = static_cast<std::uint64_t>(static_cast<std::int64_t>(start));
  if (i == 0) return static_cast<std::int64_t>(first);  // a one-element arange has no second element to convert
  const auto second = static_cast<std::uint64_t>(static_cast<std::int64_t>(start + step));
  return static_cast<std::int64_t>(first + static_cast<std::uint64_t>(i) * (second - first));
}

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::f16: return 2;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}

// JAX's names, as `jax.typeof` prints them: float32, bfloat16, ...
constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::bf16: return "bfloat16";
    case DType::f16: return "float16";
    case DType::i32: return "int32";
    case DType::i64: return "int64";
    case DType::boolean: return "bool";
  }
  return "?";
}

// The .shard spelling: f32, bf16, f16, i32, i64, bool.
constexpr std::string_view dtype_short_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

constexpr bool is_floating(DType t) { return t == DType::f32 || t == DType::bf16 || t == DType::f16; }
constexpr bool is_integer(DType t) { return t == DType::i32 || t == DType::i64; }

}  // namespace shard
