// The explicit-mode sharding rules, one test per JAX example they reproduce.
#include <gtest/gtest.h>

#include "frontend/check/rules_einsum.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/reshape_layout.h"
#include "frontend/check/rules_reduce.h"
#include "frontend/check/rules_shape.h"
#include "test_meshes.h"

namespace shardc::check {
namespace {

using namespace testing;

std::string str(const Result<Type>& r) { return r ? to_string(*r) : "error: " + r.error().message; }

TEST(Broadcasting, SizeOneUnshardedDimsGiveWay) {
  auto r = binary_op("add", BinaryKind::arithmetic, arr(grid(), {{4, {0}}, {1, {}}}), arr(grid(), {{1, {}}, {8, {1}}}));
  EXPECT_EQ(str(r), "float32[4@X,8@Y]");
}

TEST(Broadcasting, OneOpinionWinsAndScalarsBroadcast) {
  EXPECT_EQ(str(binary_op("add", BinaryKind::arithmetic, arr(grid(), {{8, {0}}}), arr(grid(), {{8, {}}}))),
            "float32[8@X]");
  EXPECT_EQ(str(binary_op("mul", BinaryKind::arithmetic, arr(grid(), {{8, {0}}, {4, {}}}), make_static_float(2.0))),
            "float32[8@X,4]");
  EXPECT_EQ(str(binary_op("div", BinaryKind::divide, arr(grid(), {{8, {0}}}, DType::i32), make_static_int(2))),
            "float32[8@X]");
  EXPECT_EQ(str(binary_op("lt", BinaryKind::compare, arr(grid(), {{8, {0}}}), make_static_int(2))), "bool[8@X]");
}

TEST(Broadcasting, DifferentAxesAreIncompatible) {
  auto r = binary_op("mul", BinaryKind::arithmetic, arr(grid(), {{8, {0}}, {8, {1}}}), arr(grid(), {{8, {1}}, {8, {0}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::broadcast_mismatch);
  EXPECT_EQ(r.error().message, "mul got incompatible shardings for broadcasting: (X, Y), (Y, X)");
}

TEST(Broadcasting, ResultUsingOneAxisTwiceIsIllegal) {
  auto r = binary_op("add", BinaryKind::arithmetic, arr(grid(), {{4, {0}}, {4, {}}}, DType::i32),
                     arr(grid(), {{4, {}}, {4, {0}}}, DType::i32));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::duplicate_result_axis);
  EXPECT_EQ(r.error().message,
            "add operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally sharded result: i32[4@X,4@X]");
}

TEST(Broadcasting, ShapesAndMeshesMustAgree) {
  auto r = binary_op("add", BinaryKind::arithmetic, arr(grid(), {{8, {}}}), arr(grid(), {{3, {}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::shape_mismatch);
  auto m = binary_op("add", BinaryKind::arithmetic, arr(grid(), {{8, {}}}), arr(other(), {{8, {}}}));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().cls, ErrorClass::mesh_mismatch);
  EXPECT_EQ(m.error().message, "Mesh for all inputs should be equal. Got one mesh: grid and another mesh: other");
}

TEST(Broadcasting, AutoMeshSaysNotImplemented) {
  auto r = binary_op("mul", BinaryKind::arithmetic, arr(auto_grid(), {{8, {0}}}), arr(auto_grid(), {{8, {1}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::auto_not_implemented);
  EXPECT_NE(r.error().message.find("auto sharding propagation is not implemented yet"), std::string::npos);
}

TEST(Einsum, FreeDimsKeepTheirSharding) {
  // The seeds' explicit matmul: float32[1024@dp,4096] @ float32[4096,256@tp] -> float32[1024@dp,256@tp]
  auto r = einsum_op("ij,jk->ik", {arr(dp_tp(), {{1024, {0}}, {4096, {}}}), arr(dp_tp(), {{4096, {}}, {256, {1}}})},
                     std::nullopt);
  EXPECT_EQ(str(r), "float32[1024@dp,256@tp]");
}

// JAX's unreduced out_sharding: no communication, the product a pending sum over the
// contracted axes; add and sub combine pending sums over the same axes, reshard reduces them.
TEST(Einsum, UnreducedKeepsThePendingSum) {
  auto ops = std::vector<Type>{arr(grid(), {{8, {0}}, {2048, {1}}}), arr(grid(), {{2048, {1}}, {8192, {}}})};
  auto p = unreduced_einsum_op("bd,df->bf", ops, {1}, std::nullopt);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(str(p), "float32[8@X,8192]{U:Y}");
  EXPECT_EQ(str(binary_op("add", BinaryKind::arithmetic, *p, *p)), "float32[8@X,8192]{U:Y}");
  auto scaled = binary_op("mul", BinaryKind::arithmetic, *p, *p);
  ASSERT_FALSE(scaled);
  EXPECT_NE(scaled.error().message.find("mul does not accept an unreduced operand"), std::string::npos);
  auto mixed = binary_op("add", BinaryKind::arithmetic, *p, arr(grid(), {{8, {0}}, {8192, {}}}));
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().message.rfind("lhs is unreduced while rhs is not. `add` operation does not allow this", 0), 0u);
  EXPECT_EQ(str(reshard_op(*p, {{0}, {1}})), "float32[8@X,8192@Y]");
  // unreduced= must name exactly the contracted axes, sharded alike on both operands.
  EXPECT_FALSE(unreduced_einsum_op("bd,df->bf", ops, {0}, std::nullopt));
  EXPECT_FALSE(unreduced_einsum_op("bd,df->bf", {ops[0], arr(grid(), {{2048, {}}, {8192, {}}})}, {1}, std::nullopt));
}

TEST(Einsum, ContractingShardedOnOneSideIsAllGathered) {
  auto r = einsum_op("bd,df->bf", {arr(grid(), {{8, {}}, {4, {}}}), arr(grid(), {{4, {0}}, {16, {}}})}, std::nullopt);
  EXPECT_EQ(str(r), "float32[8,16]");
  EXPECT_EQ(str(einsum_op("ij,jk->ik", {arr(grid(), {{8, {0}}, {4, {1}}}), arr(grid(), {{4, {}}, {16, {}}})},
                          std::nullopt)),
            "float32[8@X,16]");
}

TEST(Einsum, ContractingShardedOnBothSidesNeedsOut) {
  auto ops = std::vector<Type>{arr(grid(), {{8, {0}}, {2048, {1}}}), arr(grid(), {{2048, {1}}, {8192, {}}})};
  auto r = einsum_op("bd,df->bf", ops, std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::einsum_ambiguous);
  EXPECT_EQ(r.error().message,
            "einsum \"bd,df->bf\" contracts dimension d, which is sharded over Y on both operands; the result's "
            "sharding is ambiguous");
  ASSERT_FALSE(r.error().notes.empty());
  EXPECT_EQ(r.error().notes[0], "out=[X, None] all-reduces over Y; out=[X, Y] reduce-scatters over Y");
  auto fixed = einsum_op("bd,df->bf", ops, std::vector<AxisList>{{0}, {1}});
  EXPECT_EQ(str(fixed), "float32[8@X,8192@Y]");
  auto reduced = einsum_op("bd,df->bf", ops, std::vector<AxisList>{{0}, {}});
  EXPECT_EQ(str(reduced), "float32[8@X,8192]");
}

TEST(Einsum, OutMustBeAValidSharding) {
  auto ops = std::vector<Type>{arr(grid(), {{8, {0}}, {2048, {1}}}), arr(grid(), {{2048, {1}}, {6, {}}})};
  auto r = einsum_op("bd,df->bf", ops, std::vector<AxisList>{{0}, {0}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::duplicate_type_axis);
  auto nd = einsum_op("bd,df->bf", ops, std::vector<AxisList>{{}, {0}});
  ASSERT_FALSE(nd);
  EXPECT_EQ(nd.error().cls, ErrorClass::not_divisible);
}

TEST(Einsum, BatchDimsMustMatch) {
  auto r = einsum_op("bij,bjk->bik", {arr(grid(), {{4, {0}}, {2, {}}, {3, {}}}), arr(grid(), {{4, {}}, {3, {}}, {5, {}}})},
                     std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::batch_mismatch);
  EXPECT_NE(r.error().message.find("got X and None"), std::string::npos);
}

TEST(Einsum, DuplicateAxisInResult) {
  auto r = einsum_op("ij,jk->ik", {arr(grid(), {{8, {0}}, {4, {}}}), arr(grid(), {{4, {}}, {8, {0}}})}, std::nullopt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::duplicate_result_axis);
}

TEST(Einsum, SpecErrors) {
  EXPECT_FALSE(parse_einsum("ij,jk"));
  EXPECT_FALSE(parse_einsum("ii->i"));
  EXPECT_FALSE(parse_einsum("ij,jk->iz"));
  EXPECT_FALSE(parse_einsum("i1->i"));
  auto size = einsum_op("ij,jk->ik", {arr(grid(), {{8, {}}, {4, {}}}), arr(grid(), {{5, {}}, {8, {}}})}, std::nullopt);
  ASSERT_FALSE(size);
  EXPECT_EQ(size.error().cls, ErrorClass::shape_mismatch);
}

TEST(Matmul, SpecsFollowNumpy) {
  EXPECT_EQ(*matmul_spec(arr(grid(), {{8, {}}, {4, {}}}), arr(grid(), {{4, {}}, {2, {}}})), "mk,kn->mn");
  EXPECT_EQ(*matmul_spec(arr(grid(), {{3, {}}, {8, {}}, {4, {}}}), arr(grid(), {{4, {}}, {2, {}}})), "amk,kn->amn");
  EXPECT_EQ(*matmul_spec(arr(grid(), {{4, {}}}), arr(grid(), {{4, {}}})), "k,k->");
  EXPECT_FALSE(matmul_spec(arr(grid(), {}), arr(grid(), {{4, {}}})));
}

TEST(Reductions, DropReducedSpecs) {
  auto r = reduce_op("sum", ReduceKind::sum, arr(grid(), {{8, {0}}, {4, {1}}}), {0});
  EXPECT_EQ(str(r), "float32[4@Y]");
  EXPECT_EQ(str(reduce_op("mean", ReduceKind::mean, arr(grid(), {{8, {}}, {4, {}}}, DType::i32), {1})), "float32[8]");
  EXPECT_EQ(str(reduce_op("sum", ReduceKind::sum, arr(grid(), {{8, {0}}}, DType::boolean), {})), "int32[]");
  EXPECT_EQ(str(reduce_op("argmax", ReduceKind::argmax, arr(grid(), {{8, {0}}, {4, {}}}), {1})), "int32[8@X]");
  EXPECT_FALSE(normalize_axis("sum", 2, 2));
  EXPECT_EQ(*normalize_axis("sum", -1, 2), 1);
}

TEST(Reductions, OpsAlongAShardedDimAreRejected) {
  auto r = top_k_op(arr(grid(), {{8, {}}, {16, {0}}}), 4);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().cls, ErrorClass::unsupported_sharding);
  EXPECT_EQ(to_string(*top_k_op(arr(grid(), {{8, {0}}, {16, {}}}), 4)), "(float32[8@X,4], int32[8@X,4])");
  EXPECT_FALSE(roll_op(arr(grid(), {{8, {0}}}), 0));
  EXPECT_TRUE(roll_op(arr(grid(), {{8, {0}}, {4, {}}}), 1));
}

TEST(Reshape, SplitsAndMergesFollowJax) {
  const Mesh two{"two", {"X"}, {2}, false, 0};
  EXPECT_EQ(str(reshape_op(arr(two, {{8, {0}}}), {2, 4})), "float32[2@X,4]");
  EXPECT_EQ(str(reshape_op(arr(two, {{2, {0}}, {4, {}}}), {8})), "float32[8@X]");
  auto bad = reshape_op(arr(two, {{2, {}}, {4, {0}}}), {8});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().cls, ErrorClass::unsupported_sharding);
  auto x4 = reshape_op(arr(grid(), {{8, {0}}}), {2, 4});
  ASSERT_FALSE(x4);
  EXPECT_EQ(str(reshape_op(arr(grid(), {{8, {0}}, {6, {}}}), {8, 3, -1})), "float32[8@X,3,2]");
  EXPECT_EQ(str(reshape_op(arr(grid(), {{8, {}}, {6, {}}}), {-1})), "float32[48]");
  EXPECT_FALSE(reshape_op(arr(grid(), {{8, {}}}), {-1, -1}));
  EXPECT_FALSE(reshape_op(arr(grid(), {{8, {}}}), {3, -1}));
  EXPECT_FALSE(reshape_op(arr(grid(), {{8, {}}}), {3, 3}));
  EXPECT_FALSE(reshape_op(arr(grid(), {{8, {}}}), {INT64_MAX, 4}));
}

// JAX's split_partitions and merge rule (lax.py), beyond one axis on the major dimension.
TEST(Reshape, AxesSpreadOverSplitsAndConcatenateOverMerges) {
  const Mesh xy{"xy", {"X", "Y"}, {2, 2}, false, 0};
  EXPECT_EQ(str(reshape_op(arr(xy, {{16, {0, 1}}}), {2, 8})), "float32[2@X,8@Y]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{16, {0, 1}}}), {4, 4})), "float32[4@(X,Y),4]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{16, {1, 0}}}), {2, 2, 4})), "float32[2@Y,2@X,4]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{2, {0}}, {4, {1}}}), {8})), "float32[8@(X,Y)]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{4, {0}}, {4, {1}}, {3, {}}}), {16, 3})), "float32[16@(X,Y),3]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{4, {0}}, {3, {}}, {5, {}}}), {4, 15})), "float32[4@X,15]");
  // Several groups in one reshape (JAX's rule takes one kind at a time).
  EXPECT_EQ(str(reshape_op(arr(xy, {{8, {0}}, {4, {1}}}), {2, 4, 2, 2})), "float32[2@X,4,2@Y,2]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{1, {}}, {16, {0}}}), {4, 1, 4})), "float32[4@X,1,4]");
  // A size-1 dimension (sharded only over size-1 axes) loses its axes, as in JAX's rule for
  // shapes equal but for size-1 dimensions; an empty array keeps the specs of dims kept as they are.
  const Mesh unit_x{"unit_x", {"X", "Y"}, {1, 4}, false, 0};
  EXPECT_EQ(str(reshape_op(arr(unit_x, {{1, {0}}, {8, {1}}}), {8})), "float32[8@Y]");
  EXPECT_EQ(str(reshape_op(arr(xy, {{0, {}}, {8, {0}}}), {0, 1, 8})), "float32[0,1,8@X]");
  EXPECT_FALSE(reshape_op(arr(xy, {{0, {}}, {8, {0}}}), {8, 0}));
  // An unsharded dimension merged before a sharded one, an axis that does not divide what is
  // left of a new dimension, and a regrouping of sharded dimensions.
  for (auto bad : {reshape_op(arr(xy, {{4, {0}}, {3, {}}, {4, {1}}}), {48}),
                   reshape_op(arr(grid(), {{16, {0, 1}}}), {2, 8}),
                   reshape_op(arr(xy, {{4, {0}}, {6, {}}}), {6, 4})}) {
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().cls, ErrorClass::unsupported_sharding);
    EXPECT_NE(bad.error().message.find("Please specify the sharding of the output via the out argument"),
              std::string::npos);
  }
}

TEST(ReshapeLayout, GroupsAndSpreads) {
  const Mesh xy{"xy", {"X", "Y"}, {2, 2}, false, 0};
  auto groups = reshape_groups({8, 1, 6}, {2, 4, 3, 2});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].old_dims, (std::vector<int>{0}));
  EXPECT_EQ(groups[0].new_dims, (std::vector<int>{0, 1}));
  EXPECT_EQ(groups[1].old_dims, (std::vector<int>{2}));
  EXPECT_EQ(groups[1].new_dims, (std::vector<int>{2, 3}));
  groups = reshape_groups({4, 6}, {6, 4});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].old_dims.size(), 2u);
  EXPECT_TRUE(reshape_groups({0, 4}, {4, 0}).empty());
  EXPECT_EQ(reshape_groups({0, 1, 4}, {0, 4}).size(), 2u);
  EXPECT_EQ(spread_axes(xy, {0, 1}, {2, 8}), (std::vector<AxisList>{{0}, {1}}));
  EXPECT_EQ(spread_axes(xy, {0, 1}, {4, 4}), (std::vector<AxisList>{{0, 1}, {}}));
  EXPECT_EQ(spread_axes(xy, {1}, {3, 4}), std::nullopt);
  EXPECT_EQ(concatenated({{1}, {}, {0}}), (AxisList{1, 0}));
}

TEST(ShapeOps, TransposeConcatSlice) {
  EXPECT_EQ(str(transpose_op(arr(grid(), {{8, {0}}, {4, {}}}), {1, 0})), "float32[4,8@X]");
  EXPECT_FALSE(transpose_op(arr(grid(), {{8, {0}}, {4, {}}}), {0, 0}));
  EXPECT_EQ(str(concat_op({arr(grid(), {{8, {0}}}), arr(grid(), {{8, {0}}})}, 0)), "float32[16@X]");
  auto c = concat_op({arr(grid(), {{8, {0}}}), arr(grid(), {{8, {}}})}, 0);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("All operands should have the same sharding"), std::string::npos);
  EXPECT_EQ(str(stack_op({arr(grid(), {{8, {0}}}), arr(grid(), {{8, {0}}})}, 1)), "float32[8@X,2]");
  auto st = stack_op({arr(grid(), {{8, {0}}}), arr(grid(), {{4, {0}}})}, 0);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "stack operands differ in dimension 0: float32[8@X] and float32[4@X]");

  EXPECT_EQ(str(slice_op(arr(grid(), {{16, {0}}, {4, {}}}), {{0, 8, 1, false}})), "float32[8@X,4]");
  auto nd = slice_op(arr(grid(), {{16, {0}}, {4, {}}}), {{0, 6, 1, false}});
  ASSERT_FALSE(nd);
  EXPECT_EQ(nd.error().cls, ErrorClass::not_divisible);
  auto oob = slice_op(arr(grid(), {{16, {}}}), {{0, 17, 1, false}});
  ASSERT_FALSE(oob);
  EXPECT_EQ(oob.error().cls, ErrorClass::out_of_range);
  EXPECT_EQ(str(slice_op(arr(grid(), {{16, {}}, {4, {}}}), {{3, std::nullopt, 1, true}})), "float32[4]");
  EXPECT_EQ(str(slice_op(arr(grid(), {{16, {}}}), {{-4, std::nullopt, 2, false}})), "float32[2]");
  EXPECT_FALSE(slice_op(arr(grid(), {{16, {}}}), {{16, std::nullopt, 1, true}}));
}

TEST(ShapeOps, DynamicSlicesAndReshard) {
  EXPECT_EQ(str(dynamic_slice_op(arr(grid(), {{2048, {}}, {8, {}}}), 0, 512)), "float32[512,8]");
  EXPECT_FALSE(dynamic_slice_op(arr(grid(), {{16, {}}}), 0, 17));
  EXPECT_FALSE(dynamic_slice_op(arr(grid(), {{16, {0}}}), 0, 2));
  auto u = dynamic_update_slice_op(arr(grid(), {{16, {0}}}), arr(grid(), {{8, {}}}));
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("operand and update shardings must be equal"), std::string::npos);
  // Smaller on any dimension fits (the axis form puts it at 0 on the others); larger does not.
  EXPECT_EQ(str(dynamic_update_slice_op(arr(grid(), {{8, {}}, {6, {}}}), arr(grid(), {{2, {}}, {2, {}}}))),
            "float32[8,6]");
  auto big = dynamic_update_slice_op(arr(grid(), {{8, {}}, {6, {}}}), arr(grid(), {{2, {}}, {7, {}}}));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("along dimension 1"), std::string::npos);
  EXPECT_EQ(str(reshard_op(arr(dp_tp(), {{1024, {0}}, {256, {1}}}), {{}, {}})), "float32[1024,256]");
  EXPECT_EQ(str(reshard_op(arr(dp_tp(), {{1024, {0}}, {256, {1}}}), {{1}, {0}})), "float32[1024@tp,256@dp]");
  auto dup = reshard_op(arr(dp_tp(), {{1024, {0}}, {256, {1}}}), {{0}, {0}});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().cls, ErrorClass::duplicate_type_axis);
  EXPECT_FALSE(reshard_op(arr(dp_tp(), {{1024, {0}}}), {{0}, {}}));
}

}  // namespace
}  // namespace shardc::check
