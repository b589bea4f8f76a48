// The collectives on one group, against the worked values of JAX-RULES.md (two-device axis,
// dev0 holds [[0,1],[2,3]], dev1 holds [[10,11],[12,13]]) and JAX's error wording.
#include "evaluator/collectives.h"

#include <gtest/gtest.h>

#include "evaluator/eval_error.h"

namespace shardc::eval {
namespace {

HostTensor ints(Shape shape, std::vector<std::int64_t> v) { return HostTensor::from_ints(DType::i32, std::move(shape), v); }

Blocks worked() { return {ints({2, 2}, {0, 1, 2, 3}), ints({2, 2}, {10, 11, 12, 13})}; }

void expect_blocks(const Blocks& got, const std::vector<std::pair<Shape, std::vector<std::int64_t>>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t j = 0; j < want.size(); ++j) {
    EXPECT_EQ(got[j].shape, want[j].first) << "member " << j;
    EXPECT_EQ(got[j].ints, want[j].second) << "member " << j;
  }
}

TEST(Collectives, AllReduces) {
  expect_blocks(all_reduce(ReduceOp::sum, worked(), DType::i32), {{{2, 2}, {10, 12, 14, 16}}, {{2, 2}, {10, 12, 14, 16}}});
  expect_blocks(all_reduce(ReduceOp::max, worked(), DType::i32), {{{2, 2}, {10, 11, 12, 13}}, {{2, 2}, {10, 11, 12, 13}}});
  Blocks mean = all_reduce(ReduceOp::mean, worked(), DType::f32);
  EXPECT_EQ(mean[1].dtype, DType::f32);
  EXPECT_EQ(mean[1].floats, (std::vector<float>{5, 6, 7, 8}));
  Blocks b = {HostTensor::from_ints(DType::boolean, {1}, {1}), HostTensor::from_ints(DType::boolean, {1}, {1})};
  EXPECT_EQ(all_reduce(ReduceOp::sum, b, DType::i32)[0].ints[0], 2);  // psum of bool counts in i32
}

TEST(Collectives, PsumScatter) {
  expect_blocks(psum_scatter(worked(), 0, false, DType::i32), {{{2}, {10, 12}}, {{2}, {14, 16}}});
  expect_blocks(psum_scatter(worked(), 1, false, DType::i32), {{{2}, {10, 14}}, {{2}, {12, 16}}});
  expect_blocks(psum_scatter(worked(), 0, true, DType::i32), {{{1, 2}, {10, 12}}, {{1, 2}, {14, 16}}});
  expect_blocks(psum_scatter(worked(), 1, true, DType::i32), {{{2, 1}, {10, 14}}, {{2, 1}, {12, 16}}});
  Blocks three = {ints({3}, {1, 2, 3}), ints({3}, {1, 2, 3})};
  try {
    psum_scatter(three, 0, false, DType::i32);
    FAIL() << "expected an error";
  } catch (const EvalError& e) {
    EXPECT_STREQ(e.what(), "reduce_scatter operand scatter dimension size 3 must match shard count 2");
  }
  EXPECT_THROW(psum_scatter(three, 0, true, DType::i32), EvalError);
}

TEST(Collectives, AllGather) {
  std::vector<std::int64_t> stacked0 = {0, 1, 2, 3, 10, 11, 12, 13};
  expect_blocks(all_gather(worked(), 0, false), {{{2, 2, 2}, stacked0}, {{2, 2, 2}, stacked0}});
  std::vector<std::int64_t> stacked1 = {0, 1, 10, 11, 2, 3, 12, 13};
  expect_blocks(all_gather(worked(), 1, false), {{{2, 2, 2}, stacked1}, {{2, 2, 2}, stacked1}});
  expect_blocks(all_gather(worked(), 0, true), {{{4, 2}, stacked0}, {{4, 2}, stacked0}});
  expect_blocks(all_gather(worked(), 1, true), {{{2, 4}, stacked1}, {{2, 4}, stacked1}});
}

TEST(Collectives, AllToAll) {
  expect_blocks(all_to_all(worked(), 0, 0, true), {{{2, 2}, {0, 1, 10, 11}}, {{2, 2}, {2, 3, 12, 13}}});
  expect_blocks(all_to_all(worked(), 0, 1, true), {{{1, 4}, {0, 1, 10, 11}}, {{1, 4}, {2, 3, 12, 13}}});
  expect_blocks(all_to_all(worked(), 1, 0, true), {{{4, 1}, {0, 2, 10, 12}}, {{4, 1}, {1, 3, 11, 13}}});
  expect_blocks(all_to_all(worked(), 0, 1, false), {{{2, 2}, {0, 10, 1, 11}}, {{2, 2}, {2, 12, 3, 13}}});
  expect_blocks(all_to_all(worked(), 1, 0, false), {{{2, 2}, {0, 2, 10, 12}}, {{2, 2}, {1, 3, 11, 13}}});
  Blocks three = {ints({3}, {1, 2, 3}), ints({3}, {1, 2, 3})};
  EXPECT_THROW(all_to_all(three, 0, 0, true), EvalError);
  EXPECT_THROW(all_to_all(three, 0, 0, false), EvalError);
}

TEST(Collectives, Ppermute) {
  expect_blocks(ppermute(worked(), {{0, 1}, {1, 0}}), {{{2, 2}, {10, 11, 12, 13}}, {{2, 2}, {0, 1, 2, 3}}});
  expect_blocks(ppermute(worked(), {{0, 1}}), {{{2, 2}, {0, 0, 0, 0}}, {{2, 2}, {0, 1, 2, 3}}});
  try {
    ppermute(worked(), {{0, 1}, {1, 1}});
    FAIL() << "expected an error";
  } catch (const EvalError& e) {
    EXPECT_STREQ(e.what(), "ppermute sources and destinations must be unique, got ((0, 1), (1, 1)).");
  }
  EXPECT_EQ(shift_permutation(4, -1), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 3}, {1, 0}, {2, 1}, {3, 2}}));
}

TEST(Collectives, RaggedAllToAll) {
  // Member 0 sends rows [0,1) to itself and rows [1,3) to member 1; member 1 sends row [0,1)
  // to member 0 and nothing to itself. Offsets are on the receiver.
  Blocks operand = {ints({3}, {1, 2, 3}), ints({3}, {7, 8, 9})};
  Blocks output = {ints({4}, {-1, -1, -1, -1}), ints({4}, {-1, -1, -1, -1})};
  Blocks in_off = {ints({2}, {0, 1}), ints({2}, {0, 1})};
  Blocks send = {ints({2}, {1, 2}), ints({2}, {1, 0})};
  Blocks out_off = {ints({2}, {0, 1}), ints({2}, {1, 0})};
  Blocks recv = {ints({2}, {1, 1}), ints({2}, {2, 0})};
  Blocks got = ragged_all_to_all(operand, output, in_off, send, out_off, recv);
  expect_blocks(got, {{{4}, {1, 7, -1, -1}}, {{4}, {-1, 2, 3, -1}}});
  Blocks bad_recv = {ints({2}, {1, 1}), ints({2}, {1, 0})};
  EXPECT_THROW(ragged_all_to_all(operand, output, in_off, send, out_off, bad_recv), EvalError);
}

}  // namespace
}  // namespace shardc::eval
