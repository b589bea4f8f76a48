// The lowering passes on small programs: which collectives each inserts, and where the
// scheduler puts start and wait. (Their numerical results are checked end to end by
// codegen_examples_test against the reference evaluator.)
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <random>
#include <sstream>

#include "codegen/pipeline.h"
#include "codegen/last_use.h"
#include "codegen/overwritten_fills.h"
#include "codegen/print_ir.h"
#include "codegen/reshard_traffic.h"
#include "frontend/check/check.h"
#include "frontend/parse.h"

namespace shardc::codegen {
namespace {

struct Lowered {
  std::unique_ptr<ast::Module> ast;  // the checked module points into it
  std::optional<Module> module;
  std::string errors;
};

Lowered lower(const std::string& text) {
  Lowered out;
  Diagnostics diags;
  out.ast = parse(text, "test.shard", diags);
  if (out.ast) {
    auto checked = check::check(*out.ast, {}, diags).module;
    if (checked && !diags.has_errors()) out.module = lower_module(checked, diags);
  }
  std::ostringstream s;
  diags.render(s);
  out.errors = s.str();
  return out;
}

// The op kinds of a function's body, in order, collectives written as start/wait names.
std::vector<std::string> kinds(const Module& m, const std::string& function) {
  std::vector<std::string> out;
  for (const InstrPtr& i : m.find(function)->body) {
    std::string k(op_kind_name(i->kind()));
    if (i->kind() == OpKind::start || i->kind() == OpKind::wait) k += ":" + i->string_attr("collective");
    out.push_back(k);
  }
  return out;
}

int count(const std::vector<std::string>& ks, const std::string& k) {
  return static_cast<int>(std::count(ks.begin(), ks.end(), k));
}

// That f communicates by `gathers` all_gathers, each over `axes`, and nothing else.
void expect_only_gathers(const Lowered& l, int gathers, const AxisList& axes) {
  const auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:all_gather"), gathers);
  EXPECT_EQ(count(k, "start:reshard_exchange") + count(k, "start:all_to_all") + count(k, "start:psum"), 0);
  for (const InstrPtr& i : l.module->find("f")->body)
    if (i->kind() == OpKind::start) {
      EXPECT_EQ(i->axes_attr("axes"), axes);
    }
}

const char* kMesh = "mesh g = [X: 2, Y: 4];\n";

TEST(LowerEinsums, OutReplicatedAllReducesThePartialSums) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y], b: f32[16@Y, 4]) -> f32[8@X, 4] on g { return einsum(\"bd,df->bf\", a, b, out=[X, None]); }");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "einsum"), 1);
  EXPECT_EQ(count(k, "start:psum"), 1);
  EXPECT_EQ(count(k, "start:all_gather"), 0);
}

// out=[X, None] of a product contracted over Y whose operands are replicated over X: each
// device takes its X rows of the partial product first and all-reduces only those.
TEST(LowerEinsums, RowsTheResultSplitsOffAreCutBeforeTheAllReduce) {
  auto l = lower(std::string(kMesh) +
                 "func f(c: f32[8, 16@Y], b: f32[16@Y, 8]) -> f32[8@X, 8] on g { return matmul(c, b, out=[X]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"),
            (std::vector<std::string>{"param", "param", "einsum", "take_piece", "start:psum", "wait:psum"}));
  const Function& f = *l.module->find("f");
  EXPECT_EQ(f.values[static_cast<std::size_t>(f.body[4]->inputs()[0])].shape, (std::vector<std::int64_t>{4, 8}));
}

TEST(LowerEinsums, OutShardedReduceScatters) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y], b: f32[16@Y, 4]) -> f32[8@X, 4@Y] on g { return einsum(\"bd,df->bf\", a, b, out=[X, Y]); }");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:psum_scatter"), 1);
  EXPECT_EQ(count(k, "start:psum"), 0);
}

// out=[X, Y] of a product contracted over X: a reduce-scatter over X along the rows, and the
// Y columns cut from each partial block before it, so the scatter moves [8, 4], not [8, 8].
TEST(LowerEinsums, OtherDimsAreCutBeforeTheReduceScatter) {
  auto l = lower("mesh g = [X: 2, Y: 2, Z: 2];\n"
                 "func f(a: f32[8, 16@X], b: f32[16@X, 8]) -> f32[8@X, 8@Y] on g { return matmul(a, b, out=[X, Y]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "param", "einsum", "take_piece",
                                                             "start:psum_scatter", "wait:psum_scatter"}));
  const Function& f = *l.module->find("f");
  EXPECT_EQ(f.values[static_cast<std::size_t>(f.body[4]->inputs()[0])].shape, (std::vector<std::int64_t>{8, 4}));
}

TEST(LowerEinsums, ContractingDimShardedOnOneSideIsGathered) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8, 16], b: f32[16@Y, 4]) -> f32[8, 4] on g { return a @ b; }");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:all_gather"), 1);
  EXPECT_EQ(count(k, "start:psum"), 0);
}

// x is gathered along its contracting dimension once, for both products (merge_repeated_communication).
TEST(MergeRepeatedCommunication, OneGatherServesEveryProductOfTheSameOperand) {
  auto l = lower(std::string(kMesh) +
                 "func f(x: f32[8, 16@Y], a: f32[16, 4], b: f32[16, 4]) -> (f32[8, 4], f32[8, 4]) on g {\n"
                 "  return (x @ a, x @ b);\n}");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:all_gather"), 1);
  EXPECT_EQ(count(k, "alias"), 1);
}

TEST(MergeRepeatedCommunication, DifferentOperandsOrAttributesStayApart) {
  auto l = lower(std::string(kMesh) +
                 "shard_map f(x: f32[8@X, 16@Y], y: f32[8@X, 16@Y]) -> (f32[8@X, 16@Y], f32[8@X, 16@Y], "
                 "f32[8@X, 16@Y], f32[8@X, 16@Y]) on g {\n"
                 "  return (ppermute(x, Y, shift=1), ppermute(y, Y, shift=1), ppermute(x, Y, shift=-1), "
                 "ppermute(x, Y, shift=1));\n}");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:ppermute"), 3);
  EXPECT_EQ(count(k, "alias"), 1);
}

// Two products kept as pending sums (unreduced=X), added, then one reduce-scatter: the
// einsums themselves reduce nothing.
TEST(LowerEinsums, PendingSumsAreReducedOnceByTheReshard) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8, 16@X], b: f32[16@X, 4], c: f32[16@X, 4]) -> f32[8@X, 4] on g {\n"
                 "  let s = einsum(\"ij,jk->ik\", a, b, unreduced=X) + einsum(\"ij,jk->ik\", a, c, unreduced=X);\n"
                 "  return reshard(s, [X, None]);\n}");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "einsum"), 2);
  EXPECT_EQ(count(k, "start:psum"), 0);
  EXPECT_EQ(count(k, "start:psum_scatter"), 1);
  EXPECT_EQ(k.size(), 8u);  // three params, two einsums, the add, the reduce-scatter (start, wait)
}

TEST(LowerEinsums, UnshardedContractionNeedsNoCommunication) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16], b: f32[16, 4@Y]) -> f32[8@X, 4@Y] on g { return a @ b; }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "param", "einsum"}));
}

TEST(LowerReductions, ReducingAShardedDimAllReduces) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> f32[16@Y] on g { return sum(a, axis=0); }");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "reduce"), 1);
  EXPECT_EQ(count(k, "start:psum"), 1);
}

// prod over a sharded dimension multiplies the blocks' products across the devices (JAX: an
// all-reduce with a multiply), as sum does with psum; it used to gather the whole dimension.
TEST(LowerReductions, AProductOverAShardedDimAllReducesWithAMultiply) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> f32[16@Y] on g { return prod(a, axis=0); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "reduce", "start:pprod", "wait:pprod"}));
  EXPECT_EQ(l.module->find("f")->body[2]->axes_attr("axes"), (AxisList{0}));
  // bf16: the partial products cross in f32 and are rounded once.
  auto b = lower(std::string(kMesh) + "func f(a: bf16[8@X, 16@Y]) -> bf16[] on g { return prod(a); }");
  ASSERT_TRUE(b.module) << b.errors;
  EXPECT_EQ(kinds(*b.module, "f"),
            (std::vector<std::string>{"param", "reduce", "start:pprod", "wait:pprod", "convert"}));
}

// Size-1 mesh axes split nothing: a reduction over a dimension sharded on Z alone needs no
// collective, and on (Z, Y) a psum over Y.
TEST(DropSizeOneAxes, AllReducesSkipAxesOfSizeOne) {
  const std::string mesh = "mesh m = [X: 2, Z: 1, Y: 2];\n";
  auto l = lower(mesh + "func f(a: f32[4@Z, 8@X]) -> f32[1, 8@X] on m { return sum(a, axis=0, keepdims=true); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "reduce", "alias"}));
  auto k = lower(mesh + "func f(a: f32[4@(Z, Y), 8@X]) -> f32[8@X] on m { return max(a, axis=0); }");
  ASSERT_TRUE(k.module) << k.errors;
  EXPECT_EQ(kinds(*k.module, "f"), (std::vector<std::string>{"param", "reduce", "start:pmax", "wait:pmax"}));
  EXPECT_EQ(k.module->find("f")->body[2]->axes_attr("axes"), (AxisList{2}));
}

TEST(LowerReductions, ReducingAReplicatedDimStaysLocal) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16]) -> f32[8@X] on g { return max(a, axis=1); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "reduce"}));
}

// kMesh is X=2, Y=4: a[::2] keeps every other row of each X block in place; a[2:6] reads
// across the X blocks, so only the rows are gathered (the Y blocks stay), then cut to X again.
TEST(LowerToSpmd, SlicesCutBlocksInPlaceOrGatherOnlyTheDimsTheyCross) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y]) -> (f32[4@X, 16@Y], f32[4@X, 16@Y]) on g { return (a[::2], a[2:6]); }");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "slice"), 2);
  EXPECT_EQ(count(k, "start:all_gather"), 1);
  EXPECT_EQ(count(k, "take_piece"), 1);
  EXPECT_EQ(k.size(), 6u);  // and a param and the wait
  const Function& f = *l.module->find("f");
  for (const InstrPtr& i : f.body) {
    if (i->kind() == OpKind::start) {
      EXPECT_EQ(i->int_attr("axis"), 0);
    }
  }
}

TEST(LowerToSpmd, SoftmaxAlongAShardedDimAllReducesItsMaxAndSum) {
  // f32: as JAX computes it, the max and the sum of each column all-reduced over X (one row of
  // 16 / 2 elements each), the rest on the blocks.
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g { return softmax(a, axis=0); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "reduce", "start:pmax", "wait:pmax", "binary",
                                                             "unary", "reduce", "start:psum", "wait:psum", "binary"}));
  EXPECT_EQ(l.module->find("f")->body[2]->axes_attr("axes"), (AxisList{0}));
}

TEST(LowerToSpmd, WorkingAlongAShardedDimGathersOnlyThatDim) {
  // bf16 softmax along dim 0 of [X, Y]: gather X along dim 0, keep the Y blocks, then take the
  // X piece (one rounding at the end, as the reference).
  auto l = lower(std::string(kMesh) + "func f(a: bf16[8@X, 16@Y]) -> bf16[8@X, 16@Y] on g { return softmax(a, axis=0); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "start:all_gather", "wait:all_gather", "softmax",
                                                             "take_piece"}));
  EXPECT_EQ(l.module->find("f")->body[1]->axes_attr("axes"), (AxisList{0}));
  // argmax over dim 0 (blocks of two: AnArgmaxAcrossBlocksGathersOneValuePerBlock): the result
  // keeps dim 1's Y blocks, nothing to take afterwards.
  auto m = lower(std::string(kMesh) + "func f(a: f32[4@X, 16@Y]) -> i32[16@Y] on g { return argmax(a, axis=0); }");
  ASSERT_TRUE(m.module) << m.errors;
  EXPECT_EQ(kinds(*m.module, "f"), (std::vector<std::string>{"param", "start:all_gather", "wait:all_gather", "reduce",
                                                             "alias"}));
}

// A dynamic window cutting the X-sharded rows gathers the rows only: the Y blocks, which the
// window spans whole, stay where they are. An update of such a window gathers only the update:
// each device writes what falls in its block.
TEST(LowerToSpmd, ADynamicWindowGathersOnlyTheDimsItCuts) {
  auto l = lower(std::string(kMesh) +
                 "func f(s: i32[], a: f32[8@X, 16@Y], u: f32[4@X, 16@Y]) -> (f32[4@X, 16@Y], f32[8@X, 16@Y]) on g {\n"
                 "  return (dynamic_slice(a, s, 4, axis=0), dynamic_update_slice(a, u, (s, 0)));\n}");
  ASSERT_TRUE(l.module) << l.errors;
  expect_only_gathers(l, 2, AxisList{0});  // a's rows for the slice, u's for the update
}

// A split along a sharded dimension gathers that dimension only, once for all its parts, as a
// slice does; it used to gather every dimension (a reshard exchange over X and Y).
TEST(LowerToSpmd, ASplitAlongAShardedDimGathersOnlyThatDim) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y]) -> (f32[4@X, 16@Y], f32[4@X, 16@Y]) on g {\n"
                 "  let (p, q) = split(a, 2, axis=0);\n  return (p, q);\n}");
  ASSERT_TRUE(l.module) << l.errors;
  expect_only_gathers(l, 1, AxisList{0});
}

// A reshape group whose result blocks are not contiguous runs is reshaped whole; the groups
// around it keep their blocks. [8@X, 4, 6] -> [8@X, 6, 4@Y] moves nothing (it used to gather
// over X too), [8@X, 4, 6@Y] -> [8@X, 2, 12@Y] gathers dims 1-2 over Y only (it replicated the
// operand over X and Y).
TEST(LowerToSpmd, AReshapeGathersOnlyTheGroupsItReshapesWhole) {
  auto none = lower("mesh g = [X: 2, Y: 2];\n"
                    "func f(a: f32[8@X, 4, 6]) -> f32[8@X, 6, 4@Y] on g { return reshape(a, (8, 6, 4), out=[X, None, Y]); }");
  ASSERT_TRUE(none.module) << none.errors;
  auto k = kinds(*none.module, "f");
  EXPECT_EQ(count(k, "start:all_gather") + count(k, "start:reshard_exchange") + count(k, "start:all_to_all"), 0);
  auto some = lower("mesh g = [X: 2, Y: 2];\n"
                    "func f(a: f32[8@X, 4, 6@Y]) -> f32[8@X, 2, 12@Y] on g { return reshape(a, (8, 2, 12), out=[X, None, Y]); }");
  ASSERT_TRUE(some.module) << some.errors;
  expect_only_gathers(some, 1, AxisList{1});
}

// A slice that cuts a sharded dimension across blocks and narrows another cuts the other on each
// block first: the gather moves [4, 4] blocks of x[0:8, 0:4], not [4, 64] ones.
TEST(LowerToSpmd, ASliceNarrowsItsLocalDimsBeforeGathering) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[16@X, 64]) -> f32[8@X, 4] on g { return a[0:8, 0:4]; }");
  ASSERT_TRUE(l.module) << l.errors;
  const Function& f = *l.module->find("f");
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:all_gather"), 1);
  for (const InstrPtr& i : f.body)
    if (i->kind() == OpKind::start) {
      EXPECT_EQ(f.values[static_cast<std::size_t>(i->inputs()[0])].shape, (std::vector<std::int64_t>{8, 4}));
    }
}

// argmax/argmin along a sharded dimension whose blocks hold more than two elements gather one
// value per block and row and all-reduce one index per row; they used to gather the dimension.
// With blocks of two, the gather moves no more, and stays.
TEST(LowerToSpmd, AnArgmaxAcrossBlocksGathersOneValuePerBlock) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> i32[8@X] on g { return argmin(a, axis=1); }");
  ASSERT_TRUE(l.module) << l.errors;
  const Function& f = *l.module->find("f");
  auto k = kinds(*l.module, "f");
  EXPECT_EQ(count(k, "start:all_gather"), 1);
  EXPECT_EQ(count(k, "start:psum"), 1);
  EXPECT_EQ(count(k, "start") + count(k, "start:reshard_exchange") + count(k, "start:all_to_all"), 0);
  for (const InstrPtr& i : f.body)
    if (i->kind() == OpKind::start) {
      EXPECT_EQ(i->axes_attr("axes"), (AxisList{1}));
      // a [4, 1] block: one value (f32, gathered) or one index (i32, all-reduced) per row
      EXPECT_EQ(f.values[static_cast<std::size_t>(i->inputs()[0])].shape,
                (i->string_attr("collective") == "psum" ? std::vector<std::int64_t>{4}
                                                        : std::vector<std::int64_t>{4, 1}));
    }
  auto pairs = lower(std::string(kMesh) + "func f(a: f32[8@X, 8@Y]) -> i32[8@X] on g { return argmax(a, axis=1); }");
  ASSERT_TRUE(pairs.module) << pairs.errors;
  EXPECT_EQ(kinds(*pairs.module, "f"), (std::vector<std::string>{"param", "start:all_gather", "wait:all_gather", "reduce", "alias"}));
}

TEST(LowerReshards, MovingAnAxisBetweenDimsIsOneAllToAll) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16]) -> f32[8, 16@X] on g { return reshard(a, [None, X]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "start:all_to_all", "wait:all_to_all"}));
}

TEST(LowerReshards, ShardingAReplicatedArrayIsFree) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8, 16]) -> f32[8@X, 16@Y] on g { return reshard(a, [X, Y]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "take_piece", "take_piece"}));
}

TEST(LowerReshards, AddingAxesToOneDimIsOneTakePiece) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8, 16]) -> f32[8@(X, Y), 16] on g { return reshard(a, [(X, Y), None]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "take_piece"}));
  EXPECT_EQ(l.module->find("f")->body[1]->axes_attr("axes"), (AxisList{0, 1}));
}

TEST(LowerReshards, DroppingSeveralAxesOfOneDimIsOneAllGather) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@(X, Y), 16]) -> f32[8, 16] on g { return reshard(a, []); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "start:all_gather", "wait:all_gather"}));
}

TEST(LowerReshards, ReplicatingTwoShardedDimsIsOneExchange) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> f32[8, 16] on g { return reshard(a, []); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"),
            (std::vector<std::string>{"param", "start:reshard_exchange", "wait:reshard_exchange"}));
}

// Issue 4: explicit_matmul's [dp,tp] -> [tp,dp] is one collective (JAX: one all-to-all), not
// all_gather + all_to_all + slice.
TEST(LowerReshards, SwappingTheAxesOfTwoDimsIsOneExchange) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16@Y]) -> f32[8@Y, 16@X] on g { return reshard(a, [Y, X]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"),
            (std::vector<std::string>{"param", "start:reshard_exchange", "wait:reshard_exchange"}));
  const Instr& start = *l.module->find("f")->body[1];
  EXPECT_EQ(start.axes_attr("axes"), (AxisList{0, 1}));
  EXPECT_EQ(start.spec_attr("from"), (std::vector<AxisList>{{0}, {1}}));
  EXPECT_EQ(start.spec_attr("to"), (std::vector<AxisList>{{1}, {0}}));
}

TEST(LowerReshards, MovingAnAxisAndAddingAnotherIsOneExchange) {
  auto l = lower(std::string(kMesh) + "func f(a: f32[8@X, 16]) -> f32[8, 16@(X, Y)] on g { return reshard(a, [None, (X, Y)]); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(count(kinds(*l.module, "f"), "start:reshard_exchange"), 1);
  EXPECT_EQ(kinds(*l.module, "f").size(), 3u);
}

// The bytes --emit=schedule prints for an exchange: what crosses devices, read from the holder
// the runtime picks (itself when it can).
// Size-1 mesh axes split nothing: a reshard that only moves them moves no data.
TEST(LowerReshards, SizeOneAxesMoveNothing) {
  const std::string mesh = "mesh u = [X: 1, Y: 1, Z: 2];\n";
  auto swap = lower(mesh + "func f(a: f32[4@X, 6@Y]) -> f32[4@Y, 6@X] on u { return reshard(a, [Y, X]); }");
  ASSERT_TRUE(swap.module) << swap.errors;
  EXPECT_EQ(kinds(*swap.module, "f"), (std::vector<std::string>{"param", "alias"}));
  auto gain = lower(mesh + "func f(a: f32[4@X, 6@Y]) -> f32[4@(Z, X), 6@Y] on u { return reshard(a, [(Z, X), Y]); }");
  ASSERT_TRUE(gain.module) << gain.errors;
  EXPECT_EQ(kinds(*gain.module, "f"), (std::vector<std::string>{"param", "take_piece"}));
  EXPECT_EQ(gain.module->find("f")->body[1]->axes_attr("axes"), (AxisList{2}));
}

TEST(ReshardTraffic, CountsOnlyPiecesHeldByOtherDevices) {
  check::Mesh mesh;
  mesh.axis_names = {"dp", "tp"};
  mesh.axis_sizes = {4, 2};
  const std::vector<std::int64_t> shape{1024, 256};
  // [dp,tp] -> [tp,dp]: some device holds none of its new block (512x64 floats).
  EXPECT_EQ(reshard_bytes_from_peers(mesh, shape, 4, {{0}, {1}}, {{1}, {0}}), 512 * 64 * 4);
  // [dp,tp] -> replicated: everything but its own block.
  EXPECT_EQ(reshard_bytes_from_peers(mesh, shape, 4, {{0}, {1}}, {{}, {}}), 7 * 256 * 128 * 4);
  // Replicated -> anything: every device holds everything.
  EXPECT_EQ(reshard_bytes_from_peers(mesh, shape, 4, {{}, {}}, {{1}, {0}}), 0);
  // [dp, None] -> [None, tp]: the holder sharing the reader's tp coordinate (every one of them
  // has all of dim 1), three quarters of the new block from the other dp rows.
  EXPECT_EQ(reshard_bytes_from_peers(mesh, shape, 4, {{0}, {}}, {{}, {1}}), 3 * 256 * 128 * 4);
}

// The count by the pairs of devices it stands for: each reader reads every piece of its new
// block from the holder sharing its coordinates off from's axes, unless that holder is itself.
std::int64_t bytes_from_peers_by_pairs(const check::Mesh& mesh, const std::vector<std::int64_t>& shape,
                                       const std::vector<AxisList>& from, const std::vector<AxisList>& to) {
  auto coords = [&](std::int64_t device) {
    std::vector<std::int64_t> c(mesh.axis_sizes.size());
    for (std::size_t a = c.size(); a-- > 0;) {
      c[a] = device % mesh.axis_sizes[a];
      device /= mesh.axis_sizes[a];
    }
    return c;
  };
  auto range = [&](const std::vector<AxisList>& spec, const std::vector<std::int64_t>& c, std::size_t d) {
    std::int64_t index = 0, count = 1;
    for (int axis : spec[d]) {
      index = index * mesh.axis_sizes[static_cast<std::size_t>(axis)] + c[static_cast<std::size_t>(axis)];
      count *= mesh.axis_sizes[static_cast<std::size_t>(axis)];
    }
    return std::pair{index * (shape[d] / count), (index + 1) * (shape[d] / count)};
  };
  std::vector<bool> named(mesh.axis_sizes.size(), false);
  for (const AxisList& dim : from)
    for (int axis : dim) named[static_cast<std::size_t>(axis)] = true;
  std::int64_t most = 0;
  for (std::int64_t reader = 0; reader < mesh.device_count(); ++reader) {
    std::int64_t total = 0;
    for (std::int64_t holder = 0; holder < mesh.device_count(); ++holder) {
      const auto rc = coords(reader), hc = coords(holder);
      bool chosen = holder != reader;
      for (std::size_t a = 0; a < rc.size(); ++a) chosen &= named[a] || rc[a] == hc[a];
      if (!chosen) continue;
      std::int64_t elements = 1;
      for (std::size_t d = 0; d < shape.size(); ++d) {
        auto [nb, ne] = range(to, rc, d);
        auto [ob, oe] = range(from, hc, d);
        elements *= std::max<std::int64_t>(0, std::min(ne, oe) - std::max(nb, ob));
      }
      total += elements;
    }
    most = std::max(most, total);
  }
  return most;
}

// Random layouts of a 3-D array on a [2, 3, 2] mesh: the per-reader count agrees with the
// pairwise one (which took minutes on meshes of 65536 devices).
TEST(ReshardTraffic, AgreesWithCountingEveryPairOfDevices) {
  check::Mesh mesh;
  mesh.axis_names = {"a", "b", "c"};
  mesh.axis_sizes = {2, 3, 2};
  const std::vector<std::int64_t> shape{12, 24, 12};  // every product of axis sizes divides each
  std::mt19937 rng(7);
  auto random_spec = [&] {
    std::vector<AxisList> spec(3);
    std::vector<int> axes{0, 1, 2};
    std::shuffle(axes.begin(), axes.end(), rng);
    for (int axis : axes)
      if (int d = static_cast<int>(rng() % 4); d < 3) spec[static_cast<std::size_t>(d)].push_back(axis);
    return spec;
  };
  for (int i = 0; i < 300; ++i) {
    const auto from = random_spec(), to = random_spec();
    ASSERT_EQ(reshard_bytes_from_peers(mesh, shape, 2, from, to), 2 * bytes_from_peers_by_pairs(mesh, shape, from, to))
        << "case " << i;
  }
}

TEST(ScheduleCollectives, StartsEarlyAndWaitsLate) {
  // The psum's operand is ready before the independent matmul: the psum starts before it and
  // is waited for only where its result is used.
  auto l = lower(std::string(kMesh) +
                 "shard_map f(a: f32[8@X, 64@Y], b: f32[16, 16]) -> f32[8@X, 64@Y] on g {\n"
                 "  let s = psum(a, Y);\n"
                 "  let m = a @ b;\n"
                 "  return s + m;\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "f");
  auto at = [&](const std::string& name) { return std::find(k.begin(), k.end(), name) - k.begin(); };
  ASSERT_EQ(count(k, "start:psum"), 1);
  EXPECT_LT(at("start:psum"), at("einsum"));
  EXPECT_LT(at("einsum"), at("wait:psum"));
  EXPECT_LT(at("wait:psum"), at("binary"));
}

TEST(Pipeline, ManualCollectivesStayAsWritten) {
  auto l = lower(std::string(kMesh) +
                 "shard_map f(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g { return ppermute(a, Y, shift=1); }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "start:ppermute", "wait:ppermute"}));
}

// pow(a, 3) multiplies a by itself; the exponent's constant is read by nobody, nor is the
// unused `let`, and neither is computed. A manual collective nobody reads stays as written.
TEST(DropDeadValues, ValuesNobodyReadsAreNotComputed) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] { let unused = exp(a) + 1.0; return pow(a, 3); }\n"
                 "shard_map h(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g { let s = psum(a, Y); return a * 2.0; }");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "binary", "binary", "alias"}));
  const auto k = kinds(*l.module, "h");
  EXPECT_EQ(count(k, "start:psum"), 1);
  EXPECT_EQ(count(k, "wait:psum"), 1);
}

// In a func the collectives are the lowering's own: an unused reshard and an unused sum over a
// sharded dimension communicate nothing (they used to exchange and all-reduce all the same).
TEST(DropDeadValues, AFuncsCollectivesNobodyReadsAreDropped) {
  auto l = lower(std::string(kMesh) +
                 "func f(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g {\n"
                 "  let everywhere = reshard(a, []);\n  let total = sum(a, axis=0);\n  return a * 2.0;\n}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(kinds(*l.module, "f"), (std::vector<std::string>{"param", "constant", "binary"}));
}

// The position in f's body of its first instruction of one of `kinds` (a test failure if none).
std::optional<std::size_t> first_of(const Function& f, std::initializer_list<OpKind> kinds) {
  for (std::size_t i = 0; i < f.body.size(); ++i)
    if (std::find(kinds.begin(), kinds.end(), f.body[i]->kind()) != kinds.end()) return i;
  ADD_FAILURE() << "no " << op_kind_name(*kinds.begin()) << " in " << f.name;
  return std::nullopt;
}

// Whether the first instruction of `kind` in f's body may consume its operand 0.
bool first_consumes(const Module& m, const std::string& function, OpKind kind) {
  const Function& f = *m.find(function);
  const auto i = first_of(f, {kind});
  return i && LastUses(f).consumable(*i, 0);
}

TEST(LastUses, ADeadBlockIsConsumedThroughItsAlias) {
  auto l = lower(std::string(kMesh) +
                 "shard_map f(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g {\n"
                 "  let z = a * 2.0;\n"
                 "  let named = z;\n"
                 "  return dynamic_update_slice(named, a[0:1], (0, 0));\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_TRUE(first_consumes(*l.module, "f", OpKind::dynamic_update_slice));
}

TEST(LastUses, ABlockReadLaterOrReturnedOrAParameterIsNotConsumed) {
  auto l = lower(std::string(kMesh) +
                 "shard_map later(a: f32[8@X, 16@Y]) -> (f32[8@X, 16@Y], f32[8@X, 16@Y]) on g {\n"
                 "  let z = a * 2.0;\n"
                 "  let u = dynamic_update_slice(z, a[0:1], (0, 0));\n"
                 "  return (u, z + 1.0);\n"
                 "}\n"
                 "shard_map returned(a: f32[8@X, 16@Y]) -> (f32[8@X, 16@Y], f32[8@X, 16@Y]) on g {\n"
                 "  let z = a * 2.0;\n"
                 "  return (dynamic_update_slice(z, a[0:1], (0, 0)), z);\n"
                 "}\n"
                 "shard_map parameter(a: f32[8@X, 16@Y]) -> f32[8@X, 16@Y] on g {\n"
                 "  return dynamic_update_slice(a, a[0:1] * 2.0, (0, 0));\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_FALSE(first_consumes(*l.module, "later", OpKind::dynamic_update_slice));
  EXPECT_FALSE(first_consumes(*l.module, "returned", OpKind::dynamic_update_slice));
  EXPECT_FALSE(first_consumes(*l.module, "parameter", OpKind::dynamic_update_slice));
}

TEST(LastUses, TheOperandOfACollectiveInFlightIsNotConsumed) {
  // The ppermute reads b in place from its start until its wait, after the reshape.
  auto l = lower(std::string(kMesh) +
                 "shard_map busy(a: f32[8@X, 16@Y]) -> f32[4@X, 32@Y] on g {\n"
                 "  let b = a * 2.0;\n"
                 "  let p = ppermute(b, Y, shift=1);\n"
                 "  let r = reshape(b, (2, 8));\n"
                 "  return r + reshape(p, (2, 8));\n"
                 "}\n"
                 "shard_map idle(a: f32[8@X, 16@Y]) -> f32[4@X, 32@Y] on g {\n"
                 "  let b = a * 2.0;\n"
                 "  return reshape(b, (2, 8));\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  auto k = kinds(*l.module, "busy");
  auto at = [&](const std::string& name) { return std::find(k.begin(), k.end(), name) - k.begin(); };
  ASSERT_LT(at("start:ppermute"), at("reshape"));
  ASSERT_LT(at("reshape"), at("wait:ppermute"));
  EXPECT_FALSE(first_consumes(*l.module, "busy", OpKind::reshape));
  EXPECT_TRUE(first_consumes(*l.module, "idle", OpKind::reshape));
}

// Whether the first slice or dynamic_slice of `function` is emitted as a window.
bool first_slice_is_window(const Module& m, const std::string& function) {
  const Function& f = *m.find(function);
  const auto i = first_of(f, {OpKind::dynamic_slice, OpKind::slice});
  return i && LastUses(f).is_window(f.body[*i]->output());
}

TEST(LastUses, ASliceReadOnlyByMatmulsIsAWindow) {
  auto l = lower(std::string(kMesh) +
                 "shard_map window(a: f32[8@X, 16@Y], w: f32[4, 8]) -> f32[4@X, 32@Y] on g {\n"
                 "  let s = dynamic_slice(a, axis_index(X), 2, axis=0);\n"
                 "  return s @ w + s @ w;\n"
                 "}\n"
                 "shard_map added(a: f32[8@X, 16@Y], w: f32[4, 8]) -> f32[4@X, 16@Y] on g {\n"
                 "  let s = dynamic_slice(a, axis_index(X), 2, axis=0);\n"
                 "  return (s @ w)[:, 0:4] + s;\n"
                 "}\n"
                 "shard_map returned(a: f32[8@X, 16@Y], w: f32[4, 8]) -> (f32[4@X, 32@Y], f32[4@X, 16@Y]) on g {\n"
                 "  let s = dynamic_slice(a, axis_index(X), 2, axis=0);\n"
                 "  return (s @ w, s);\n"
                 "}\n"
                 "shard_map transposed(a: f32[8@X, 16@Y], w: f32[2, 8]) -> f32[8@X, 32@Y] on g {\n"
                 "  let s = dynamic_slice(a, axis_index(X), 2, axis=0);\n"
                 "  return transpose(s) @ w;\n"
                 "}\n"
                 "shard_map static_slice(a: f32[8@X, 16@Y], w: f32[4, 8]) -> f32[8@X, 8@Y] on g {\n"
                 "  return a @ w[:, 0:2];\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_TRUE(first_slice_is_window(*l.module, "window"));
  EXPECT_FALSE(first_slice_is_window(*l.module, "added"));
  EXPECT_FALSE(first_slice_is_window(*l.module, "returned"));
  EXPECT_FALSE(first_slice_is_window(*l.module, "transposed"));
  EXPECT_TRUE(first_slice_is_window(*l.module, "static_slice"));
}

// Whether every value that `kind` instructions of `function` produce is a window.
std::vector<bool> windows_of(const Module& m, const std::string& function, OpKind kind) {
  const Function& f = *m.find(function);
  const LastUses uses(f);
  std::vector<bool> out;
  for (const InstrPtr& i : f.body)
    if (i->kind() == kind) out.push_back(uses.is_window(i->output()));
  return out;
}

TEST(LastUses, WindowsChainThroughReshapesAndIndexes) {
  // The ring form of psum_scatter_matmul_overlapped: row chunks of a reshaped block.
  auto l = lower(std::string(kMesh) +
                 "shard_map chained(a: f32[8@X, 16@Y], w: f32[4, 8]) -> f32[2@X, 32@Y] on g {\n"
                 "  let chunks = reshape(a, (4, 1, 4));\n"
                 "  return chunks[axis_index(X)] @ w;\n"
                 "}\n"
                 "shard_map reread(a: f32[8@X, 16@Y], w: f32[4, 8]) -> (f32[2@X, 32@Y], f32[4@X, 1, 4@Y]) on g {\n"
                 "  let chunks = reshape(a, (4, 1, 4));\n"
                 "  return (chunks[axis_index(X)] @ w, chunks[0:2, :, 0:1]);\n"
                 "}\n"
                 "shard_map reshaped_slice(a: f32[8@X, 16@Y], w: f32[2, 8]) -> f32[8@X, 32@Y] on g {\n"
                 "  return reshape(a[0:2], (4, 2)) @ w;\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_EQ(windows_of(*l.module, "chained", OpKind::reshape), std::vector<bool>{true});
  EXPECT_EQ(windows_of(*l.module, "chained", OpKind::dynamic_index), std::vector<bool>{true});
  // chunks is also sliced into a result: a block; its index stays a window into it.
  EXPECT_EQ(windows_of(*l.module, "reread", OpKind::reshape), std::vector<bool>{false});
  EXPECT_EQ(windows_of(*l.module, "reread", OpKind::dynamic_index), std::vector<bool>{true});
  // A window is not row-major in general: its reshape copies it, and the slice is a block.
  EXPECT_EQ(windows_of(*l.module, "reshaped_slice", OpKind::reshape), std::vector<bool>{false});
  EXPECT_EQ(windows_of(*l.module, "reshaped_slice", OpKind::slice), std::vector<bool>{false});
}

// Whether the first fill of `function` is overwritten whole.
bool first_fill_overwritten(const Module& m, const std::string& function) {
  const Function& f = *m.find(function);
  const auto i = first_of(f, {OpKind::fill});
  return i && find_overwritten_fills(f).at(static_cast<std::size_t>(f.body[*i]->output()));
}

TEST(OverwrittenFills, AZerosBlockThatUpdatesCoverIsNotFilled) {
  auto l = lower(std::string(kMesh) +
                 "shard_map covered(a: f32[8@X, 16@Y]) -> f32[8@X, 32@Y] on g {\n"
                 "  var out = pvary(zeros(f32[4, 8]), (X, Y));\n"
                 "  for c in 0..2 {\n"
                 "    out = dynamic_update_slice(out, a * 2.0, c * 4, axis=1);\n"
                 "  }\n"
                 "  return out;\n"
                 "}\n"
                 "shard_map clamped(a: f32[8@X, 16@Y]) -> f32[8@X, 32@Y] on g {\n"
                 "  var out = pvary(zeros(f32[4, 8]), (X, Y));\n"
                 "  out = dynamic_update_slice(out, a, 0, axis=1);\n"
                 "  return dynamic_update_slice(out, a, 100, axis=1);\n"  // starts at 4 once clamped
                 "}\n"
                 "shard_map gap(a: f32[8@X, 16@Y]) -> f32[8@X, 48@Y] on g {\n"
                 "  var out = pvary(zeros(f32[4, 12]), (X, Y));\n"
                 "  out = dynamic_update_slice(out, a, 0, axis=1);\n"
                 "  return dynamic_update_slice(out, a, 8, axis=1);\n"
                 "}\n"
                 "shard_map read_between(a: f32[8@X, 16@Y]) -> f32[8@X, 32@Y] on g {\n"
                 "  var out = pvary(zeros(f32[4, 8]), (X, Y));\n"
                 "  out = dynamic_update_slice(out, a, 0, axis=1);\n"
                 "  let peek = out[:, 4:8];\n"
                 "  return dynamic_update_slice(out, peek + a, 4, axis=1);\n"
                 "}\n"
                 "shard_map runtime_start(a: f32[8@X, 16@Y]) -> f32[8@X, 32@Y] on g {\n"
                 "  var out = pvary(zeros(f32[4, 8]), (X, Y));\n"
                 "  out = dynamic_update_slice(out, a, 4 * axis_index(X), axis=1);\n"
                 "  return dynamic_update_slice(out, a, 4 - 4 * axis_index(X), axis=1);\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_TRUE(first_fill_overwritten(*l.module, "covered"));
  EXPECT_TRUE(first_fill_overwritten(*l.module, "clamped"));
  EXPECT_FALSE(first_fill_overwritten(*l.module, "gap"));
  EXPECT_FALSE(first_fill_overwritten(*l.module, "read_between"));
  EXPECT_FALSE(first_fill_overwritten(*l.module, "runtime_start"));
}

TEST(LastUses, AWindowKeepsItsBlockFromBeingConsumed) {
  // The update of z comes after the slice and before the matmul that reads the window into z.
  auto l = lower(std::string(kMesh) +
                 "shard_map f(a: f32[8@X, 16@Y], w: f32[4, 8]) -> (f32[4@X, 32@Y], f32[4@X, 16@Y]) on g {\n"
                 "  let z = a * 2.0;\n"
                 "  let s = dynamic_slice(z, axis_index(X), 2, axis=0);\n"
                 "  let u = dynamic_update_slice(z, a[0:1], (0, 0));\n"
                 "  return (s @ w, u[0:2]);\n"
                 "}");
  ASSERT_TRUE(l.module) << l.errors;
  EXPECT_TRUE(first_slice_is_window(*l.module, "f"));
  EXPECT_FALSE(first_consumes(*l.module, "f", OpKind::dynamic_update_slice));
}

}  // namespace
}  // namespace shardc::codegen
