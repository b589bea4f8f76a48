#include "reduce_elements.h"

#include <algorithm>
#include <cstring>

#include "shard/errors.h"
#include "shard/kernels/float16.h"

namespace shard::detail {

namespace {

constexpr std::int64_t kBlock = 512;  // elements accumulated in registers/L1 at a time

template <class Acc>
inline Acc combine(ReduceOp op, Acc a, Acc b) {
  if constexpr (std::is_floating_point_v<Acc>) {
    switch (op) {
      case ReduceOp::sum: return a + b;
      case ReduceOp::max: return (a > b || a != a) ? a : b;
      case ReduceOp::min: return (a < b || a != a) ? a : b;
    }
  } else {
    switch (op) {
      case ReduceOp::sum: return a + b;  // unsigned: wraps
      case ReduceOp::max: return a > b ? a : b;
      case ReduceOp::min: return a < b ? a : b;
    }
  }
  return a;
}

// Storage type T, accumulator Acc, conversions load/store.
template <class T, class Acc, class Load, class Store>
void reduce_typed(ReduceOp op, const std::byte* const* inputs, int n, std::byte* out, std::int64_t count, Load load,
                  Store store) {
  Acc acc[kBlock];
  for (std::int64_t base = 0; base < count; base += kBlock) {
    const std::int64_t len = std::min(kBlock, count - base);
    const T* first = reinterpret_cast<const T*>(inputs[0]) + base;
    for (std::int64_t i = 0; i < len; ++i) acc[i] = load(first[i]);
    for (int k = 1; k < n; ++k) {
      const T* in = reinterpret_cast<const T*>(inputs[k]) + base;
      switch (op) {  // hoisted out of the inner loop so that it vectorises
        case ReduceOp::sum:
          for (std::int64_t i = 0; i < len; ++i) acc[i] = combine<Acc>(ReduceOp::sum, acc[i], load(in[i]));
          break;
        case ReduceOp::max:
          for (std::int64_t i = 0; i < len; ++i) acc[i] = combine<Acc>(ReduceOp::max, acc[i], load(in[i]));
          break;
        case ReduceOp::min:
          for (std::int64_t i = 0; i < len; ++i) acc[i] = combine<Acc>(ReduceOp::min, acc[i], load(in[i]));
          break;
      }
    }
    T* dst = reinterpret_cast<T*>(out) + base;
    for (std::int64_t i = 0; i < len; ++i) dst[i] = store(acc[i]);
  }
}

template <class T>
void reduce_same(ReduceOp op, const std::byte* const* inputs, int n, std::byte* out, std::int64_t count) {
  reduce_typed<T, T>(op, inputs, n, out, count, [](T v) { return v; }, [](T v) { return v; });
}

// Signed integers: sums wrap, so add as unsigned; max/min compare signed.
template <class S>
void reduce_integer(ReduceOp op, const std::byte* const* inputs, int n, std::byte* out, std::int64_t count) {
  using U = std::make_unsigned_t<S>;
  if (op == ReduceOp::sum)
    reduce_same<U>(op, inputs, n, out, count);
  else
    reduce_same<S>(op, inputs, n, out, count);
}

}  // namespace

void reduce_elements(DType dtype, ReduceOp op, const std::byte* const* inputs, int n, std::byte* out,
                     std::int64_t count) {
  if (n == 1) {
    if (out != inputs[0]) std::memmove(out, inputs[0], static_cast<std::size_t>(count) * dtype_size(dtype));
    return;
  }
  switch (dtype) {
    case DType::f32: return reduce_same<float>(op, inputs, n, out, count);
    case DType::bf16:
      return reduce_typed<std::uint16_t, float>(op, inputs, n, out, count, kernels::bf16_to_f32, kernels::f32_to_bf16);
    case DType::f16:
      return reduce_typed<std::uint16_t, float>(op, inputs, n, out, count, kernels::f16_to_f32, kernels::f32_to_f16);
    case DType::i32: return reduce_integer<std::int32_t>(op, inputs, n, out, count);
    case DType::i64: return reduce_integer<std::int64_t>(op, inputs, n, out, count);
    case DType::boolean:
      SHARD_ASSERT(op != ReduceOp::sum, "bool sums must be converted to int32 before reducing");
      // max = or, min = and on 0/1 bytes.
      return reduce_same<std::uint8_t>(op, inputs, n, out, count);
  }
}

}  // namespace shard::detail
