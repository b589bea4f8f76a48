// bfloat16 and IEEE float16 as storage types: bit patterns in std::uint16_t, converted to and
// from f32 around every computation. Header-only so that the random library and the reference
// evaluator get exactly the same roundings without linking the kernels.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace shard::kernels {

inline float bf16_to_f32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// Round to nearest, ties to even. A NaN stays a NaN (quiet, sign kept): plain rounding could
// carry a NaN's low payload bits into the exponent and turn it into an infinity.
inline std::uint16_t f32_to_bf16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  const std::uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<std::uint16_t>((bits + 0x7FFFu + lsb) >> 16);
}

inline float f16_to_f32(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0x1F) {  // infinity or NaN: keep the payload, widened
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  }
  if (exponent != 0) {
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal half: normalise it; every half subnormal is a normal f32.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  mantissa &= 0x3FFu;
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (mantissa << 13));
}

// Round to nearest, ties to even, with overflow to infinity and gradual underflow to half
// subnormals. NaN stays a quiet NaN with its sign.
inline std::uint16_t f32_to_f16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x1FFu));
  if (magnitude >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (magnitude >= 0x38800000u) {                                                  // normal half
    const std::uint32_t lsb = (magnitude >> 13) & 1u;
    const std::uint32_t rounded = magnitude + 0xFFFu + lsb;
    return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  if (magnitude < 0x33000000u) return sign;  // below half the smallest subnormal: zero
  // Subnormal half: shift the full significand right, rounding to nearest even on the bits lost.
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
  const std::uint32_t shift = 126u - exponent;  // 14..24
  const std::uint32_t kept = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  const std::uint32_t rounded = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
  return static_cast<std::uint16_t>(sign | rounded);
}

// A double rounded to f32 with round-to-odd: inexact results get an odd last bit, so rounding
// that f32 again to bf16/f16 (which keep far fewer bits) equals rounding the double once, as
// numpy does when it converts a Python float straight to bfloat16/float16.
inline float f64_to_f32_round_to_odd(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) == v || !std::isfinite(f)) return f;
  if ((std::bit_cast<std::uint32_t>(f) & 1u) == 0) {
    f = std::nextafter(f, v > static_cast<double>(f) ? std::numeric_limits<float>::infinity()
                                                     : -std::numeric_limits<float>::infinity());
  }
  return f;
}

inline std::uint16_t f64_to_bf16(double v) { return f32_to_bf16(f64_to_f32_round_to_odd(v)); }
inline std::uint16_t f64_to_f16(double v) { return f32_to_f16(f64_to_f32_round_to_odd(v)); }

}  // namespace shard::kernels
