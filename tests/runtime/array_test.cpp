// Sharded arrays: from_host cuts the global array into blocks, to_host reassembles it.
#include <gtest/gtest.h>

#include <numeric>

#include "shard/shard.h"

namespace shard {
namespace {

std::vector<std::int32_t> iota(std::int64_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(Array, BlocksFollowTheSharding) {
  Runtime rt{8};
  const Mesh mesh({{"dp", 4}, {"tp", 2}});
  const ArrayType type(DType::i32, {8, 6}, Sharding(mesh, {{"dp"}, {"tp"}}));
  const Array a = Array::from_host(rt, type, iota(48));
  // Device 3 = (dp 1, tp 1): rows 2..4, columns 3..6.
  const Tensor& b = a.block(3);
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(std::vector<std::int32_t>(b.as<std::int32_t>(), b.as<std::int32_t>() + 6),
            (std::vector<std::int32_t>{15, 16, 17, 21, 22, 23}));
  EXPECT_EQ(a.to_host<std::int32_t>(), iota(48));
}

TEST(Array, RoundTripsEveryShardingOfA3dArray) {
  Runtime rt{8};
  const Mesh mesh({{"a", 2}, {"b", 2}, {"c", 2}});
  const std::vector<std::vector<DimAxes>> specs = {
      {{}, {}, {}}, {{"a"}, {}, {}}, {{}, {"c", "a"}, {}}, {{"b"}, {"a"}, {"c"}}, {{"a", "b", "c"}, {}, {}}, {{}, {}, {"c", "b"}}};
  for (const auto& spec : specs) {
    const ArrayType type(DType::i32, {8, 4, 4}, Sharding(mesh, spec));
    SCOPED_TRACE(type.to_string());
    const Array a = Array::from_host(rt, type, iota(128));
    EXPECT_EQ(a.to_host<std::int32_t>(), iota(128));
  }
}

TEST(Array, ReplicatedBlocksAreCopiesAndSubMeshesUseTheirDevices) {
  Runtime rt{8};
  const Mesh student({{"dp", 4}}, 4);
  const ArrayType type(DType::f32, {4, 2}, Sharding(student, {{}, {}}));
  const std::vector<float> host{1, 2, 3, 4, 5, 6, 7, 8};
  const Array a = Array::from_host(rt, type, host);
  for (int d = 4; d < 8; ++d) EXPECT_TRUE(a.block(d).same_bytes(a.block(4)));
  EXPECT_THROW(a.block(0), ArgumentError);
  EXPECT_FALSE(a.addressable(0));
  EXPECT_EQ(a.to_host<float>(), host);
}

TEST(Array, ChecksHostSizesBlocksAndDevices) {
  Runtime rt{4};
  const Mesh mesh({{"x", 4}});
  const ArrayType type(DType::f32, {8}, Sharding(mesh, {{"x"}}));
  EXPECT_THROW(Array::from_host(rt, type, std::vector<float>(7)), ArgumentError);
  EXPECT_THROW(Array::from_host(rt, type, std::vector<double>(8)), ArgumentError);
  Array a = Array::zeros(rt, type);
  EXPECT_THROW(a.set_block(1, Tensor(DType::f32, {3})), ShapeError);
  EXPECT_THROW(a.set_block(1, Tensor(DType::i32, {2})), ShapeError);
  a.set_block(1, Tensor::from_bytes(DType::f32, {2}, std::vector<float>{5, 6}.data()));
  EXPECT_EQ(a.to_host<float>(), (std::vector<float>{0, 0, 5, 6, 0, 0, 0, 0}));
  const Runtime small{2};
  EXPECT_THROW(Array::zeros(small, type), ArgumentError);  // the mesh needs 4 devices
  // The untyped forms cannot check a size, but a null pointer they can (not for an empty array).
  EXPECT_THROW(Array::from_host(rt, type, static_cast<const void*>(nullptr)), ArgumentError);
  EXPECT_THROW(a.to_host(static_cast<void*>(nullptr)), ArgumentError);
  const ArrayType empty(DType::f32, {0}, Sharding(mesh, {{"x"}}));
  Array::from_host(rt, empty, static_cast<const void*>(nullptr)).to_host(static_cast<void*>(nullptr));
  // A block replaced through block() skips set_block's check; to_host must not read past it.
  a.block(2) = Tensor(DType::f32, {1});
  EXPECT_THROW(a.check_blocks(), ShapeError);
  EXPECT_THROW(a.to_host<float>(), ShapeError);
}

TEST(Array, ShapesBeyondInt64OrTheAddressSpaceAreShapeErrors) {
  const Mesh mesh({{"x", 2}});
  constexpr std::int64_t k2to32 = std::int64_t{1} << 32;
  // 2^64 elements wrapped to 0, and from_host then took an empty vector for them.
  EXPECT_THROW(ArrayType(DType::f32, {k2to32, k2to32}, Sharding(mesh, {{"x"}, {}})), ShapeError);
  EXPECT_THROW(shape_numel({k2to32, k2to32}), ShapeError);
  EXPECT_EQ(shape_numel({k2to32, k2to32, 0}), 0);  // a zero-size dimension still makes it empty
  EXPECT_EQ(shape_numel({0, k2to32, k2to32}), 0);
  // 2^62 f32 elements fit int64 but take 2^64 bytes: the byte count wrapped to 0.
  EXPECT_THROW(Tensor(DType::f32, {std::int64_t{1} << 62}), ShapeError);
}

TEST(Array, HostVectorsMustHoldTheDtypesElements) {
  // Same size, other kind: an int vector for f32 (or float for i32) used to be reinterpreted.
  Runtime rt{2};
  const Mesh mesh({{"x", 2}});
  const ArrayType f32(DType::f32, {4}, Sharding(mesh, {{"x"}}));
  const ArrayType i32(DType::i32, {4}, Sharding(mesh, {{"x"}}));
  const ArrayType i64(DType::i64, {4}, Sharding(mesh, {{"x"}}));
  const ArrayType boolean(DType::boolean, {4}, Sharding(mesh, {{"x"}}));
  EXPECT_THROW(Array::from_host(rt, f32, std::vector<int>(4)), ArgumentError);
  EXPECT_THROW(Array::from_host(rt, i32, std::vector<float>(4)), ArgumentError);
  EXPECT_THROW(Array::from_host(rt, i64, std::vector<double>(4)), ArgumentError);
  const Array a = Array::from_host(rt, f32, std::vector<float>{1, 2, 3, 4});
  EXPECT_THROW(a.to_host<std::int32_t>(), ArgumentError);
  EXPECT_EQ(a.to_host<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(Array::from_host(rt, i32, std::vector<std::uint32_t>{1, 2, 3, 4}).to_host<std::int32_t>(),
            (std::vector<std::int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(Array::from_host(rt, i64, std::vector<std::int64_t>{-1, 2, 3, 4}).to_host<std::int64_t>()[0], -1);
  EXPECT_EQ(Array::from_host(rt, boolean, std::vector<std::uint8_t>{1, 0, 1, 0}).to_host<std::uint8_t>()[2], 1);
}

TEST(Array, FromBlocksTakesTheBlocksItIsGiven) {
  Runtime rt{8};
  const Mesh mesh({{"x", 4}}, 4);  // devices 4..7
  const ArrayType type(DType::f32, {8}, Sharding(mesh, {{"x"}}));
  std::vector<Tensor> blocks;
  for (int i = 0; i < 4; ++i)
    blocks.push_back(Tensor::from_bytes(DType::f32, {2}, std::vector<float>{2.0f * i, 2.0f * i + 1}.data()));
  const void* first = blocks[0].data();
  const Array a = Array::from_blocks(rt, type, std::move(blocks));
  EXPECT_EQ(a.block(4).data(), first);  // moved in, not copied
  EXPECT_EQ(a.to_host<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(a.addressable(0));
}

TEST(Array, FromBlocksChecksCountDtypeAndShape) {
  Runtime rt{4};
  const Mesh mesh({{"x", 4}});
  const ArrayType type(DType::f32, {8}, Sharding(mesh, {{"x"}}));
  auto blocks = [](DType dtype, Shape shape, int n) {
    std::vector<Tensor> v;
    for (int i = 0; i < n; ++i) v.emplace_back(dtype, shape);
    return v;
  };
  EXPECT_THROW(Array::from_blocks(rt, type, blocks(DType::f32, {2}, 3)), ArgumentError);
  EXPECT_THROW(Array::from_blocks(rt, type, blocks(DType::f32, {4}, 4)), ShapeError);
  EXPECT_THROW(Array::from_blocks(rt, type, blocks(DType::i32, {2}, 4)), ShapeError);
  std::vector<Tensor> one_wrong = blocks(DType::f32, {2}, 4);
  one_wrong[3] = Tensor(DType::f32, {3});
  try {
    Array::from_blocks(rt, type, std::move(one_wrong));
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("device 3's block"), std::string::npos) << e.what();
  }
}

TEST(Tensor, IsAlignedAndCopiesByValue) {
  Tensor t(DType::bf16, {3, 5});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.nbytes(), 30u);
  t.as<std::uint16_t>()[4] = 7;
  Tensor u = t;
  u.as<std::uint16_t>()[4] = 9;
  EXPECT_EQ(t.as<std::uint16_t>()[4], 7);
  EXPECT_THROW(t.as<float>(), ArgumentError);
  EXPECT_THROW(Tensor(DType::f32, {2, -1}), ShapeError);
  EXPECT_THROW(std::move(u).reshaped({4, 4}), ShapeError);
  EXPECT_EQ(Tensor(DType::i64, {}).numel(), 1);
}

// A moved-from Tensor is the empty one: copying it, assigning it and checking it are safe.
TEST(Tensor, MovedFromIsEmpty) {
  Tensor a(DType::i32, {4});
  Tensor b = std::move(a);
  EXPECT_EQ(b.numel(), 4);
  // NOLINTBEGIN(bugprone-use-after-move): what this test is about
  EXPECT_EQ(a.numel(), 0);
  EXPECT_EQ(a.shape(), (Shape{0}));
  EXPECT_EQ(a.data(), nullptr);
  const Tensor copy = a;
  EXPECT_EQ(copy.numel(), 0);
  Tensor same_size(DType::f32, {0});
  same_size = a;
  EXPECT_EQ(same_size.nbytes(), 0u);
  Tensor c(DType::i32, {3});
  c = std::move(b);
  EXPECT_EQ(c.numel(), 4);
  EXPECT_EQ(b.numel(), 0);
  // NOLINTEND(bugprone-use-after-move)
}

// A scalar block moved out of an Array no longer looks like a scalar block: the checks that
// every generated call and to_host run catch it.
TEST(Array, ABlockMovedOutIsCaughtByTheBlockCheck) {
  Runtime rt{4};
  const Mesh mesh({{"x", 4}});
  const ArrayType scalar(DType::f32, {}, Sharding(mesh, {}));
  Array a = Array::from_host(rt, scalar, std::vector<float>{3.0f});
  const Tensor taken = std::move(a.block(0));
  EXPECT_EQ(taken.numel(), 1);
  try {
    a.check_blocks();
    ADD_FAILURE() << "a moved-from block passed the check";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("was it moved from?"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.to_host<float>(), ShapeError);
}

TEST(Array, MovedFromArrayIsAnErrorNotACrash) {
  Runtime rt{4};
  const Mesh mesh({{"x", 4}});
  const ArrayType type(DType::i32, {8}, Sharding(mesh, {{"x"}}));
  Array a = Array::from_host(rt, type, iota(8));
  Array b = std::move(a);
  EXPECT_FALSE(a.holds_blocks());  // NOLINT(bugprone-use-after-move): what this test is about
  EXPECT_FALSE(a.addressable(0));
  EXPECT_THROW(a.block(0), ArgumentError);
  EXPECT_THROW(a.to_host<std::int32_t>(), ArgumentError);
  EXPECT_THROW(a.set_block(0, Tensor(DType::i32, {2})), ArgumentError);
  try {
    a.block(1);
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("moved from"), std::string::npos) << e.what();
  }
  EXPECT_EQ(b.to_host<std::int32_t>(), iota(8));
  a = b;  // assigning a value makes it usable again
  EXPECT_EQ(a.to_host<std::int32_t>(), iota(8));
}

}  // namespace
}  // namespace shard
