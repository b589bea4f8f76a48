// Blocks computed for different shardings assemble to the same global array, and the
// distributions have the values their definitions give.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "shard/errors.h"
#include "shard/kernels/float16.h"
#include "shard/random.h"

namespace sr = shard::random;
using shard::DType;
using shard::Shape;

namespace {

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Draws the global array block by block, splitting each dimension into parts[d] equal blocks,
// and copies every block into its place.
template <typename T, typename Draw>
std::vector<T> assemble(const Shape& global, const Shape& parts, Draw draw) {
  std::vector<T> out(static_cast<std::size_t>(numel(global)));
  const std::size_t rank = global.size();
  Shape block(rank);
  for (std::size_t d = 0; d < rank; ++d) block[d] = global[d] / parts[d];
  const std::int64_t blocks = numel(parts);
  for (std::int64_t b = 0; b < blocks; ++b) {
    Shape coord(rank), offset(rank);
    std::int64_t rest = b;
    for (std::size_t d = rank; d-- > 0;) {
      coord[d] = rest % parts[d];
      rest /= parts[d];
      offset[d] = coord[d] * block[d];
    }
    std::vector<T> local(static_cast<std::size_t>(numel(block)));
    draw(sr::Block{global, offset, block}, local.data());
    // Scatter the block into the global array.
    for (std::int64_t i = 0; i < numel(block); ++i) {
      std::int64_t rem = i, g = 0, stride = 1;
      for (std::size_t d = rank; d-- > 0;) {
        g += (offset[d] + rem % block[d]) * stride;
        rem /= block[d];
        stride *= global[d];
      }
      out[static_cast<std::size_t>(g)] = local[static_cast<std::size_t>(i)];
    }
  }
  return out;
}

}  // namespace

TEST(RandomBlocks, EveryShardingGivesTheSameGlobalArray) {
  const Shape global{8, 12, 6};
  const sr::Key key = sr::fold_in(sr::key(3), 11);
  const std::vector<Shape> shardings{{1, 1, 1}, {2, 1, 1}, {1, 4, 1}, {2, 3, 2}, {8, 2, 3}, {4, 12, 6}};
  auto bits = [&](const sr::Block& b, std::uint32_t* out) { sr::bits32(key, b, out); };
  auto uni = [&](const sr::Block& b, float* out) { sr::uniform(key, DType::f32, b, -2.0, 3.0, out); };
  auto nor = [&](const sr::Block& b, float* out) { sr::normal(key, DType::f32, b, out); };
  auto bf = [&](const sr::Block& b, std::uint16_t* out) { sr::normal(key, DType::bf16, b, out); };
  const auto bits_ref = assemble<std::uint32_t>(global, {1, 1, 1}, bits);
  const auto uni_ref = assemble<float>(global, {1, 1, 1}, uni);
  const auto nor_ref = assemble<float>(global, {1, 1, 1}, nor);
  const auto bf_ref = assemble<std::uint16_t>(global, {1, 1, 1}, bf);
  for (const auto& parts : shardings) {
    EXPECT_EQ(assemble<std::uint32_t>(global, parts, bits), bits_ref);
    EXPECT_EQ(std::memcmp(assemble<float>(global, parts, uni).data(), uni_ref.data(), uni_ref.size() * 4), 0);
    EXPECT_EQ(std::memcmp(assemble<float>(global, parts, nor).data(), nor_ref.data(), nor_ref.size() * 4), 0);
    EXPECT_EQ(assemble<std::uint16_t>(global, parts, bf), bf_ref);
  }
}

TEST(RandomBlocks, ElementDependsOnlyOnGlobalIndex) {
  // Element (i, j) of a [4, 5] array is the threefry hash of counter i*5+j.
  const sr::Key key = sr::key(9);
  std::vector<std::uint32_t> block(2 * 3);
  sr::bits32(key, sr::Block{{4, 5}, {1, 2}, {2, 3}}, block.data());
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const std::uint64_t g = static_cast<std::uint64_t>((1 + i) * 5 + (2 + j));
      const auto h = sr::threefry2x32(key, 0, static_cast<std::uint32_t>(g));
      EXPECT_EQ(block[static_cast<std::size_t>(i * 3 + j)], h[0] ^ h[1]);
    }
  }
}

TEST(RandomBlocks, BadBlocksAreClearErrors) {
  std::vector<float> out(64);
  EXPECT_THROW(sr::uniform(sr::key(0), DType::f32, sr::Block{{4, 4}, {3, 0}, {2, 4}}, 0, 1, out.data()),
               shard::ShapeError);
  EXPECT_THROW(sr::uniform(sr::key(0), DType::f32, sr::Block{{4, 4}, {0}, {4}}, 0, 1, out.data()), shard::ShapeError);
  EXPECT_THROW(sr::uniform(sr::key(0), DType::i32, sr::Block::whole({4}), 0, 1, out.data()), shard::ArgumentError);
  // An empty dimension draws nothing and touches nothing.
  EXPECT_NO_THROW(sr::normal(sr::key(0), DType::f32, sr::Block::whole({0, 7}), nullptr));
}

TEST(RandomDistributions, UniformStaysInItsRangeAndFillsIt) {
  std::vector<float> out(20000);
  sr::uniform(sr::key(5), DType::f32, sr::Block::whole({20000}), -3.0, 5.0, out.data());
  double sum = 0;
  for (float v : out) {
    ASSERT_GE(v, -3.0f);
    ASSERT_LT(v, 5.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / 20000, 1.0, 0.1);
}

TEST(RandomDistributions, NormalIsSqrt2ErfInvOfItsUniform) {
  // normal's definition: the same bits as uniform(key, shape, minval=nextafter(-1, 0), maxval=1).
  const Shape shape{1000};
  std::vector<float> u(1000), n(1000);
  sr::uniform(sr::key(1), DType::f32, sr::Block::whole(shape), std::nextafter(-1.0f, 0.0f), 1.0, u.data());
  sr::normal(sr::key(1), DType::f32, sr::Block::whole(shape), n.data());
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    EXPECT_EQ(n[i], 1.41421354f * sr::erf_inv_f32(u[i]));
    sum += n[i];
    sum_sq += double(n[i]) * n[i];
  }
  EXPECT_NEAR(sum / 1000, 0.0, 0.15);
  EXPECT_NEAR(sum_sq / 1000, 1.0, 0.15);
}

TEST(RandomDistributions, ErfInvInvertsErf) {
  for (float x = -0.999f; x < 1.0f; x += 0.0137f) {
    const double y = sr::erf_inv_f32(x);
    EXPECT_NEAR(std::erf(y), x, 2e-6 + 1e-5 * std::fabs(x)) << "x=" << x;
  }
  EXPECT_EQ(sr::erf_inv_f32(0.0f), 0.0f);
  EXPECT_GT(sr::erf_inv_f32(1.0f), 1e38f);  // XLA: x * FLT_MAX at |x| == 1
  EXPECT_LT(sr::erf_inv_f32(-1.0f), -1e38f);
}

TEST(RandomDistributions, SixteenBitUniformUsesTheLowHalfOfTheBits) {
  // bf16 uniform: top 7 of the low 16 bits become the mantissa of a value in [1, 2).
  std::vector<std::uint32_t> bits(50);
  std::vector<std::uint16_t> bf(50), half(50);
  sr::bits32(sr::key(4), sr::Block::whole({50}), bits.data());
  sr::uniform(sr::key(4), DType::bf16, sr::Block::whole({50}), 0.0, 1.0, bf.data());
  sr::uniform(sr::key(4), DType::f16, sr::Block::whole({50}), 0.0, 1.0, half.data());
  for (std::size_t i = 0; i < 50; ++i) {
    const std::uint32_t low = bits[i] & 0xFFFFu;
    EXPECT_EQ(shard::kernels::bf16_to_f32(bf[i]), float(low >> 9) / 128.0f);
    EXPECT_EQ(shard::kernels::f16_to_f32(half[i]), float(low >> 6) / 1024.0f);
  }
}

TEST(RandomDistributions, SixteenBitBoundsAreRoundedOnceFromDouble) {
  // 1 + 2^-8 + 2^-30 is just above the midpoint of bf16's 1 and 1 + 2^-7: one rounding gives
  // 1 + 2^-7, while rounding to f32 first (1 + 2^-8, a tie) and then to bf16 would give 1.
  // With maxval == minval every value is minval itself.
  const double v = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  std::vector<std::uint16_t> out(4);
  sr::uniform(sr::key(0), DType::bf16, sr::Block::whole({4}), v, v, out.data());
  for (auto b : out) EXPECT_EQ(shard::kernels::bf16_to_f32(b), 1.0f + std::ldexp(1.0f, -7));
  const double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);  // f16: same trap
  sr::uniform(sr::key(0), DType::f16, sr::Block::whole({4}), h, h, out.data());
  for (auto b : out) EXPECT_EQ(shard::kernels::f16_to_f32(b), 1.0f + std::ldexp(1.0f, -10));
}
