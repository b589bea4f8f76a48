// The generated API's boundary: arguments are checked against the declared types, and a bad
// one is a shard::ArgumentError that names the function, the argument and what was expected.
#include <gtest/gtest.h>

#include "explicit_matmul.shard.h"

namespace {

namespace gen = shardgen::explicit_matmul;

TEST(GeneratedBoundary, ExportsConstsMeshAndTypes) {
  static_assert(gen::BATCH == 64 && gen::HIDDEN == 128 && gen::OUT_DIM == 32);
  EXPECT_EQ(gen::global_mesh().size(), 8);
  EXPECT_EQ(gen::f_in0_type().to_string(), "float32[64@dp,128]");
  EXPECT_EQ(gen::f_out2_type().to_string(), "float32[64@tp,32@dp]");
}

TEST(GeneratedBoundary, AWronglyShardedArgumentIsAnArgumentError) {
  shard::Runtime rt{8};
  std::vector<float> host(64 * 128, 1.0f);
  // x replicated instead of split over dp.
  shard::ArrayType wrong(shard::DType::f32, {64, 128}, shard::Sharding::replicated(gen::global_mesh(), 2));
  auto x = shard::Array::from_host(rt, wrong, host);
  auto w = shard::Array::zeros(rt, gen::f_in1_type());
  try {
    gen::f(rt, x, w);
    FAIL() << "expected an ArgumentError";
  } catch (const shard::ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("argument 0 ('x')"), std::string::npos) << what;
    EXPECT_NE(what.find("float32[64@dp,128]"), std::string::npos) << what;
  }
}

TEST(GeneratedBoundary, SeveralResultsComeAsATupleOfTheDeclaredTypes) {
  shard::Runtime rt{8};
  std::vector<float> ones(64 * 128, 1.0f), twos(128 * 32, 2.0f);
  auto x = shard::Array::from_host(rt, gen::f_in0_type(), ones);
  auto w = shard::Array::from_host(rt, gen::f_in1_type(), twos);
  auto [y, replicated, swapped] = gen::f(rt, x, w);
  EXPECT_EQ(y.type(), gen::f_out0_type());
  EXPECT_EQ(replicated.type(), gen::f_out1_type());
  EXPECT_EQ(swapped.type(), gen::f_out2_type());
  for (float v : swapped.to_host<float>()) ASSERT_EQ(v, 256.0f);  // 128 terms of 1 * 2
}

}  // namespace
