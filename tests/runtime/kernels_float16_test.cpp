// bf16/f16 conversions: exhaustive round trips, and f32 -> 16-bit rounding checked against the
// two nearest representable neighbours (round to nearest, ties to even), NaN kept NaN.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "shard/kernels/float16.h"

namespace sk = shard::kernels;

namespace {

bool is_nan_bits_f16(std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
bool is_nan_bits_bf16(std::uint16_t h) { return (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu) != 0; }

// Checks that `got` is the nearest 16-bit value to x, ties to the even pattern. `widen` maps
// patterns to f32; neighbours of `got` are its patterns +-1 (same sign, finite range).
template <typename Widen>
void expect_nearest(float x, std::uint16_t got, Widen widen) {
  const double g = widen(got);
  const double err = std::fabs(g - double(x));
  for (int delta : {-1, 1}) {
    const auto other = static_cast<std::uint16_t>(got + delta);
    const double o = widen(other);
    if (std::isnan(o) || ((other ^ got) & 0x8000u)) continue;
    const double oerr = std::fabs(o - double(x));
    ASSERT_LE(err, oerr) << "x=" << x << " got " << g << " but " << o << " is nearer";
    if (err == oerr) {
      ASSERT_EQ(got & 1u, 0u) << "tie not to even at x=" << x;
    }
  }
}

}  // namespace

TEST(KernelsFloat16, EveryPatternRoundTripsThroughF32) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    if (is_nan_bits_f16(bits)) {
      EXPECT_TRUE(std::isnan(sk::f16_to_f32(bits)));
      EXPECT_TRUE(is_nan_bits_f16(sk::f32_to_f16(sk::f16_to_f32(bits))));
    } else {
      ASSERT_EQ(sk::f32_to_f16(sk::f16_to_f32(bits)), bits) << std::hex << h;
    }
    if (is_nan_bits_bf16(bits)) {
      EXPECT_TRUE(is_nan_bits_bf16(sk::f32_to_bf16(sk::bf16_to_f32(bits))));
    } else {
      ASSERT_EQ(sk::f32_to_bf16(sk::bf16_to_f32(bits)), bits) << std::hex << h;
    }
  }
  EXPECT_EQ(sk::f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(sk::f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(sk::f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_EQ(sk::bf16_to_f32(0x3F80), 1.0f);
}

TEST(KernelsFloat16, RoundingIsToNearestEven) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any_bits;
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>(any_bits(rng));
    if (std::isnan(x)) {
      EXPECT_TRUE(is_nan_bits_bf16(sk::f32_to_bf16(x)));
      EXPECT_TRUE(is_nan_bits_f16(sk::f32_to_f16(x)));
      continue;
    }
    // bf16 shares f32's exponent range: only values from the midpoint above its largest finite
    // value (bits 0x7F7F8000) round to infinity.
    const std::uint16_t b = sk::f32_to_bf16(x);
    if ((std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu) >= 0x7F7F8000u) {
      EXPECT_TRUE(std::isinf(sk::bf16_to_f32(b))) << x;
    } else {
      expect_nearest(x, b, sk::bf16_to_f32);
    }
    // f16 range: values beyond 65520 become infinity; check the finite part by neighbours.
    const std::uint16_t h = sk::f32_to_f16(x);
    if (std::fabs(x) >= 65520.0f) {
      EXPECT_TRUE(std::isinf(sk::f16_to_f32(h))) << x;
    } else {
      expect_nearest(x, h, sk::f16_to_f32);
    }
  }
  // Values in f16's range, where the random bit patterns above rarely land.
  std::uniform_real_distribution<float> in_range(-70000.0f, 70000.0f);
  std::uniform_real_distribution<float> tiny(-1e-4f, 1e-4f);
  for (int i = 0; i < 200000; ++i) {
    for (float x : {in_range(rng), tiny(rng)}) {
      const std::uint16_t h = sk::f32_to_f16(x);
      if (std::fabs(x) >= 65520.0f) {
        EXPECT_TRUE(std::isinf(sk::f16_to_f32(h)));
      } else {
        expect_nearest(x, h, sk::f16_to_f32);
      }
    }
  }
  // Exact ties: 1 + 2^-11 lies halfway between f16 1 and 1 + 2^-10 and rounds to 1 (even).
  EXPECT_EQ(sk::f16_to_f32(sk::f32_to_f16(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(sk::f16_to_f32(sk::f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11))), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(sk::f32_to_f16(std::ldexp(1.0f, -25)), 0u);  // half the smallest subnormal: ties to 0
  EXPECT_EQ(sk::f32_to_f16(std::ldexp(1.5f, -25)), 1u);
  EXPECT_EQ(sk::f32_to_f16(65520.0f), 0x7C00u);  // ties away from 65504 (odd) to infinity
  EXPECT_EQ(sk::f32_to_bf16(std::bit_cast<float>(0x7F800001u)) & 0x7F80u, 0x7F80u);  // NaN not inf
  EXPECT_NE(sk::f32_to_bf16(std::bit_cast<float>(0x7F800001u)), 0x7F80u);
}

TEST(KernelsFloat16, DoublesRoundOnceTo16Bits) {
  // Just above a 16-bit midpoint by less than f32 can hold: rounding through f32 would land on
  // the tie and go to even; rounding once goes up.
  EXPECT_EQ(sk::bf16_to_f32(sk::f64_to_bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30))),
            1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(sk::bf16_to_f32(sk::f64_to_bf16(1.0 + std::ldexp(1.0, -8) - std::ldexp(1.0, -30))), 1.0f);
  EXPECT_EQ(sk::f16_to_f32(sk::f64_to_f16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))),
            1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(sk::f16_to_f32(sk::f64_to_f16(-(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)))),
            -(1.0f + std::ldexp(1.0f, -10)));
  EXPECT_EQ(sk::f64_to_bf16(0.1), sk::f32_to_bf16(0.1f));  // the ordinary case agrees
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(-1e5, 1e5);
  for (int i = 0; i < 100000; ++i) {
    const double v = u(rng);
    // The result is one of the two 16-bit neighbours of v and the nearer one.
    const std::uint16_t h = sk::f64_to_f16(v);
    const double got = sk::f16_to_f32(h);
    if (std::fabs(v) < 65504) {
      const double other = sk::f16_to_f32(static_cast<std::uint16_t>(got > v ? h - (v > 0 ? 1 : -1) : h + (v > 0 ? 1 : -1)));
      ASSERT_LE(std::fabs(got - v), std::fabs(other - v)) << v;
    }
  }
}
