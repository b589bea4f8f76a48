#include "evaluator/compare.h"

#include <gtest/gtest.h>

#include <cmath>

namespace shardc::eval {
namespace {

HostTensor f32(std::vector<double> v) { return HostTensor::from_floats(DType::f32, {static_cast<std::int64_t>(v.size())}, v); }

TEST(Compare, FloatsWithinTheProjectTolerance) {
  HostTensor ref = f32({1000, 1, 0});
  // Tolerance per element: 1e-4 |r| + 1e-5 * 1000 = 0.01 + 1e-4 |r|.
  EXPECT_TRUE(compare_to_reference(f32({1000.1, 1.01, 0.0099}), ref).ok);
  Comparison c = compare_to_reference(f32({1000, 1.02, 0}), ref);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NEAR(c.max_abs_error, 0.02, 1e-6);
  EXPECT_NE(c.problem.find("element 1"), std::string::npos) << c.problem;
  EXPECT_GT(c.normwise_error, 0);
}

// bf16 and f16 get their own, wider bounds (docs/language.md 6.7): a sharded reduction rounds
// each device's partial sum to the storage type, so one unit in the last place is normal.
TEST(Compare, HalfFloatsWithinTheirOwnTolerance) {
  auto of = [](DType t, double v) { return HostTensor::from_floats(t, {1}, {v}); };
  // bf16: 2^-6 |r| + 2^-8 max|r| = 9.5625 * (1/64 + 1/256) = 0.187; its ulp at 9.5 is 0.0625.
  EXPECT_TRUE(compare_to_reference(of(DType::bf16, -9.625), of(DType::bf16, -9.5625)).ok);
  EXPECT_FALSE(compare_to_reference(of(DType::bf16, -9.3125), of(DType::bf16, -9.5625)).ok);
  // f16: 2^-9 |r| + 2^-11 max|r| = 1182 * (1/512 + 1/2048) = 2.89; its ulp at 1182 is 1.
  EXPECT_TRUE(compare_to_reference(of(DType::f16, -1181), of(DType::f16, -1182)).ok);
  EXPECT_TRUE(compare_to_reference(of(DType::f16, -1184), of(DType::f16, -1182)).ok);
  EXPECT_FALSE(compare_to_reference(of(DType::f16, -1185), of(DType::f16, -1182)).ok);
  // f32 keeps its own bound: the same one-unit difference is a mismatch there.
  EXPECT_FALSE(compare_to_reference(of(DType::f32, -1181), of(DType::f32, -1182)).ok);
}

// `shardc run --atol`: an absolute error allowed on top of the rule, for results near zero by
// design, whose max|r| leaves almost no tolerance. Integers stay exact.
TEST(Compare, AnAbsoluteToleranceWidensFloatBoundsOnly) {
  HostTensor ref = f32({1e-7, -2e-7, 0});
  HostTensor got = f32({0, 0, 1e-7});
  Comparison strict = compare_to_reference(got, ref);
  EXPECT_FALSE(strict.ok);
  EXPECT_EQ(strict.mismatches, 3);
  EXPECT_NEAR(strict.scale, 2e-7, 1e-12);
  EXPECT_TRUE(compare_to_reference(got, ref, 2e-7).ok);
  Comparison loose = compare_to_reference(got, ref, 1.2e-7);  // element 1 is 2e-7 away
  EXPECT_FALSE(loose.ok);
  EXPECT_EQ(loose.mismatches, 1);
  EXPECT_NE(loose.problem.find("element 1"), std::string::npos) << loose.problem;
  HostTensor a = HostTensor::from_ints(DType::i32, {1}, {1});
  EXPECT_FALSE(compare_to_reference(a, HostTensor::from_ints(DType::i32, {1}, {2}), 10).ok);
}

TEST(Compare, IntegersExactlyAndShapesMustAgree) {
  HostTensor a = HostTensor::from_ints(DType::i32, {2}, {1, 2});
  HostTensor b = HostTensor::from_ints(DType::i32, {2}, {1, 3});
  EXPECT_TRUE(compare_to_reference(a, a).ok);
  EXPECT_FALSE(compare_to_reference(a, b).ok);
  EXPECT_FALSE(compare_to_reference(a, HostTensor::from_ints(DType::i32, {1, 2}, {1, 2})).ok);
  EXPECT_FALSE(compare_to_reference(a, HostTensor::from_ints(DType::i64, {2}, {1, 2})).ok);
  // int64 values beyond 2^53 are named exactly (as %g they looked equal).
  Comparison big = compare_to_reference(HostTensor::from_ints(DType::i64, {1}, {9007199254740993}),
                                        HostTensor::from_ints(DType::i64, {1}, {9007199254740992}));
  EXPECT_EQ(big.problem, "1 of 1 elements differ; first: element 0 is 9007199254740993, the reference has 9007199254740992");
}

TEST(Compare, NaNMatchesOnlyNaN) {
  EXPECT_TRUE(compare_to_reference(f32({std::nan("")}), f32({std::nan("")})).ok);
  EXPECT_FALSE(compare_to_reference(f32({1}), f32({std::nan("")})).ok);
}

TEST(Compare, DigestsAreStableAndDiscriminating) {
  HostTensor a = HostTensor::from_ints(DType::i32, {2}, {1, 2});
  EXPECT_EQ(digest(a), digest(HostTensor::from_ints(DType::i32, {2}, {1, 2})));
  EXPECT_NE(digest(a), digest(HostTensor::from_ints(DType::i32, {1, 2}, {1, 2})));
  EXPECT_NE(digest(a), digest(HostTensor::from_ints(DType::i64, {2}, {1, 2})));
  EXPECT_EQ(digest(a).size(), 16u);
}

}  // namespace
}  // namespace shardc::eval
