// Meshes, shardings and array types: device numbering, block shapes and offsets, JAX notation.
#include <gtest/gtest.h>

#include "shard/errors.h"
#include "shard/group.h"
#include "shard/mesh.h"
#include "shard/sharding.h"

namespace shard {
namespace {

Mesh dp_tp() { return Mesh({{"dp", 4}, {"tp", 2}}); }

TEST(Mesh, NumbersDevicesRowMajor) {
  const Mesh m = dp_tp();
  EXPECT_EQ(m.size(), 8);
  EXPECT_EQ(m.device_at({1, 0}), 2);
  EXPECT_EQ(m.device_at({3, 1}), 7);
  EXPECT_EQ(m.coords(5), (std::vector<int>{2, 1}));
  EXPECT_EQ(m.to_string(), "[dp: 4, tp: 2]");
}

TEST(Mesh, SubMeshOverDeviceRange) {
  const Mesh student({{"dp", 4}}, 4);
  EXPECT_EQ(student.first_device(), 4);
  EXPECT_EQ(student.end_device(), 8);
  EXPECT_TRUE(student.contains(7));
  EXPECT_FALSE(student.contains(3));
  EXPECT_EQ(student.coords(6), (std::vector<int>{2}));
  EXPECT_EQ(student.to_string(), "[dp: 4] devices 4..8");
  EXPECT_THROW(student.coords(2), ArgumentError);
}

TEST(Mesh, RejectsBadAxes) {
  EXPECT_THROW(Mesh({{"x", 2}, {"x", 2}}), ArgumentError);
  EXPECT_THROW(Mesh({{"x", 0}}), ArgumentError);
  EXPECT_THROW(Mesh({{"", 2}}), ArgumentError);
  EXPECT_THROW(dp_tp().axis_position("sp"), ArgumentError);
}

TEST(Mesh, RejectsDeviceIdsBeyondInt) {
  // 65536 x 65536 devices wrapped to a size of 0 (and a call on it waited for ever); a range
  // ending past the largest int made a negative end that every device check passed.
  EXPECT_THROW(Mesh({{"a", 65536}, {"b", 65536}}), ArgumentError);
  EXPECT_THROW(Mesh({{"a", 4}}, 2147483646), ArgumentError);
  EXPECT_EQ(Mesh({{"a", 2}}, 2147483645).end_device(), 2147483647);
}

// Positions and dimensions out of range are errors that say so, never a crash or a bare
// std::out_of_range.
TEST(Mesh, PositionsOutOfRangeAreArgumentErrors) {
  const Mesh mesh({{"dp", 4}, {"tp", 2}});
  EXPECT_THROW(mesh.coord(0, 7), ArgumentError);
  EXPECT_THROW(mesh.coord(0, -1), ArgumentError);
  EXPECT_EQ(mesh.coord(5, 1), 1);
  const Sharding sharding(mesh, {{"dp"}, {}});
  EXPECT_THROW(sharding.split_count(5), ArgumentError);
  EXPECT_THROW(sharding.piece_index(3, 0), ArgumentError);
  EXPECT_THROW(sharding.piece_index(0, 9), ArgumentError);
  EXPECT_EQ(sharding.split_count(0), 4);
  const Tensor t(DType::f32, {2, 3});
  EXPECT_THROW(t.dim(2), ArgumentError);
  EXPECT_THROW(t.dim(-1), ArgumentError);
  EXPECT_EQ(t.dim(1), 3);
}

TEST(Mesh, MovingCopies) {
  // A moved-from mesh keeps its axes: a moved-from Array's sharding still describes itself.
  Mesh a({{"x", 4}}, 2);
  Mesh b = std::move(a);
  EXPECT_EQ(a, b);  // NOLINT(bugprone-use-after-move): what this test is about
  EXPECT_EQ(a.size(), 4);
}

TEST(Sharding, BlockShapesAndOffsets) {
  const Sharding s(dp_tp(), {{"dp"}, {}});
  const Shape global{1024, 4096};
  EXPECT_EQ(s.block_shape(global), (Shape{256, 4096}));
  EXPECT_EQ(s.block_offset(global, 5), (Shape{512, 0}));  // device 5 = (dp 2, tp 1)
  EXPECT_FALSE(s.is_primary_replica(5));
  EXPECT_TRUE(s.is_primary_replica(4));
}

TEST(Sharding, MultiAxisDimensionIsLinearisedMajorFirst) {
  const Sharding s(dp_tp(), {{"tp", "dp"}});
  // P(("tp","dp")): piece = tp * 4 + dp.
  EXPECT_EQ(s.block_offset({8}, 1), (Shape{4}));  // device 1 = (dp 0, tp 1)
  EXPECT_EQ(s.block_offset({8}, 2), (Shape{1}));  // device 2 = (dp 1, tp 0)
  EXPECT_EQ(s.type_string(DType::i32, {8}), "int32[8@(tp,dp)]");
}

TEST(Sharding, PrintsJaxNotation) {
  const Sharding s(dp_tp(), {{"dp"}, {}});
  EXPECT_EQ(s.type_string(DType::f32, {1024, 4096}), "float32[1024@dp,4096]");
  EXPECT_EQ(Sharding(dp_tp(), {{}, {"tp"}}).type_string(DType::f32, {4096, 256}), "float32[4096,256@tp]");
  EXPECT_EQ(Sharding::replicated(dp_tp(), 2).type_string(DType::bf16, {16, 4}), "bfloat16[16,4]");
}

TEST(Sharding, RejectsIndivisibleShapesAndReusedAxes) {
  const Sharding s(dp_tp(), {{"dp"}});
  EXPECT_THROW(s.block_shape({10}), ShapeError);
  try {
    ArrayType(DType::f32, {10}, s);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("not evenly divisible"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Sharding(dp_tp(), {{"dp"}, {"dp"}}), ArgumentError);
  EXPECT_THROW(Sharding(dp_tp(), {{"sp"}}), ArgumentError);
}

TEST(Group, LinearisesInTheOrderGiven) {
  const Mesh m = dp_tp();
  // JAX's axis_index(('dp','tp')) on (4,2) = dp*2+tp; ('tp','dp') = tp*4+dp.
  EXPECT_EQ(axes_index(m, {"dp", "tp"}, 5), 5);
  EXPECT_EQ(axes_index(m, {"tp", "dp"}, 5), 6);
  const Group g = make_group(m, {"tp", "dp"}, 5);
  EXPECT_EQ(g.members, (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(g.rank, 6);
  const Group dp = make_group(m, {"dp"}, 5);
  EXPECT_EQ(dp.members, (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(dp.rank, 2);
  const Group none = make_group(m, Axes{}, 5);
  EXPECT_EQ(none.members, (std::vector<int>{5}));
  EXPECT_THROW(make_group(m, {"dp", "dp"}, 0), ArgumentError);
  EXPECT_EQ(axes_size(m, {"tp", "dp"}), 8);
}

// The language allows 16 mesh axes, so a collective may name all of them (it stopped at 8).
TEST(Group, TakesSixteenAxesInTheOrderGiven) {
  std::vector<MeshAxis> axes;
  std::vector<std::string> names;
  for (int i = 0; i < 16; ++i) {
    names.push_back("a" + std::to_string(i));
    axes.push_back({names.back(), i < 14 ? 1 : 2});
  }
  const Mesh m(axes);
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  const Group g = make_group(m, Axes(reversed), 1);  // a15 major: device 1 (a15 = 1) is rank 2
  EXPECT_EQ(g.members, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(g.rank, 2);
  names.push_back("a16");
  EXPECT_THROW(Axes{names}, ArgumentError);
}

}  // namespace
}  // namespace shard
