// Unit tests of the evaluator's local ops: elementwise, reductions, einsum, shape ops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "evaluator/eval_error.h"
#include "evaluator/ops_einsum.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_reduce.h"
#include "evaluator/ops_shape.h"

namespace shardc::eval {
namespace {

HostTensor ints(Shape shape, std::vector<std::int64_t> v, DType dt = DType::i32) {
  return HostTensor::from_ints(dt, std::move(shape), v);
}
HostTensor floats(Shape shape, std::vector<double> v, DType dt = DType::f32) {
  return HostTensor::from_floats(dt, std::move(shape), v);
}

TEST(Elementwise, BroadcastingFollowsNumPy) {
  HostTensor col = ints({2, 1}, {10, 20});
  HostTensor row = ints({3}, {1, 2, 3});
  HostTensor s = binary("add", col, row, DType::i32);
  EXPECT_EQ(s.shape, (Shape{2, 3}));
  EXPECT_EQ(s.ints, (std::vector<std::int64_t>{11, 12, 13, 21, 22, 23}));
  EXPECT_THROW(binary("add", ints({2}, {1, 2}), ints({3}, {1, 2, 3}), DType::i32), EvalError);
}

TEST(Elementwise, IntegerArithmeticWraps) {
  HostTensor big = ints({2}, {2147483647, -2147483648LL});
  HostTensor one = ints({}, {1});
  EXPECT_EQ(binary("add", big, one, DType::i32).ints, (std::vector<std::int64_t>{-2147483648LL, -2147483647}));
  EXPECT_EQ(binary("mul", big, ints({}, {2}), DType::i32).ints, (std::vector<std::int64_t>{-2, 0}));
  EXPECT_EQ(unary("neg", ints({1}, {-2147483648LL}), DType::i32).ints[0], -2147483648LL);
  HostTensor i64 = ints({1}, {std::numeric_limits<std::int64_t>::max()}, DType::i64);
  EXPECT_EQ(binary("add", i64, ints({}, {1}, DType::i64), DType::i64).ints[0], std::numeric_limits<std::int64_t>::min());
}

TEST(Elementwise, FloorDivisionAndModuloFloor) {
  HostTensor a = ints({6}, {-7, 7, -7, 7, 0, 5});
  HostTensor b = ints({6}, {2, -2, -2, 2, 0, 0});
  EXPECT_EQ(binary("floor_div", a, b, DType::i32).ints, (std::vector<std::int64_t>{-4, -4, 3, 3, -1, -2}));
  EXPECT_EQ(binary("rem", a, b, DType::i32).ints, (std::vector<std::int64_t>{1, -1, -1, 1, 0, 0}));
  EXPECT_EQ(binary("rem", ints({1}, {-1}), ints({1}, {4}), DType::i32).ints[0], 3);
  EXPECT_EQ(binary("floor_div", ints({1}, {-2147483648LL}), ints({1}, {-1}), DType::i32).ints[0], -2147483648LL);
  HostTensor f = binary("rem", floats({2}, {-1.5, 5.5}), floats({2}, {4, -2}), DType::f32);
  EXPECT_EQ(f.floats, (std::vector<float>{2.5f, -0.5f}));
  HostTensor q = binary("floor_div", floats({2}, {-7, 7.5}), floats({2}, {2, 2}), DType::f32);
  EXPECT_EQ(q.floats, (std::vector<float>{-4.0f, 3.0f}));
  HostTensor z = binary("floor_div", floats({3}, {1, -1, 0}), floats({3}, {0, 0, 0}), DType::f32);
  EXPECT_EQ(z.floats[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(z.floats[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(z.floats[2]));
  EXPECT_TRUE(std::isnan(binary("rem", floats({1}, {1}), floats({1}, {0}), DType::f32).floats[0]));
}

TEST(Elementwise, TrueDivisionOfIntegersComputesInTheFloatResult) {
  HostTensor r = binary("div", ints({2}, {1, 7}), ints({2}, {2, 2}), DType::f32);
  EXPECT_EQ(r.dtype, DType::f32);
  EXPECT_EQ(r.floats, (std::vector<float>{0.5f, 3.5f}));
}

TEST(Elementwise, Bf16RoundsAfterEveryOp) {
  HostTensor a = floats({1}, {1.0}, DType::bf16);
  HostTensor eps = floats({1}, {1.0 / 512}, DType::bf16);  // below half an ulp of 1 in bf16
  HostTensor s = binary("add", a, eps, DType::bf16);
  EXPECT_EQ(s.floats[0], 1.0f);
  HostTensor s32 = binary("add", a, eps, DType::f32);  // promoted: computed in f32
  EXPECT_EQ(s32.floats[0], 1.0f + 1.0f / 512);
}

TEST(Elementwise, ComparisonsPromoteThenGiveBool) {
  HostTensor r = binary("lt", ints({3}, {1, 2, 3}), floats({}, {2.5}), DType::f32);
  EXPECT_EQ(r.dtype, DType::boolean);
  EXPECT_EQ(r.ints, (std::vector<std::int64_t>{1, 1, 0}));
  HostTensor w = select(r, ints({3}, {1, 2, 3}), ints({}, {0}), DType::i32);
  EXPECT_EQ(w.ints, (std::vector<std::int64_t>{1, 2, 0}));
}

TEST(Elementwise, MathFunctions) {
  HostTensor x = floats({3}, {-1, 0, 2});
  EXPECT_EQ(unary("relu", x, DType::f32).floats, (std::vector<float>{0, 0, 2}));
  EXPECT_EQ(unary("square", x, DType::f32).floats, (std::vector<float>{1, 0, 4}));
  EXPECT_FLOAT_EQ(unary("sigmoid", x, DType::f32).floats[1], 0.5f);
  EXPECT_NEAR(unary("gelu", x, DType::f32).floats[2], 1.9545977f, 1e-6);
  EXPECT_EQ(unary("round", floats({3}, {0.5, 1.5, -2.5}), DType::f32).floats, (std::vector<float>{0, 2, -2}));
  HostTensor e = unary("exp", ints({1}, {0}), DType::f32);  // float math of ints gives f32
  EXPECT_EQ(e.dtype, DType::f32);
  EXPECT_EQ(e.floats[0], 1.0f);
  EXPECT_TRUE(std::isnan(binary("maximum", floats({1}, {std::nan("")}), floats({1}, {1}), DType::f32).floats[0]));
}

TEST(Elementwise, ConvertTruncatesSaturatesAndRounds) {
  HostTensor x = floats({4}, {2.9, -2.9, 3e9, 0.0});
  EXPECT_EQ(convert(x, DType::i32).ints, (std::vector<std::int64_t>{2, -2, 2147483647, 0}));
  EXPECT_EQ(convert(x, DType::boolean).ints, (std::vector<std::int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(convert(ints({1}, {257}), DType::bf16).floats[0], 256.0f);
}

TEST(Reduce, SumsMeansAndExtremes) {
  HostTensor x = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(reduce("sum", x, {}, false, DType::i32).ints, (std::vector<std::int64_t>{21}));
  EXPECT_EQ(reduce("sum", x, {0}, false, DType::i32).ints, (std::vector<std::int64_t>{5, 7, 9}));
  HostTensor m = reduce("mean", x, {1}, true, DType::f32);
  EXPECT_EQ(m.shape, (Shape{2, 1}));
  EXPECT_EQ(m.floats, (std::vector<float>{2, 5}));
  EXPECT_EQ(reduce("max", x, {0}, false, DType::i32).ints, (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_EQ(reduce("prod", x, {1}, false, DType::i32).ints, (std::vector<std::int64_t>{6, 120}));
  HostTensor b = ints({3}, {1, 0, 1}, DType::boolean);
  EXPECT_EQ(reduce("sum", b, {}, false, DType::i32).ints[0], 2);  // bool counts in i32
  HostTensor wrap = ints({2}, {2147483647, 1});
  EXPECT_EQ(reduce("sum", wrap, {}, false, DType::i32).ints[0], -2147483648LL);
}

TEST(Reduce, ArgmaxTakesTheFirstAndNaNWins) {
  HostTensor x = floats({2, 3}, {1, 3, 3, 2, std::nan(""), 5});
  EXPECT_EQ(reduce("argmax", x, {1}, false, DType::i32).ints, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(reduce("argmin", ints({4}, {3, 1, 1, 2}), {0}, false, DType::i32).ints[0], 1);
}

TEST(Reduce, SoftmaxAndTopK) {
  HostTensor s = softmax(floats({2, 2}, {0, 0, 0, std::log(3.0)}), 1, DType::f32);
  EXPECT_FLOAT_EQ(s.floats[0], 0.5f);
  EXPECT_FLOAT_EQ(s.floats[3], 0.75f);
  auto [v, i] = top_k(ints({2, 4}, {1, 5, 5, 2, 9, 8, 7, 6}), 2);
  EXPECT_EQ(v.ints, (std::vector<std::int64_t>{5, 5, 9, 8}));
  EXPECT_EQ(i.ints, (std::vector<std::int64_t>{1, 2, 0, 1}));
  EXPECT_EQ(i.dtype, DType::i32);
  // +0 above -0, as XLA's TopK orders floats; argmax takes them as equal (first one wins).
  HostTensor signed_zeros = floats({3}, {-0.0f, 0.0f, -0.0f});
  EXPECT_EQ(top_k(signed_zeros, 3).second.ints, (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(reduce("argmax", signed_zeros, {0}, false, DType::i32).ints, (std::vector<std::int64_t>{0}));
  // A NaN with its sign bit set is below -inf in that order, one without it above +inf.
  const float inf = std::numeric_limits<float>::infinity();
  HostTensor nans = floats({4}, {-inf, std::copysign(std::nanf(""), -1.0f), 1.0f, std::nanf("")});
  EXPECT_EQ(top_k(nans, 4).second.ints, (std::vector<std::int64_t>{3, 2, 0, 1}));
}

TEST(Einsum, MatmulBatchAndSummedLetters) {
  HostTensor a = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor b = ints({3, 2}, {1, 0, 0, 1, 1, 1});
  EXPECT_EQ(einsum("mk,kn->mn", {a, b}, DType::i32).ints, (std::vector<std::int64_t>{4, 5, 10, 11}));
  EXPECT_EQ(einsum("ij->j", {a}, DType::i32).ints, (std::vector<std::int64_t>{5, 7, 9}));
  EXPECT_EQ(einsum("ij->ji", {a}, DType::i32).ints, (std::vector<std::int64_t>{1, 4, 2, 5, 3, 6}));
  HostTensor x = ints({2, 1, 2}, {1, 2, 3, 4});
  HostTensor y = ints({2, 2, 1}, {1, 1, 2, 2});
  EXPECT_EQ(einsum("bij,bjk->bik", {x, y}, DType::i32).ints, (std::vector<std::int64_t>{3, 14}));
  HostTensor f = einsum("k,k->", {floats({2}, {0.5, 0.25}), ints({2}, {2, 4})}, DType::f32);
  EXPECT_EQ(f.shape, Shape{});
  EXPECT_EQ(f.floats[0], 2.0f);
  EXPECT_THROW(einsum("mk,kn->mn", {a, a}, DType::i32), EvalError);
}

// Two operands where a letter is in one operand only and not in the output: that operand is
// summed over it first, and only over it (the other operand's letters must not scale the sum).
// Expected values by hand.
TEST(Einsum, LettersSummedInOneOperandOnly) {
  HostTensor x = ints({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});  // summed over a: {4, 6, 8, 10}
  HostTensor y = ints({4, 2}, {1, 0, 0, 1, 1, 1, 2, 0});
  EXPECT_EQ(einsum("ac,cd->d", {x, y}, DType::i32).ints, (std::vector<std::int64_t>{32, 14}));
  // In the second operand: y2 summed over c is {3, 7, 11}.
  HostTensor x2 = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y2 = ints({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(einsum("ab,bc->a", {x2, y2}, DType::i32).ints, (std::vector<std::int64_t>{50, 113}));
  // With a batch letter b; u is [b][a][c] = 1..8, v is [b][c][d].
  HostTensor u = ints({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});  // summed over a: {4, 6}, {12, 14}
  HostTensor v = ints({2, 2, 2}, {1, 0, 0, 1, 1, 1, 2, 0});
  EXPECT_EQ(einsum("bac,bcd->bd", {u, v}, DType::i32).ints, (std::vector<std::int64_t>{4, 6, 40, 12}));
  // With a batch letter, summed in the second operand: w = 1..8 summed over d is {3, 7}, {11, 15}.
  HostTensor w = ints({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(einsum("bac,bcd->ba", {u, w}, DType::i32).ints, (std::vector<std::int64_t>{17, 37, 145, 197}));
  // Every letter summed in one operand only: sum(x2) * sum(y2) = 21 * 21.
  EXPECT_EQ(einsum("ab,cd->", {x2, y2}, DType::i32).ints, (std::vector<std::int64_t>{441}));
  // The finding's program in floats: every element is sum(arange(8)) = 28.
  HostTensor f = einsum("ac,cd->d", {floats({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}), floats({4, 5}, std::vector<double>(20, 1.0))},
                        DType::f32);
  EXPECT_EQ(f.floats, (std::vector<float>(5, 28.0f)));
}

TEST(Einsum, BigProductsSplitOverThreadsGiveTheSameResult) {
  // 256x512 @ 512x300 is above the threshold where column tiles go to threads (2 tiles of 256
  // and 44 columns); integers make the check exact.
  const std::int64_t m = 256, k = 512, n = 300;
  std::vector<std::int64_t> a(m * k), b(k * n);
  for (std::int64_t i = 0; i < m * k; ++i) a[i] = (i * 7) % 13 - 6;
  for (std::int64_t i = 0; i < k * n; ++i) b[i] = (i * 5) % 11 - 5;
  HostTensor c = einsum("mk,kn->mn", {ints({m, k}, a), ints({k, n}, b)}, DType::i32);
  ASSERT_EQ(c.shape, (Shape{m, n}));
  for (std::int64_t i = 0; i < m; i += 37)
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t want = 0;
      for (std::int64_t q = 0; q < k; ++q) want += a[i * k + q] * b[q * n + j];
      ASSERT_EQ(c.ints[i * n + j], want) << i << "," << j;
    }
}

// A step near i64 max: ceil(8 / step) = 1 row, without overflowing on the way.
TEST(Shape, SliceWithAStepNearI64MaxHasOneRow) {
  HostTensor x = ints({8, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  HostTensor s = slice(x, {0, 0}, {8, 2}, {huge, 1});
  EXPECT_EQ(s.shape, (Shape{1, 2}));
  EXPECT_EQ(s.ints, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(slice(x, {3, 0}, {8, 2}, {huge - 1, 1}).ints, (std::vector<std::int64_t>{6, 7}));
  EXPECT_EQ(slice(x, {8, 0}, {8, 2}, {huge, 1}).shape, (Shape{0, 2}));
}

TEST(Shape, ReshapeTransposeSlices) {
  HostTensor x = ints({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(transpose(x, {1, 0}).ints, (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(reshape(x, {4}), EvalError);
  HostTensor s = slice(x, {0, 1}, {2, 3}, {1, 1});
  EXPECT_EQ(s.shape, (Shape{2, 2}));
  EXPECT_EQ(s.ints, (std::vector<std::int64_t>{1, 2, 4, 5}));
  HostTensor row = slice(x, {1, 0}, {2, 3}, {1, 2}, {0});
  EXPECT_EQ(row.shape, (Shape{2}));
  EXPECT_EQ(row.ints, (std::vector<std::int64_t>{3, 5}));
  EXPECT_THROW(slice(x, {0, 0}, {3, 3}, {1, 1}), EvalError);
}

TEST(Shape, DynamicStartsClampAsInJax) {
  // A negative start counts from the end (JAX's allow_negative_indices), then starts clamp.
  HostTensor x = ints({5}, {0, 1, 2, 3, 4});
  EXPECT_EQ(dynamic_slice(x, {4}, {2}).ints, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(dynamic_slice(x, {-3}, {2}).ints, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(dynamic_slice(x, {-1}, {2}).ints, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(dynamic_slice(x, {-9}, {2}).ints, (std::vector<std::int64_t>{0, 1}));
  HostTensor u = dynamic_update_slice(x, ints({2}, {9, 9}), {10});
  EXPECT_EQ(u.ints, (std::vector<std::int64_t>{0, 1, 2, 9, 9}));
  EXPECT_EQ(dynamic_update_slice(x, ints({2}, {9, 9}), {-4}).ints, (std::vector<std::int64_t>{0, 9, 9, 3, 4}));
  HostTensor uf = dynamic_update_slice(floats({2}, {0, 0}), ints({1}, {3}), {1});
  EXPECT_EQ(uf.floats, (std::vector<float>{0, 3}));
}

TEST(Shape, ConcatStackSplitRoll) {
  HostTensor a = ints({1, 2}, {1, 2});
  HostTensor b = ints({1, 2}, {3, 4});
  EXPECT_EQ(concat({a, b}, 1, DType::i32).ints, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(concat({a, b}, 0, DType::i32).shape, (Shape{2, 2}));
  HostTensor st = stack({a, b}, 2, DType::f32);
  EXPECT_EQ(st.shape, (Shape{1, 2, 2}));
  EXPECT_EQ(st.floats, (std::vector<float>{1, 3, 2, 4}));
  auto parts = split(ints({4}, {0, 1, 2, 3}), 2, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].ints, (std::vector<std::int64_t>{2, 3}));
  EXPECT_THROW(split(ints({3}, {0, 1, 2}), 2, 0), EvalError);
  EXPECT_EQ(roll(ints({5}, {0, 1, 2, 3, 4}), 2, 0).ints, (std::vector<std::int64_t>{3, 4, 0, 1, 2}));
  EXPECT_EQ(roll(ints({5}, {0, 1, 2, 3, 4}), -6, 0).ints, (std::vector<std::int64_t>{1, 2, 3, 4, 0}));
}

TEST(Shape, Constructors) {
  EXPECT_EQ(arange(0, 5, 2, DType::i32).ints, (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(arange(1, 0, 1, DType::i32).size(), 0);
  EXPECT_EQ(arange(0, 1, 0.25, DType::f32).floats, (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  // An integer arange with fractional bounds follows NumPy: first two elements truncated, then
  // their difference as the step (it was start + i * step truncated: -3, -2, -2, -1, ...).
  EXPECT_EQ(arange(-3, 3, 0.5, DType::i32).ints, (std::vector<std::int64_t>{-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(arange(0, 2, 0.5, DType::i64).ints, (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(full(DType::i32, {2}, floats({}, {2.7})).ints, (std::vector<std::int64_t>{2, 2}));
}

}  // namespace
}  // namespace shardc::eval
