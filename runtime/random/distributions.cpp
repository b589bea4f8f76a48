// random_bits, uniform and normal, following jax/_src/random.py operation by operation so that
// every rounding happens where JAX's does: uniform builds floats in [1, 2) from the top mantissa
// bits, subtracts 1, scales by (maxval - minval), adds minval and clamps below at minval, each
// step rounded to the dtype; normal maps uniform(nextafter(-1, 0), 1) through XLA's ErfInv32.
// Built with -ffp-contract=off: a fused multiply-add would round differently from XLA.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "block_counter.h"
#include "shard/errors.h"
#include "shard/kernels/float16.h"
#include "shard/random.h"

namespace shard::random {
namespace {

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// One 32-bit word per element: the XOR of threefry's two outputs on the element's global index.
inline std::uint32_t element_bits(Key key, std::uint64_t global_index) {
  const auto out = threefry2x32(key, static_cast<std::uint32_t>(global_index >> 32),
                                static_cast<std::uint32_t>(global_index));
  return out[0] ^ out[1];
}

// A dtype's arithmetic as XLA does it on CPU: f32 ops on widened values, each result rounded back.
struct F32Arith {
  static constexpr int kBits = 32;
  static constexpr int kMantissa = 23;
  static float round(float v) { return v; }
  static float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }
  static constexpr std::uint32_t kOneBits = 0x3F800000u;
  static void store(void* out, std::int64_t i, float v) { static_cast<float*>(out)[i] = v; }
};
struct BF16Arith {
  static constexpr int kBits = 16;
  static constexpr int kMantissa = 7;
  static float round(float v) { return kernels::bf16_to_f32(kernels::f32_to_bf16(v)); }
  static float from_bits(std::uint32_t bits) { return kernels::bf16_to_f32(static_cast<std::uint16_t>(bits)); }
  static constexpr std::uint32_t kOneBits = 0x3F80u;
  static void store(void* out, std::int64_t i, float v) {
    static_cast<std::uint16_t*>(out)[i] = kernels::f32_to_bf16(v);
  }
};
struct F16Arith {
  static constexpr int kBits = 16;
  static constexpr int kMantissa = 10;
  static float round(float v) { return kernels::f16_to_f32(kernels::f32_to_f16(v)); }
  static float from_bits(std::uint32_t bits) { return kernels::f16_to_f32(static_cast<std::uint16_t>(bits)); }
  static constexpr std::uint32_t kOneBits = 0x3C00u;
  static void store(void* out, std::int64_t i, float v) {
    static_cast<std::uint16_t*>(out)[i] = kernels::f32_to_f16(v);
  }
};

// The smallest step of the dtype from `from` towards zero (np.nextafter(from, 0) for from = -1).
template <typename A>
float next_toward_zero_from_minus_one() {
  if constexpr (A::kBits == 32) return std::nextafter(-1.0f, 0.0f);
  // -1 + 2^-(mantissa + 1): the 16-bit types' spacing just below 1 in magnitude.
  return -1.0f + std::ldexp(1.0f, -(A::kMantissa + 1));
}

// uniform's value for one element's raw bits (already narrowed to the dtype's width).
template <typename A>
inline float uniform_value(std::uint32_t bits, float minval, float scale) {
  const std::uint32_t float_bits = (bits >> (A::kBits - A::kMantissa)) | A::kOneBits;
  const float in_one_two = A::from_bits(float_bits);
  const float unit = A::round(in_one_two - 1.0f);
  const float scaled = A::round(unit * scale);
  const float shifted = A::round(scaled + minval);
  return std::max(minval, shifted);
}

template <typename A>
void uniform_impl(Key key, const Block& block, float minval, float maxval, void* out) {
  const float scale = A::round(maxval - minval);
  detail::for_each_global_index(block, [&](std::int64_t i, std::uint64_t g) {
    std::uint32_t bits = element_bits(key, g);
    if constexpr (A::kBits == 16) bits &= 0xFFFFu;  // convert_element_type(uint32 -> uint16)
    A::store(out, i, uniform_value<A>(bits, minval, scale));
  });
}

template <typename A>
void normal_impl(Key key, const Block& block, void* out) {
  const float minval = next_toward_zero_from_minus_one<A>();
  const float maxval = 1.0f;
  const float scale = A::round(maxval - minval);
  const float sqrt2 = A::round(static_cast<float>(std::sqrt(2.0)));
  detail::for_each_global_index(block, [&](std::int64_t i, std::uint64_t g) {
    std::uint32_t bits = element_bits(key, g);
    if constexpr (A::kBits == 16) bits &= 0xFFFFu;
    const float u = uniform_value<A>(bits, minval, scale);
    // XLA computes erf_inv of a 16-bit type in f32 and rounds the result back.
    const float e = A::round(erf_inv_f32(u));
    A::store(out, i, A::round(sqrt2 * e));
  });
}

// minval/maxval converted to the dtype, as jax.random does before any arithmetic.
float to_dtype_value(DType dtype, double v) {
  if (dtype == DType::bf16) return kernels::bf16_to_f32(kernels::f64_to_bf16(v));
  if (dtype == DType::f16) return kernels::f16_to_f32(kernels::f64_to_f16(v));
  return static_cast<float>(v);
}

[[noreturn]] void bad_dtype(const char* what, DType dtype) {
  throw ArgumentError(std::string(what) + ": dtype must be float32, bfloat16 or float16, got " +
                      std::string(dtype_name(dtype)));
}

}  // namespace

std::int64_t checked_block_size(const Block& block) {
  const Shape& global = block.global_shape;
  for (auto d : global) {
    if (d < 0) throw ShapeError("random: negative dimension in global shape " + shape_text(global));
  }
  if (block.offset.empty() && block.shape.empty()) {
    std::int64_t n = 1;
    for (auto d : global) n *= d;
    return n;
  }
  if (block.offset.size() != global.size() || block.shape.size() != global.size()) {
    throw ShapeError("random: block offset " + shape_text(block.offset) + " and shape " + shape_text(block.shape) +
                     " must have the rank of the global shape " + shape_text(global));
  }
  std::int64_t n = 1;
  for (std::size_t d = 0; d < global.size(); ++d) {
    if (block.offset[d] < 0 || block.shape[d] < 0 || block.offset[d] + block.shape[d] > global[d]) {
      throw ShapeError("random: block at offset " + shape_text(block.offset) + " with shape " +
                       shape_text(block.shape) + " does not lie inside global shape " + shape_text(global) +
                       " (dimension " + std::to_string(d) + ")");
    }
    n *= block.shape[d];
  }
  return n;
}

void bits32(Key key, const Block& block, std::uint32_t* out) {
  detail::for_each_global_index(block, [&](std::int64_t i, std::uint64_t g) { out[i] = element_bits(key, g); });
}

void uniform(Key key, DType dtype, const Block& block, double minval, double maxval, void* out) {
  const float lo = to_dtype_value(dtype, minval);
  const float hi = to_dtype_value(dtype, maxval);
  switch (dtype) {
    case DType::f32: return uniform_impl<F32Arith>(key, block, lo, hi, out);
    case DType::bf16: return uniform_impl<BF16Arith>(key, block, lo, hi, out);
    case DType::f16: return uniform_impl<F16Arith>(key, block, lo, hi, out);
    default: bad_dtype("uniform", dtype);
  }
}

void normal(Key key, DType dtype, const Block& block, void* out) {
  switch (dtype) {
    case DType::f32: return normal_impl<F32Arith>(key, block, out);
    case DType::bf16: return normal_impl<BF16Arith>(key, block, out);
    case DType::f16: return normal_impl<F16Arith>(key, block, out);
    default: bad_dtype("normal", dtype);
  }
}

}  // namespace shard::random
