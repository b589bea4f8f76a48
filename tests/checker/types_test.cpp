#include "frontend/check/types.h"

#include <gtest/gtest.h>

#include "frontend/check/checked_math.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/sharding_spec.h"
#include "test_meshes.h"

namespace shardc::check {
namespace {

using namespace testing;

TEST(TypePrinting, GlobalTypesUseJaxNotation) {
  EXPECT_EQ(to_string(arr(dp_tp(), {{1024, {0}}, {4096, {}}})), "float32[1024@dp,4096]");
  EXPECT_EQ(to_string(arr(dp_tp(), {{1024, {0, 1}}})), "float32[1024@(dp,tp)]");
  EXPECT_EQ(to_string(arr(dp_tp(), {{8, {1, 0}}}, DType::i32)), "int32[8@(tp,dp)]");
  EXPECT_EQ(to_string(arr(dp_tp(), {}, DType::bf16)), "bfloat16[]");
}

TEST(TypePrinting, LocalTypesListVaryingAxesInMeshOrder) {
  EXPECT_EQ(to_string(blk(dp_tp(), {256, 4096}, bit(0))), "float32[256,4096]{V:dp}");
  EXPECT_EQ(to_string(blk(dp_tp(), {1, 1}, bit(1) | bit(0), DType::i32)), "int32[1,1]{V:dp,tp}");
  EXPECT_EQ(to_string(blk(dp_tp(), {4}, 0)), "float32[4]");
}

TEST(TypePrinting, StaticKeyAndTuple) {
  EXPECT_EQ(to_string(make_static_int(4)), "static int32 = 4");
  // Beyond int32 a static int can only meet int64 arrays.
  EXPECT_EQ(to_string(make_static_int(4761785281)), "static int64 = 4761785281");
  EXPECT_EQ(to_string(make_static_float(0.5)), "static float32 = 0.5");
  EXPECT_EQ(to_string(make_tuple({make_key(nullptr), make_static_bool(true)})), "(key, static bool = true)");
}

TEST(TypeEquality, ShardingMeshAndVaryingMatter) {
  EXPECT_EQ(arr(grid(), {{8, {0}}}), arr(grid(), {{8, {0}}}));
  EXPECT_NE(arr(grid(), {{8, {0}}}), arr(grid(), {{8, {1}}}));
  EXPECT_NE(arr(grid(), {{8, {0}}}), arr(other(), {{8, {0}}}));
  EXPECT_NE(blk(grid(), {8}, bit(0)), blk(grid(), {8}, 0));
}

TEST(BlockType, DividesByTheProductOfEachDimsAxes) {
  Type b = block_type(arr(dp_tp(), {{1024, {0}}, {4096, {}}}));
  EXPECT_EQ(to_string(b), "float32[256,4096]{V:dp}");
  EXPECT_EQ(to_string(block_type(arr(dp_tp(), {{8, {1, 0}}}, DType::i32))), "int32[1]{V:dp,tp}");
}

TEST(Validate, RejectsRepeatedAxisAndIndivisibleDims) {
  auto dup = validate_global(arr(grid(), {{8, {0}}, {8, {0}}}), "type");
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->cls, ErrorClass::duplicate_type_axis);
  EXPECT_NE(dup->message.find("'X' is used twice"), std::string::npos);
  auto nd = validate_global(arr(grid(), {{6, {0}}}), "type");
  ASSERT_TRUE(nd);
  EXPECT_EQ(nd->cls, ErrorClass::not_divisible);
  EXPECT_NE(nd->message.find("not divisible by 4"), std::string::npos);
  EXPECT_FALSE(validate_global(arr(grid(), {{8, {0, 1}}}), "type"));
  std::vector<Dim> many(kMaxRank + 1, Dim{1, {}});
  auto rank = validate_global(arr(grid(), many), "type");
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->cls, ErrorClass::limit);
}

TEST(DTypePromotion, JaxLatticeWithX64Off) {
  using D = DType;
  EXPECT_EQ(promote({D::f32, false}, {D::i32, true}), (DTypeW{D::f32, false}));   // x + 1
  EXPECT_EQ(promote({D::i32, false}, {D::f32, true}), (DTypeW{D::f32, true}));    // i32 * 0.5
  EXPECT_EQ(promote({D::bf16, false}, {D::f32, true}), (DTypeW{D::bf16, false})); // bf16 * 2.0
  EXPECT_EQ(promote({D::bf16, false}, {D::f16, false}), (DTypeW{D::f32, false}));
  EXPECT_EQ(promote({D::i32, false}, {D::i64, false}), (DTypeW{D::i64, false}));
  EXPECT_EQ(promote({D::boolean, false}, {D::i32, false}), (DTypeW{D::i32, false}));
  EXPECT_EQ(promote({D::boolean, false}, {D::i32, true}), (DTypeW{D::i32, true}));
  EXPECT_EQ(promote({D::i64, false}, {D::bf16, false}), (DTypeW{D::bf16, false}));
  EXPECT_EQ(promote({D::i32, true}, {D::f32, true}), (DTypeW{D::f32, true}));
  EXPECT_EQ(promote({D::f16, false}, {D::f32, false}), (DTypeW{D::f32, false}));
}

TEST(DTypePromotion, DivisionMeanAndSum) {
  EXPECT_EQ(true_divide({DType::i32, false}, {DType::i32, false}).dtype, DType::f32);
  EXPECT_EQ(true_divide({DType::bf16, false}, {DType::i32, true}).dtype, DType::bf16);
  EXPECT_EQ(mean_dtype(DType::i64), DType::f32);
  EXPECT_EQ(sum_dtype(DType::boolean), DType::i32);
  EXPECT_EQ(sum_dtype(DType::f16), DType::f16);
  EXPECT_EQ(parse_dtype("bool"), DType::boolean);
  EXPECT_FALSE(parse_dtype("f64"));
}

TEST(CheckedMath, OverflowAndFloorSemantics) {
  EXPECT_FALSE(checked_mul(INT64_MAX, 2));
  EXPECT_EQ(checked_mul(1 << 20, 1 << 20), std::int64_t{1} << 40);
  EXPECT_FALSE(checked_add(INT64_MAX, 1));
  EXPECT_FALSE(checked_sub(INT64_MIN, 1));
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_mod(-1, 4), 3);
  EXPECT_EQ(floor_mod(7, -4), -1);
  EXPECT_FALSE(floor_div(1, 0));
  EXPECT_FALSE(floor_mod(1, 0));
  EXPECT_FALSE(floor_div(INT64_MIN, -1));
  EXPECT_EQ(floor_mod(INT64_MIN, -1), 0);
}

}  // namespace
}  // namespace shardc::check
