// The generated API's boundary: arguments are checked against the declared types, and a bad
// one is a shard::ArgumentError that names the function, the argument and what was expected;
// what only values can break (ragged_all_to_all's sizes) fails the call with the .shard line.
#include <gtest/gtest.h>

#include <cstdint>

#include "explicit_matmul.shard.h"
#include "ragged_exchange.shard.h"

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

// A Runtime with fewer devices than the function's mesh: the error names the function, as an
// argument's does (the runtime's own said only "mesh ... needs devices up to 7").
TEST(GeneratedBoundary, ARuntimeTooSmallForTheMeshIsAnArgumentErrorOfTheFunction) {
  shard::Runtime big{8}, small{4};
  auto x = shard::Array::zeros(big, gen::f_in0_type());
  auto w = shard::Array::zeros(big, gen::f_in1_type());
  try {
    gen::f(small, x, w);
    FAIL() << "expected an ArgumentError";
  } catch (const shard::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "f: its mesh [dp: 4, tp: 2] needs devices up to 7 but the runtime has 4 devices");
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

TEST(GeneratedBoundary, ARunTimeSizeErrorNamesTheShardLine) {
  namespace ragged = shardgen::ragged_exchange;
  shard::Runtime rt{2};
  std::vector<float> rows_0_to_11(12);
  for (int i = 0; i < 12; ++i) rows_0_to_11[i] = static_cast<float>(i);
  auto op = shard::Array::from_host(rt, ragged::exchange_rows_in0_type(), rows_0_to_11);
  auto out = shard::Array::zeros(rt, ragged::exchange_rows_in1_type());
  auto rows = [&](std::int32_t n) {
    return shard::Array::from_host(rt, ragged::exchange_rows_in2_type(), std::vector<std::int32_t>{n});
  };

  // One row each way fits: device 0's row 0 (0 1 2) lands in device 1's row 1, and back.
  std::vector<float> swapped = ragged::exchange_rows(rt, op, out, rows(1)).to_host<float>();
  EXPECT_EQ(swapped, (std::vector<float>{0, 0, 0, 6, 7, 8, 0, 0, 0, 0, 1, 2}));

  // Three rows do not fit in a device's two: the error points at the ragged_all_to_all.
  try {
    ragged::exchange_rows(rt, op, out, rows(3));
    FAIL() << "expected a DeviceError";
  } catch (const shard::DeviceError& e) {
    EXPECT_EQ(e.message().rfind("ragged_exchange.shard:17:10: ragged_all_to_all: input rows [0, 3)", 0), 0u)
        << e.message();
  }
}

}  // namespace
