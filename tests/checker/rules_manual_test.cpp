// Manual-mode (shard_map) rules: collectives' shapes and varying axes, the output
// vma check and var reassignment, with JAX-RULES.md's worked shapes.
#include <gtest/gtest.h>

#include "frontend/check/rules_collectives.h"
#include "frontend/check/rules_einsum.h"
#include "frontend/check/rules_elementwise.h"
#include "test_meshes.h"

namespace shardc::check {
namespace {

using namespace testing;

std::string str(const Result<Type>& r) { return r ? to_string(*r) : "error: " + r.error().message; }

const Mesh& two() {
  static const Mesh m{"m", {"i"}, {2}, false, 0};
  return m;
}

TEST(LocalMath, VaryingAxesUnite) {
  // The seeds' manual matmul: f32[256,4096]{dp} @ f32[4096,128]{tp} -> f32[256,128]{dp,tp}
  auto r = einsum_op("mk,kn->mn", {blk(dp_tp(), {256, 4096}, bit(0)), blk(dp_tp(), {4096, 128}, bit(1))}, std::nullopt);
  EXPECT_EQ(str(r), "float32[256,128]{V:dp,tp}");
  EXPECT_EQ(str(binary_op("add", BinaryKind::arithmetic, blk(grid(), {4}, bit(0)), blk(grid(), {4}, bit(1)))),
            "float32[4]{V:X,Y}");
}

TEST(AllReduce, RemovesAxesAndPromotes) {
  EXPECT_EQ(str(all_reduce_op("psum", AllReduceKind::sum, blk(grid(), {4}, bit(0) | bit(1)), {0})), "float32[4]{V:Y}");
  EXPECT_EQ(str(all_reduce_op("psum", AllReduceKind::sum, blk(grid(), {4}, bit(0), DType::boolean), {0})), "int32[4]");
  EXPECT_EQ(str(all_reduce_op("pmean", AllReduceKind::mean, blk(grid(), {4}, bit(0) | bit(1), DType::i32), {0, 1})),
            "float32[4]");
  // psum of an invariant value applies pvary first: still fine.
  EXPECT_EQ(str(all_reduce_op("pmax", AllReduceKind::max, blk(grid(), {4}, 0), {0})), "float32[4]");
  EXPECT_FALSE(all_reduce_op("psum", AllReduceKind::sum, arr(grid(), {{4, {}}}), {0}));
}

TEST(AllGather, ShapesTiledAndUntiled) {
  Type x = blk(two(), {2, 2}, bit(0), DType::i32);
  EXPECT_EQ(str(all_gather_op(x, {0}, 0, false, false, true)), "int32[2,2,2]{V:i}");
  EXPECT_EQ(str(all_gather_op(x, {0}, 1, true, false, true)), "int32[2,4]{V:i}");
  EXPECT_EQ(str(all_gather_op(x, {0}, 0, true, true, true)), "int32[4,2]");
  EXPECT_FALSE(all_gather_op(x, {0}, 2, true, false, true));
}

TEST(AllGather, OfANonVaryingValueIsAnError) {
  auto r = all_gather_op(blk(grid(), {4}, bit(1)), {0}, 0, true, false, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::gather_invariant);
  EXPECT_EQ(r.error().message,
            "Collective all_gather must be applied to a device-varying type, but got float32[4]{V:Y} for collective "
            "acting over axis X");
  EXPECT_TRUE(all_gather_op(blk(grid(), {4}, 0), {0}, 0, true, false, /*checked=*/false));
}

TEST(PsumScatter, ShapesAndErrors) {
  Type x = blk(two(), {2, 2}, bit(0), DType::i32);
  EXPECT_EQ(str(psum_scatter_op(x, {0}, 0, false)), "int32[2]{V:i}");
  EXPECT_EQ(str(psum_scatter_op(x, {0}, 1, true)), "int32[2,1]{V:i}");
  auto bad = psum_scatter_op(blk(grid(), {6}, bit(0)), {0}, 0, true);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "tiled reduce_scatter operand scatter dimension size 6 must be divisible by shard_count 4");
  auto untiled = psum_scatter_op(blk(grid(), {8}, bit(0)), {0}, 0, false);
  ASSERT_FALSE(untiled);
  EXPECT_EQ(untiled.error().message, "reduce_scatter operand scatter dimension size 8 must match shard count 4");
}

TEST(AllToAll, ShapesFromTheWorkedTable) {
  Type x = blk(two(), {2, 2}, bit(0), DType::i32);
  EXPECT_EQ(str(all_to_all_op(x, {0}, 0, 1, true)), "int32[1,4]{V:i}");
  EXPECT_EQ(str(all_to_all_op(x, {0}, 1, 0, true)), "int32[4,1]{V:i}");
  EXPECT_EQ(str(all_to_all_op(x, {0}, 0, 1, false)), "int32[2,2]{V:i}");
  EXPECT_FALSE(all_to_all_op(blk(grid(), {6, 2}, bit(0)), {0}, 0, 1, true));
  EXPECT_FALSE(all_to_all_op(blk(grid(), {2, 2}, bit(0)), {0}, 0, 1, false));
}

TEST(Ppermute, PermutationsAndShift) {
  Type x = blk(dp_tp(), {1, 1}, bit(0) | bit(1), DType::i32);
  EXPECT_EQ(str(ppermute_op(x, {0}, shift_perm(4, 1))), "int32[1,1]{V:dp,tp}");
  EXPECT_EQ(str(ppermute_op(blk(dp_tp(), {1}, 0), {1, 0}, shift_perm(8, -1))), "float32[1]{V:dp,tp}");
  EXPECT_FALSE(ppermute_op(x, {0}, {{0, 1}, {1, 1}}));
  EXPECT_FALSE(ppermute_op(x, {0}, {{0, 4}}));
  auto p = shift_perm(4, -1);
  EXPECT_EQ(p[0], (std::pair<std::int64_t, std::int64_t>{0, 3}));
}

TEST(Pvary, AddsAxesOnlyOnce) {
  EXPECT_EQ(str(pvary_op(blk(grid(), {512, 2048}, 0), {0, 1}, true)), "float32[512,2048]{V:X,Y}");
  EXPECT_FALSE(pvary_op(blk(grid(), {4}, bit(0)), {0}, true));
  EXPECT_EQ(to_string(axis_index_type(grid(), {1})), "int32[]{V:Y}");
}

TEST(OutputCheck, VmaMustBeCoveredByTheOutType) {
  Type out = arr(grid(), {{512, {0, 1}}}, DType::i32);  // blocks of 64, varying over X,Y
  EXPECT_FALSE(check_output(blk(grid(), {64}, bit(0) | bit(1), DType::i32), out, 0, false, true));
  Type replicated = arr(grid(), {{4, {}}});
  auto e = check_output(blk(grid(), {4}, bit(0)), replicated, 0, false, true);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cls, ErrorClass::vma_output);
  EXPECT_EQ(e->message, "shard_map result 0 may vary over mesh axes {X}, but its out type float32[4] is replicated over them");
  ASSERT_FALSE(e->notes.empty());
  EXPECT_EQ(e->notes[0].rfind("JAX: out_specs is P()", 0), 0u) << e->notes[0];
  // In a tuple of results, JAX names the output's place in the out_specs tree.
  auto in_tuple = check_output(blk(grid(), {4}, bit(0)), replicated, 1, true, true);
  ASSERT_TRUE(in_tuple && !in_tuple->notes.empty());
  EXPECT_EQ(in_tuple->notes[0].rfind("JAX: out_specs[1] is P()", 0), 0u) << in_tuple->notes[0];
  EXPECT_FALSE(check_output(blk(grid(), {4}, bit(0)), replicated, 0, false, /*checked=*/false));
  auto shape = check_output(blk(grid(), {8}, 0), replicated, 1, false, true);
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->cls, ErrorClass::shape_mismatch);
}

TEST(VarAssignment, TypeMustStayTheSame) {
  Type acc = blk(grid(), {512, 2048}, 0);
  Type rhs = blk(grid(), {512, 2048}, bit(1));
  auto e = check_var_assignment("acc", acc, rhs);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cls, ErrorClass::var_type_change);
  ASSERT_FALSE(e->notes.empty());
  EXPECT_NE(e->notes[0].find("pvary"), std::string::npos);
  EXPECT_FALSE(check_var_assignment("acc", rhs, rhs));
  EXPECT_TRUE(check_var_assignment("acc", acc, blk(grid(), {512, 2048}, 0, DType::bf16)));
  EXPECT_FALSE(check_var_assignment("n", make_static_int(1), make_static_int(2)));
}

}  // namespace
}  // namespace shardc::check
