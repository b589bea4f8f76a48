// Whole programs through the parser and checker into the evaluator: funcs (global values),
// shard_maps (device-by-device simulation), calls, random numbers, and the public API's
// argument checks.
#include "evaluator/evaluate.h"

#include <gtest/gtest.h>

#include "checked_source.h"
#include "evaluator/eval_error.h"
#include "evaluator/format_numpy.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

using testing::check_source;
using testing::CheckedSource;

CheckedSource checked(std::string_view text) {
  CheckedSource s = check_source(text);
  EXPECT_TRUE(s.module) << s.errors;
  return s;
}

HostTensor ints(Shape shape, std::vector<std::int64_t> v) { return HostTensor::from_ints(DType::i32, std::move(shape), v); }

std::vector<std::int64_t> iota(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(Evaluate, FuncComputesTheGlobalMeaning) {
  auto s = checked(R"(
mesh m = [X: 2, Y: 2];
func f(x: f32[4@X, 2], y: f32[4@X, 2]) -> f32[4@X, 2] on m {
  let z = x * 2.0 + y;
  return reshard(z, [X, None]);
}
)");
  ASSERT_TRUE(s.module);
  HostTensor x = HostTensor::from_floats(DType::f32, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor y = HostTensor::from_floats(DType::f32, {4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  auto out = evaluate(*s.module, "f", {x, y});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].floats, (std::vector<float>{1, 3, 5, 7, 9, 11, 13, 15}));
}

TEST(Evaluate, ShardMapSplitsRunsCollectivesAndAssembles) {
  auto s = checked(R"(
mesh m = [X: 2, Y: 2];
shard_map g(x: i32[4@X, 4@Y]) -> i32[4@X, 2] on m {
  let total = psum(x, Y);
  return total;
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "g", {ints({4, 4}, iota(16))});
  // Each device holds a 2x2 block; psum over Y adds the two column blocks of its rows.
  EXPECT_EQ(out[0].shape, (Shape{4, 2}));
  EXPECT_EQ(out[0].ints, (std::vector<std::int64_t>{2, 4, 10, 12, 18, 20, 26, 28}));
}

TEST(Evaluate, AxisIndexLinearisesInTheOrderGiven) {
  auto s = checked(R"(
mesh m = [dp: 4, tp: 2];
shard_map idx() -> (i32[8@(tp, dp)], i32[8@(dp, tp)]) on m {
  let a = reshape(axis_index((tp, dp)), (1,));
  let b = reshape(axis_index((dp, tp)), (1,));
  return (a, b);
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "idx", {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ints, iota(8));
  EXPECT_EQ(out[1].ints, iota(8));
}

TEST(Evaluate, FuncCallingShardMapRingShift) {
  auto s = checked(R"(
mesh global_mesh = [dp: 4, tp: 2];
shard_map shift(x_block: i32[8@(tp, dp)]) -> (i32[8@(tp, dp)], i32[8@(tp, dp)]) on global_mesh {
  return (ppermute(x_block, (tp, dp), shift=1), ppermute(x_block, (tp, dp), shift=-1));
}
func run() -> (i32[8@(tp, dp)], i32[8@(tp, dp)]) on global_mesh {
  return shift(reshard(arange(8), [(tp, dp)]));
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "run", {});
  EXPECT_EQ(format_numpy(out[0]), "[7 0 1 2 3 4 5 6]");
  EXPECT_EQ(format_numpy(out[1]), "[1 2 3 4 5 6 7 0]");
}

TEST(Evaluate, ReplicatedResultsComeFromTheLowestDevice) {
  // unchecked: the result varies over Y although the out type replicates it; JAX takes the
  // block of the lowest device id of each replica group.
  auto s = checked(R"(
mesh m = [X: 2, Y: 2];
shard_map lowest(x: i32[2@X, 2@Y]) -> i32[2@X, 1] on m unchecked {
  return x;
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "lowest", {ints({2, 2}, {0, 1, 2, 3})});
  EXPECT_EQ(out[0].ints, (std::vector<std::int64_t>{0, 2}));
}

TEST(Evaluate, RandomNumbersMatchJaxKnownAnswers) {
  auto s = checked(R"(
mesh m = [X: 2];
func u() -> f32[3] on m {
  return uniform(key(0), f32[3]);
}
func u_split() -> f32[] on m {
  let (k0, k1) = split(key(0));
  return uniform(k1, f32[]);
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "u", {});
  EXPECT_NEAR(out[0].floats[0], 0.947667, 1e-6);
  EXPECT_NEAR(out[0].floats[1], 0.9785799, 1e-6);
  EXPECT_NEAR(out[0].floats[2], 0.33229148, 1e-6);
  EXPECT_NEAR(evaluate(*s.module, "u_split", {})[0].floats[0], 0.00729382, 1e-7);
}

TEST(Evaluate, GlobalRandomArraysDoNotDependOnTheSharding) {
  auto s = checked(R"(
mesh m = [X: 2, Y: 2];
func replicated() -> f32[4, 4] on m { return normal(key(3), f32[4, 4]); }
func sharded() -> f32[4@X, 4@Y] on m { return normal(key(3), f32[4@X, 4@Y]); }
)");
  ASSERT_TRUE(s.module);
  EXPECT_TRUE(identical(evaluate(*s.module, "replicated", {})[0], evaluate(*s.module, "sharded", {})[0]));
}

TEST(Evaluate, ShardMapBodiesNumberRandomBlocksFromZero) {
  auto s = checked(R"(
mesh m = [X: 2];
shard_map blocks() -> f32[4@X] on m {
  return uniform(fold_in(key(1), axis_index(X)), f32[2]);
}
func whole() -> (f32[2], f32[2]) on m {
  return (uniform(fold_in(key(1), 0), f32[2]), uniform(fold_in(key(1), 1), f32[2]));
}
)");
  ASSERT_TRUE(s.module);
  HostTensor b = evaluate(*s.module, "blocks", {})[0];
  auto w = evaluate(*s.module, "whole", {});
  EXPECT_EQ(std::vector<float>(b.floats.begin(), b.floats.begin() + 2), w[0].floats);
  EXPECT_EQ(std::vector<float>(b.floats.begin() + 2, b.floats.end()), w[1].floats);
}

TEST(Evaluate, CollectiveMatmulEqualsTheMatmul) {
  auto s = checked(R"(
mesh g = [X: 2, Y: 4];
shard_map collective_matmul(lhs: f32[8@X, 16@Y], rhs: f32[16, 8@Y]) -> f32[8@X, 8@Y] on g {
  let n = axis_size(Y);
  let i0 = axis_index(Y);
  let chunk = 16 // n;
  var acc = pvary(zeros(f32[4, 2]), (X, Y));
  var l = lhs;
  for i in 0..n {
    acc += l @ dynamic_slice(rhs, ((i0 + i) % n) * chunk, chunk, axis=0);
    if i < n - 1 { l = ppermute(l, Y, shift=-1); }
  }
  return acc;
}
func plain(lhs: f32[8@X, 16@Y], rhs: f32[16, 8@Y]) -> f32[8@X, 8@Y] on g {
  return lhs @ rhs;
}
)");
  ASSERT_TRUE(s.module);
  auto in = deterministic_inputs(*s.module, "collective_matmul", 7);
  HostTensor a = evaluate(*s.module, "collective_matmul", in)[0];
  HostTensor b = evaluate(*s.module, "plain", in)[0];
  ASSERT_EQ(a.shape, b.shape);
  for (std::size_t i = 0; i < a.floats.size(); ++i) EXPECT_NEAR(a.floats[i], b.floats[i], 1e-5) << i;
}

TEST(Evaluate, ArgumentsAreCheckedAgainstTheParameterTypes) {
  auto s = checked(R"(
mesh m = [X: 2];
func f(x: f32[4@X]) -> f32[4@X] on m { return x; }
)");
  ASSERT_TRUE(s.module);
  EXPECT_THROW(evaluate(*s.module, "f", {}), EvalError);
  EXPECT_THROW(evaluate(*s.module, "f", {ints({4}, {1, 2, 3, 4})}), EvalError);
  EXPECT_THROW(evaluate(*s.module, "f", {HostTensor::zeros(DType::f32, {5})}), EvalError);
  EXPECT_THROW(evaluate(*s.module, "nope", {}), EvalError);
}

TEST(Evaluate, DeterministicInputsAreReproducible) {
  auto s = checked(R"(
mesh m = [X: 2];
func f(a: f32[4@X], b: i32[6], c: bool[3], d: bf16[2]) -> f32[4@X] on m { return a; }
)");
  ASSERT_TRUE(s.module);
  auto one = deterministic_inputs(*s.module, "f", 0);
  auto two = deterministic_inputs(*s.module, "f", 0);
  auto other = deterministic_inputs(*s.module, "f", 1);
  ASSERT_EQ(one.size(), 4u);
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(identical(one[i], two[i]));
  EXPECT_FALSE(identical(one[0], other[0]));
  for (float v : one[0].floats) EXPECT_TRUE(v >= -1 && v < 1);
  for (auto v : one[1].ints) EXPECT_TRUE(v >= -8 && v < 8);
  EXPECT_EQ(one[2].dtype, DType::boolean);
  EXPECT_EQ(one[3].dtype, DType::bf16);
  EXPECT_TRUE(identical(evaluate(*s.module, "f", one)[0], one[0]));
}

TEST(Evaluate, ShapeAndMathOpsThroughTheChecker) {
  auto s = checked(R"(
mesh m = [X: 2];
func shapes() -> (i32[3, 2], i32[2, 2], i32[4], i32[2, 3], i32[6], f32[2, 3], i32[3]) on m {
  let x = reshape(arange(6), (2, 3));
  let t = transpose(x);
  let d = dynamic_slice(x, (1, 5), (1, 2));
  let r = x[1];
  let u = dynamic_update_slice(x, full(i32[1, 2], 9), (0, 1));
  let c = concat((x[0], x[1]), axis=0);
  let b = broadcast_to(reshape(arange(3), (1, 3)), (2, 3));
  return (t, concat((d, d), axis=0), slice(concat((r, r), axis=0), 1, 5), u, roll(c, 1, axis=0),
          astype(b, f32) / 2, r);
}
func maths() -> (f32[2, 3], i32[2], f32[2], i32[2], i32[2, 3]) on m {
  let x = astype(reshape(arange(6), (2, 3)), f32);
  let (v, i) = top_k(x, 2);
  return (softmax(x, axis=1), argmax(x, axis=1), mean(x, axis=1), i[1], where(x > 2.0, 1, 0));
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "shapes", {});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(format_numpy(out[0]), "[[0 3]\n [1 4]\n [2 5]]");
  EXPECT_EQ(format_numpy(out[1]), "[[4 5]\n [4 5]]");  // start 5 clamps to 1
  EXPECT_EQ(format_numpy(out[2]), "[4 5 3 4]");
  EXPECT_EQ(format_numpy(out[3]), "[[0 9 9]\n [3 4 5]]");
  EXPECT_EQ(format_numpy(out[4]), "[5 0 1 2 3 4]");
  EXPECT_EQ(format_numpy(out[5]), "[[0.  0.5 1. ]\n [0.  0.5 1. ]]");
  EXPECT_EQ(format_numpy(out[6]), "[3 4 5]");
  auto m = evaluate(*s.module, "maths", {});
  EXPECT_NEAR(m[0].floats[2], 0.66524096f, 1e-6);
  EXPECT_EQ(format_numpy(m[1]), "[2 2]");
  EXPECT_EQ(format_numpy(m[2]), "[1. 4.]");
  EXPECT_EQ(format_numpy(m[3]), "[2 1]");
  EXPECT_EQ(format_numpy(m[4]), "[[0 0 0]\n [1 1 1]]");
}

TEST(Evaluate, RaggedAllToAllInAShardMap) {
  // Device 0 sends its row 0 to itself and row 1 to device 1; device 1 sends its rows 0..2 to
  // device 0 (landing at rows 1..3) and nothing to itself.
  auto s = checked(R"(
mesh m = [i: 2];
shard_map ragged(x: i32[6@i], in_off: i32[4@i], send: i32[4@i], out_off: i32[4@i], recv: i32[4@i])
    -> i32[8@i] on m {
  return ragged_all_to_all(x, full(i32[4], -1), in_off, send, out_off, recv, i);
}
)");
  ASSERT_TRUE(s.module);
  auto out = evaluate(*s.module, "ragged",
                      {ints({6}, {1, 2, 3, 7, 8, 9}), ints({4}, {0, 1, 0, 0}), ints({4}, {1, 1, 2, 0}),
                       ints({4}, {0, 0, 1, 0}), ints({4}, {1, 2, 1, 0})});
  EXPECT_EQ(format_numpy(out[0]), "[ 1  7  8 -1  2 -1 -1 -1]");
  // Device 0 expects one row from device 1, which sends two: a run-time error, as in JAX.
  EXPECT_THROW(evaluate(*s.module, "ragged",
                        {ints({6}, {1, 2, 3, 7, 8, 9}), ints({4}, {0, 1, 0, 0}), ints({4}, {1, 1, 2, 0}),
                         ints({4}, {0, 0, 1, 0}), ints({4}, {1, 1, 1, 0})}),
               EvalError);
}

TEST(Evaluate, KeysCrossTheApiAsTwoWords) {
  auto s = checked(R"(
mesh m = [X: 2];
func draw(k: key) -> f32[3] on m { return uniform(k, f32[3]); }
)");
  ASSERT_TRUE(s.module);
  HostTensor k0 = HostTensor::from_ints(DType::i64, {2}, {0, 0});
  EXPECT_NEAR(evaluate(*s.module, "draw", {k0})[0].floats[0], 0.947667, 1e-6);
  EXPECT_THROW(evaluate(*s.module, "draw", {ints({2}, {0, 0})}), EvalError);
}

TEST(Evaluate, SixteenBitFloatsRoundAfterEveryOpAndPromote) {
  auto s = checked(R"(
mesh m = [X: 2];
func h(x: bf16[4@X], y: f16[4]) -> (bf16[4@X], f32[4@X], bf16[]) on m {
  let scaled = x * 0.1;
  let mixed = x + y;
  let total = sum(astype(full(f32[3], 1.0), bf16) + reshape(concat((full(bf16[1], 255.0), zeros(bf16[2])), axis=0), (3,)));
  return (scaled, mixed, total);
}
)");
  ASSERT_TRUE(s.module);
  HostTensor x = HostTensor::from_floats(DType::bf16, {4}, {1, 2, 3, 4});
  HostTensor y = HostTensor::from_floats(DType::f16, {4}, {0.5, 0.25, 0.125, 1000.5});
  auto out = evaluate(*s.module, "h", {x, y});
  EXPECT_EQ(out[0].dtype, DType::bf16);
  EXPECT_EQ(out[0].floats[0], round_to(DType::bf16, 0.1f));  // the weak 0.1 becomes bf16 first
  EXPECT_EQ(out[1].dtype, DType::f32);                       // bf16 + f16 meet at f32
  EXPECT_EQ(out[1].floats[3], 1004.5f);  // in bf16 it would be 1004
  // 256 + 1 + 1: a bf16 running sum would stop at 256; the sum accumulates wider, rounds once.
  EXPECT_EQ(out[2].floats[0], 258.0f);
}

// The evaluator checks the checker's trace as it runs: a value whose computed shape is not
// its type, or replicas that disagree where the vma check said they cannot, are internal
// errors (the two stages disagree), never silently wrong results.
TEST(Evaluate, TraceInvariantsAreCheckedAsItRuns) {
  auto s = checked(R"(
mesh m = [X: 2];
func f(x: f32[4@X]) -> f32[4@X] on m { let y = x * 2.0; return y; }
shard_map g(x: i32[2@X]) -> i32[2@X] on m unchecked { return x; }
shard_map h(x: i32[2@X]) -> i32[1] on m unchecked { return x; }
)");
  ASSERT_TRUE(s.module);
  auto& module = const_cast<check::CheckedModule&>(*s.module);  // a deliberately broken trace
  check::CheckedFunction& f = module.functions.at(0);
  f.values.at(f.ops.back().outputs.at(0)).dims.at(0).size = 5;
  EXPECT_THROW(evaluate(module, "f", {HostTensor::zeros(DType::f32, {4})}), InternalError);
  // h is unchecked: replicas may differ, the lowest device's block wins.
  EXPECT_EQ(evaluate(module, "h", {ints({2}, {3, 4})})[0].ints, (std::vector<std::int64_t>{3}));
  // Claim h is checked: the replicas differ, which the vma check would have ruled out.
  module.functions.at(2).unchecked = false;
  EXPECT_THROW(evaluate(module, "h", {ints({2}, {3, 4})}), InternalError);
  EXPECT_EQ(evaluate(module, "g", {ints({2}, {3, 4})})[0].ints, (std::vector<std::int64_t>{3, 4}));
}

}  // namespace
}  // namespace shardc::eval
