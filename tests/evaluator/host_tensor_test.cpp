#include "evaluator/host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "evaluator/eval_error.h"

namespace shardc::eval {
namespace {

TEST(HostTensor, StoresRoundTo16BitPrecision) {
  HostTensor t = HostTensor::zeros(DType::bf16, {2});
  t.store_float(0, 1.0 + 1.0 / 256);  // halfway between two bf16 values: ties to even
  t.store_float(1, 1.0 + 3.0 / 256);
  EXPECT_EQ(t.floats[0], 1.0f);
  EXPECT_EQ(t.floats[1], 1.0f + 4.0f / 256);
  HostTensor h = HostTensor::zeros(DType::f16, {1});
  h.store_float(0, 65520.0);  // rounds past the largest half
  EXPECT_TRUE(std::isinf(h.floats[0]));
}

TEST(HostTensor, IntegersWrapModuloTheirWidth) {
  HostTensor t = HostTensor::zeros(DType::i32, {3});
  t.store_int(0, 2147483648LL);
  t.store_int(1, -2147483649LL);
  t.store_int(2, 1LL << 40);
  EXPECT_EQ(t.ints[0], -2147483648LL);
  EXPECT_EQ(t.ints[1], 2147483647LL);
  EXPECT_EQ(t.ints[2], 0);
  HostTensor b = HostTensor::zeros(DType::boolean, {1});
  b.store_int(0, 7);
  EXPECT_EQ(b.ints[0], 1);
}

TEST(HostTensor, FloatToIntSaturatesAndTruncates) {
  HostTensor t = HostTensor::zeros(DType::i32, {4});
  t.store_float(0, -2.7);
  t.store_float(1, 1e12);
  t.store_float(2, -1e12);
  t.store_float(3, std::nan(""));
  EXPECT_EQ(t.ints[0], -2);
  EXPECT_EQ(t.ints[1], 2147483647);
  EXPECT_EQ(t.ints[2], -2147483648LL);
  EXPECT_EQ(t.ints[3], 0);
  HostTensor b = HostTensor::zeros(DType::boolean, {1});
  b.store_float(0, std::nan(""));
  EXPECT_EQ(b.ints[0], 1);  // astype(bool) is x != 0
}

TEST(HostTensor, BytesRoundTripInTheRuntimeLayout) {
  for (DType dt : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean}) {
    HostTensor t = HostTensor::from_floats(dt, {2, 3}, {0, 1.5, -2, 3.25, 100, -0.125});
    auto bytes = t.to_bytes();
    ASSERT_EQ(bytes.size(), 6 * shard::dtype_size(dt));
    EXPECT_TRUE(identical(HostTensor::from_bytes(dt, {2, 3}, bytes.data()), t)) << shard::dtype_name(dt);
  }
  HostTensor b = HostTensor::from_floats(DType::bf16, {1}, {1.0});
  auto bytes = b.to_bytes();
  std::uint16_t bits;
  std::memcpy(&bits, bytes.data(), 2);
  EXPECT_EQ(bits, 0x3F80);
}

TEST(HostTensor, BadShapesAreErrors) {
  EXPECT_THROW(HostTensor::zeros(DType::f32, {2, -1}), EvalError);
  EXPECT_THROW(HostTensor::from_ints(DType::i32, {3}, {1, 2}), EvalError);
  EXPECT_EQ(shape_text({}), "()");
  EXPECT_EQ(shape_text({4}), "(4,)");
  EXPECT_EQ(shape_text({2, 3}), "(2, 3)");
}

}  // namespace
}  // namespace shardc::eval
