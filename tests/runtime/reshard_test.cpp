// reshard against a naive element-by-element reference: random pairs of shardings on meshes of
// 1..8 devices (sub-meshes included), every dtype, the synchronous and the asynchronous form.
// Replicas of a replicated source hold different values here, so the tests also pin down which
// holder each device reads (the one sharing its coordinates on the axes `from` does not name).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>

#include "naive_collectives.h"

namespace shard::test {
namespace {

using Dims = std::vector<std::vector<std::string>>;  // per dimension, the axes it is split over

int split_count(const NaiveMesh& m, const std::vector<std::string>& axes) {
  int n = 1;
  for (const auto& a : axes) n *= m.sizes[m.pos(a)];
  return n;
}

// The piece of a dimension split over `axes` that the device with coordinates `c` holds.
int piece(const NaiveMesh& m, const std::vector<std::string>& axes, const std::vector<int>& c) {
  int p = 0;
  for (const auto& a : axes) p = p * m.sizes[m.pos(a)] + c[m.pos(a)];
  return p;
}

int device_at(const NaiveMesh& m, const std::vector<int>& c) {
  int d = 0;
  for (std::size_t i = 0; i < c.size(); ++i) d = d * m.sizes[i] + c[i];
  return d;
}

Shape block_shape(const NaiveMesh& m, const Shape& global, const Dims& dims) {
  Shape b = global;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] /= split_count(m, dims[i]);
  return b;
}

// Device d's block under `to`, each element read from the block under `from` of the holder that
// has the element's pieces on the axes `from` names and d's coordinates on all others.
// Devices are numbered from 0 within the mesh.
Tensor naive_reshard(const NaiveMesh& m, const Shape& global, const Dims& from, const Dims& to,
                     const std::vector<Tensor>& inputs, int d) {
  const Shape old_block = block_shape(m, global, from), new_block = block_shape(m, global, to);
  Tensor out(inputs[0].dtype(), new_block);
  const std::vector<int> mine = m.coords(d);
  for (std::int64_t f = 0; f < out.numel(); ++f) {
    const Shape local = unflatten(new_block, f);
    std::vector<int> holder = mine;
    Shape source(local.size());
    for (std::size_t i = 0; i < local.size(); ++i) {
      const std::int64_t g = piece(m, to[i], mine) * new_block[i] + local[i];
      int p = static_cast<int>(g / old_block[i]);
      source[i] = g % old_block[i];
      for (auto a = from[i].rbegin(); a != from[i].rend(); ++a) {  // the minor axis varies fastest
        const int pos = m.pos(*a);
        holder[pos] = p % m.sizes[pos];
        p /= m.sizes[pos];
      }
    }
    copy_element(inputs[device_at(m, holder)], flat_index(old_block, source), out, f);
  }
  return out;
}

Sharding make_sharding(const Mesh& mesh, const Dims& dims) {
  std::vector<DimAxes> d(dims.begin(), dims.end());
  return Sharding(mesh, d);
}

// Every axis goes to one dimension or to none, in a random order within its dimension.
Dims random_dims(std::mt19937& rng, const NaiveMesh& m, int rank) {
  Dims dims(rank);
  std::vector<std::string> names = m.names;
  std::shuffle(names.begin(), names.end(), rng);
  for (const auto& name : names) {
    const int where = static_cast<int>(rng() % (rank + 1)) - 1;
    if (where >= 0) dims[where].push_back(name);
  }
  return dims;
}

Tensor random_block(std::mt19937& rng, DType t, const Shape& shape) {
  Tensor x(t, shape);
  for (std::size_t i = 0; i < x.nbytes(); ++i) x.bytes()[i] = static_cast<std::byte>(rng());
  if (t == DType::boolean)
    for (std::int64_t i = 0; i < x.numel(); ++i) x.as<std::uint8_t>()[i] &= 1;
  return x;
}

std::string dims_string(const Dims& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    s += i ? ", " : "";
    s += "(";
    for (std::size_t j = 0; j < dims[i].size(); ++j) s += (j ? "," : "") + dims[i][j];
    s += ")";
  }
  return s + "]";
}

struct MeshCase {
  std::vector<int> sizes;
  int first_device;
};

TEST(Reshard, MatchesNaiveReferenceOnRandomShardings) {
  Runtime rt{8};
  std::mt19937 rng(20261122);
  static const std::vector<MeshCase> meshes = {{{1}, 0},    {{2}, 0},       {{3}, 0},       {{8}, 0},
                                               {{2, 2}, 0}, {{4, 2}, 0},    {{2, 4}, 0},    {{2, 3}, 0},
                                               {{2, 2}, 4}, {{2, 2, 2}, 0}, {{2, 1, 3}, 0}, {{7}, 1}};
  static const DType dtypes[] = {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean};
  static const char* names[] = {"a", "b", "c"};
  for (int trial = 0; trial < 300; ++trial) {
    const MeshCase& mc = meshes[rng() % meshes.size()];
    NaiveMesh naive;
    std::vector<MeshAxis> axes;
    for (std::size_t i = 0; i < mc.sizes.size(); ++i) {
      naive.names.push_back(names[i]);
      naive.sizes.push_back(mc.sizes[i]);
      axes.push_back({names[i], mc.sizes[i]});
    }
    const Mesh mesh(axes, mc.first_device);
    const int rank = static_cast<int>(rng() % 4);
    const Dims from = random_dims(rng, naive, rank), to = random_dims(rng, naive, rank);
    Shape global(rank);
    for (int i = 0; i < rank; ++i) {
      const int a = split_count(naive, from[i]), b = split_count(naive, to[i]);
      global[i] = std::lcm(a, b) * static_cast<std::int64_t>(trial % 29 == 0 ? 0 : 1 + rng() % 3);
    }
    const DType dtype = dtypes[rng() % 6];
    const bool async = trial % 2;
    SCOPED_TRACE("mesh " + mesh.to_string() + " " + std::string(dtype_name(dtype)) + shape_string(global) + " from " +
                 dims_string(from) + " to " + dims_string(to) + (async ? " async" : ""));
    const Sharding from_sharding = make_sharding(mesh, from), to_sharding = make_sharding(mesh, to);
    std::vector<Tensor> inputs;
    for (int d = 0; d < mesh.size(); ++d) inputs.push_back(random_block(rng, dtype, block_shape(naive, global, from)));
    std::vector<Tensor> results(mesh.size());
    rt.run(mesh, [&](Device& dev) {
      const int d = dev.id() - mesh.first_device();
      if (async) {
        Pending p = start_reshard(dev, inputs[d], global, from_sharding, to_sharding);
        results[d] = p.wait();
      } else {
        results[d] = reshard(dev, inputs[d], global, from_sharding, to_sharding);
      }
    });
    for (int d = 0; d < mesh.size(); ++d) {
      const Tensor want = naive_reshard(naive, global, from, to, inputs, d);
      ASSERT_TRUE(results[d].same_bytes(want))
          << "device " << d << ": got " << results[d].type_string() << ", want " << want.type_string();
    }
  }
}

// The case codegen lowers to reshard: [dp, tp] -> [tp, dp] on a 4x2 mesh, overlapped with other
// started collectives, and the round trip back.
TEST(Reshard, TransposedShardingRoundTripsWithOtherCollectivesInFlight) {
  Runtime rt{8};
  const Mesh mesh({{"dp", 4}, {"tp", 2}});
  const NaiveMesh naive{{"dp", "tp"}, {4, 2}};
  const Dims a = {{"dp"}, {"tp"}}, b = {{"tp"}, {"dp"}};
  const Shape global = {16, 24};
  std::mt19937 rng(5);
  std::vector<Tensor> inputs;
  for (int d = 0; d < 8; ++d) inputs.push_back(random_block(rng, DType::f32, block_shape(naive, global, a)));
  std::vector<Tensor> moved(8), back(8), summed(8);
  rt.run(mesh, [&](Device& dev) {
    const Tensor& x = inputs[dev.id()];
    Pending sum = start_psum(dev, x, {"tp"});
    Pending there = start_reshard(dev, x, global, make_sharding(mesh, a), make_sharding(mesh, b));
    summed[dev.id()] = sum.wait();
    moved[dev.id()] = there.wait();
    back[dev.id()] = reshard(dev, moved[dev.id()], global, make_sharding(mesh, b), make_sharding(mesh, a));
  });
  for (int d = 0; d < 8; ++d) {
    EXPECT_EQ(moved[d].shape(), (Shape{8, 6}));
    EXPECT_TRUE(moved[d].same_bytes(naive_reshard(naive, global, a, b, inputs, d))) << "device " << d;
    EXPECT_TRUE(back[d].same_bytes(inputs[d])) << "device " << d;
    std::vector<const Tensor*> group = {&inputs[naive.peer(d, {"tp"}, 0)], &inputs[naive.peer(d, {"tp"}, 1)]};
    EXPECT_TRUE(summed[d].same_bytes(naive_reduce(group, NaiveReduce::sum))) << "device " << d;
  }
}

// From kTeamCopyBytes per device the boxes are copied by the device's OpenMP team in slabs
// (runtime/src/device_team.h): 4 devices on 12 cores (teams of 3, so parts of unequal length),
// blocks of 1-4 MiB with odd lengths, a leading dimension of 1, and every kind of exchange.
TEST(Reshard, LargeBlocksSplitOverTheTeamMatchNaiveReference) {
  const NaiveMesh naive{{"a", "b"}, {2, 2}};
  const Mesh mesh({{"a", 2}, {"b", 2}});
  struct Case {
    Shape global;
    Dims from, to;
  };
  const Case cases[] = {
      {{4, 262146}, {{"a"}, {"b"}}, {{"b"}, {"a"}}},         // transposed sharding
      {{4, 131074}, {{"a"}, {"b"}}, {{}, {}}},                // to replicated: 2 MiB out
      {{1, 8, 131076}, {{}, {"a", "b"}, {}}, {{}, {}, {"b", "a"}}},
      {{4, 262145}, {{}, {}}, {{"a", "b"}, {}}},             // refinement: each slices its own
  };
  std::mt19937 rng(11);
  Runtime rt{4, 12};
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    ASSERT_EQ(rt.omp_threads_per_device(), 3);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(shape_string(c.global) + " from " + dims_string(c.from) + " to " + dims_string(c.to));
    std::vector<Tensor> inputs;
    for (int d = 0; d < 4; ++d) inputs.push_back(random_block(rng, DType::f32, block_shape(naive, c.global, c.from)));
    std::vector<Tensor> results(4);
    rt.run(mesh, [&](Device& dev) {
      results[dev.id()] = reshard(dev, inputs[dev.id()], c.global, make_sharding(mesh, c.from), make_sharding(mesh, c.to));
    });
    // Device 0's block is copied from several devices' blocks in every case but the refinement
    // (the reference is slow under the sanitizers).
    EXPECT_GE(std::max(inputs[0].nbytes(), results[0].nbytes()), kTeamCopyBytes);
    EXPECT_TRUE(results[0].same_bytes(naive_reshard(naive, c.global, c.from, c.to, inputs, 0)));
  }
}

// A replicated source is read from the replica sharing the reader's coordinates: with every
// replica holding its own values, each device must get back exactly its own block's rows.
TEST(Reshard, ReplicatedSourceIsReadFromTheReadersOwnReplica) {
  Runtime rt{4};
  const Mesh mesh({{"x", 2}, {"y", 2}});
  const Shape global = {4, 2};
  const Sharding from(mesh, {{"x"}, {}});        // replicated over y
  const Sharding to(mesh, {{"x", "y"}, {}});     // a refinement: every device slices its own block
  const Sharding swapped(mesh, {{"y"}, {}});     // rows over y, replicated over x
  std::vector<Tensor> inputs;
  for (int d = 0; d < 4; ++d) {
    Tensor t(DType::i32, {2, 2});
    for (int i = 0; i < 4; ++i) t.as<std::int32_t>()[i] = 100 * d + i;
    inputs.push_back(t);
  }
  std::vector<Tensor> sliced(4), moved(4);
  rt.run(mesh, [&](Device& dev) {
    sliced[dev.id()] = reshard(dev, inputs[dev.id()], global, from, to);
    moved[dev.id()] = reshard(dev, inputs[dev.id()], global, from, swapped);
  });
  for (int d = 0; d < 4; ++d) {
    const int y = d % 2;
    // Sliced: row y of this device's own block.
    EXPECT_EQ(sliced[d].as<std::int32_t>()[0], 100 * d + 2 * y);
    EXPECT_EQ(sliced[d].as<std::int32_t>()[1], 100 * d + 2 * y + 1);
    // Moved: global rows 2y, 2y+1 = block of x' = y, read from the holder with this device's y.
    const int holder = 2 * y + y;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(moved[d].as<std::int32_t>()[i], 100 * holder + i) << "device " << d;
  }
}

// Bad arguments are located errors on every device (DeviceError at the caller), never a hang.
TEST(Reshard, BadArgumentsAreClearErrors) {
  Runtime rt{8};
  const Mesh mesh({{"a", 4}, {"b", 2}});
  const Mesh other({{"a", 2}, {"b", 4}});
  auto message_of = [&](auto&& body) -> std::string {
    try {
      rt.run(mesh, body);
    } catch (const DeviceError& e) {
      return e.message();
    }
    return "no error";
  };
  const Sharding rows(mesh, {{"a"}, {}});
  const Sharding cols(mesh, {{}, {"b"}});
  auto expect_error = [&](const std::string& got, const std::string& part) {
    EXPECT_NE(got.find("reshard: "), std::string::npos) << got;
    EXPECT_NE(got.find(part), std::string::npos) << got;
  };
  // `to` over another mesh.
  expect_error(message_of([&](Device& dev) {
                 reshard(dev, Tensor(DType::f32, {2, 4}), {8, 4}, rows, Sharding(other, {{"a"}, {}}));
               }),
               "mesh [a: 2, b: 4]");
  // Both shardings over a mesh other than the call's.
  expect_error(message_of([&](Device& dev) {
                 reshard(dev, Tensor(DType::f32, {4, 4}), {8, 4}, Sharding(other, {{"a"}, {}}),
                         Sharding(other, {{}, {"b"}}));
               }),
               "this call runs on mesh [a: 4, b: 2]");
  // Rank of the global shape.
  expect_error(message_of([&](Device& dev) { reshard(dev, Tensor(DType::f32, {2, 4}), {8, 4, 1}, rows, cols); }),
               "has rank 3");
  // A shape the target sharding does not divide.
  expect_error(message_of([&](Device& dev) { reshard(dev, Tensor(DType::f32, {2, 3}), {8, 3}, rows, cols); }),
               "`to` does not fit");
  // A block that is not the source sharding's block.
  expect_error(message_of([&](Device& dev) { reshard(dev, Tensor(DType::f32, {8, 4}), {8, 4}, rows, cols); }),
               "gives every device a block of shape");
  // Devices disagreeing on the target (a non-SPMD call): an error, not a hang or a wrong copy.
  const std::string mismatch = message_of([&](Device& dev) {
    const Sharding to = dev.id() == 3 ? Sharding(mesh, {{"b"}, {"a"}}) : cols;
    reshard(dev, Tensor(DType::f32, {2, 4}), {8, 4}, rows, to);
  });
  EXPECT_TRUE(mismatch.find("disagree") != std::string::npos || mismatch.find("different collectives") != std::string::npos)
      << mismatch;
  // The runtime is still usable afterwards.
  std::vector<Tensor> ok(8);
  rt.run(mesh, [&](Device& dev) { ok[dev.id()] = reshard(dev, Tensor(DType::f32, {2, 4}), {8, 4}, rows, cols); });
  for (const Tensor& t : ok) EXPECT_EQ(t.shape(), (Shape{8, 2}));
}

}  // namespace
}  // namespace shard::test
