// The known answers of JAX's own tests and docs (design/JAX-RULES.md, "Random numbers").
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shard/random.h"

namespace sr = shard::random;

namespace {

std::vector<float> uniform_f32(sr::Key key, shard::Shape shape, double lo = 0.0, double hi = 1.0) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> out(static_cast<std::size_t>(n));
  sr::uniform(key, shard::DType::f32, sr::Block::whole(shape), lo, hi, out.data());
  return out;
}

}  // namespace

TEST(RandomKnownAnswers, Threefry2x32Vectors) {
  // tests/random_test.py::testThreefry2x32
  EXPECT_EQ(sr::threefry2x32({0, 0}, 0, 0), (std::array<std::uint32_t, 2>{0x6B200159u, 0x99BA4EFEu}));
  EXPECT_EQ(sr::threefry2x32({0xFFFFFFFFu, 0xFFFFFFFFu}, 0xFFFFFFFFu, 0xFFFFFFFFu),
            (std::array<std::uint32_t, 2>{0x1CB996FCu, 0xBB002BE7u}));
  EXPECT_EQ(sr::threefry2x32({0x13198A2Eu, 0x03707344u}, 0x243F6A88u, 0x85A308D3u),
            (std::array<std::uint32_t, 2>{0xC4923A9Cu, 0x483DF7A0u}));
}

TEST(RandomKnownAnswers, KeyOfSeed) {
  EXPECT_EQ(sr::key(0), (sr::Key{0, 0}));
  EXPECT_EQ(sr::key(42), (sr::Key{0, 42}));
  EXPECT_EQ(sr::key(-1), (sr::Key{0, 0xFFFFFFFFu}));  // int32 seed, 64-bit mode off
  EXPECT_EQ(sr::key(std::int64_t{1} << 33 | 5), (sr::Key{2, 5}));
}

TEST(RandomKnownAnswers, SplitKeyZero) {
  const auto keys = sr::split(sr::key(0), 2);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], (sr::Key{1797259609u, 2579123966u}));
  EXPECT_EQ(keys[1], (sr::Key{928981903u, 3453687069u}));
}

TEST(RandomKnownAnswers, UniformScalarsAndVector) {
  EXPECT_NEAR(uniform_f32(sr::key(0), {})[0], 0.947667f, 1e-6);
  EXPECT_NEAR(uniform_f32(sr::split(sr::key(0), 2)[1], {})[0], 0.00729382f, 1e-8);
  const auto three = uniform_f32(sr::key(0), {3});
  ASSERT_EQ(three.size(), 3u);
  EXPECT_FLOAT_EQ(three[0], 0.947667f);
  EXPECT_FLOAT_EQ(three[1], 0.9785799f);
  EXPECT_FLOAT_EQ(three[2], 0.33229148f);
}

TEST(RandomKnownAnswers, SplitIsFoldInInPartitionableMode) {
  const auto keys = sr::split(sr::key(72), 3);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(keys[i], sr::fold_in(sr::key(72), i)) << "i=" << i;
  // split_at does not depend on how many keys are split off.
  EXPECT_EQ(sr::split(sr::key(72), 7)[2], keys[2]);
}

TEST(RandomKnownAnswers, NormalMatchesJaxBitForBit) {
  // jax.random.normal(jax.random.key(0), (2, 3)) as a public test suite asserts it with
  // np.testing.assert_array_equal (float32 values printed through float64: exact).
  const double exact[6] = {1.622642159461975,    2.0252647399902344,  -0.4335944354534149,
                           -0.07861734926700592, 0.17609089612960815, -0.9720892310142517};
  std::vector<float> two_by_three(6);
  sr::normal(sr::key(0), shard::DType::f32, sr::Block::whole({2, 3}), two_by_three.data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(two_by_three[i], static_cast<float>(exact[i])) << i;
  // The first 24 elements of normal(key(0), ...) as JAX prints arrays, e.g.
  // normal(key(0), (3,)) -> [ 1.6226422  2.0252647 -0.43359444]. numpy prints the shortest
  // string that parses back to the same float32, cut at 8 fractional digits: so each value
  // either parses back exactly or lies within half a unit of its 8th fractional digit.
  const double printed[24] = {1.6226422,   2.0252647,  -0.43359444, -0.07861735, 0.1760909,  -0.97208923,
                              -0.49529874, 0.4943786,  0.6643493,   -0.9501635,  2.1795304,  -1.9551506,
                              0.35857072,  0.15779513, 1.2770847,   1.5104648,   0.970656,   0.59960806,
                              0.0247007,   -1.9164772, -1.8593491,  1.728144,    0.04719035, 0.814128};
  std::vector<float> first(24);
  sr::normal(sr::key(0), shard::DType::f32, sr::Block::whole({4, 6}), first.data());
  for (int i = 0; i < 24; ++i) {
    const bool parses_back = first[i] == static_cast<float>(printed[i]);
    const bool rounded_at_8_digits = std::fabs(double(first[i]) - printed[i]) <= 5.000001e-9;
    EXPECT_TRUE(parses_back || rounded_at_8_digits) << i << ": " << first[i] << " printed " << printed[i];
  }
}
