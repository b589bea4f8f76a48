// Randomized tests: every collective against the naive reference, over meshes of 1..8 devices,
// every subset and order of their axes, random shapes and dtypes, in all three calling forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <random>

#include "naive_collectives.h"

namespace shard::test {
namespace {

struct MeshChoice {
  NaiveMesh naive;
  Mesh mesh;
};

// Random mesh of 1..3 axes with 1..8 devices in all.
MeshChoice random_mesh(std::mt19937& rng) {
  static const std::vector<std::vector<int>> shapes = {{1}, {2}, {3}, {4}, {5}, {8}, {2, 2}, {4, 2}, {2, 4},
                                                       {2, 3}, {3, 2}, {1, 4}, {2, 2, 2}, {2, 1, 3}, {1, 2, 4}, {7}};
  const auto& sizes = shapes[rng() % shapes.size()];
  static const char* names[] = {"a", "b", "c"};
  NaiveMesh naive;
  std::vector<MeshAxis> axes;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    naive.names.push_back(names[i]);
    naive.sizes.push_back(sizes[i]);
    axes.push_back({names[i], sizes[i]});
  }
  return {naive, Mesh(axes)};
}

// A random subset of the mesh's axes in a random order (possibly empty).
std::vector<std::string> random_axes(std::mt19937& rng, const NaiveMesh& m) {
  std::vector<std::string> axes;
  for (const auto& n : m.names)
    if (rng() % 2) axes.push_back(n);
  std::shuffle(axes.begin(), axes.end(), rng);
  return axes;
}

Tensor random_tensor(std::mt19937& rng, DType t, const Shape& shape) {
  Tensor x(t, shape);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    switch (t) {
      case DType::f32: x.as<float>()[i] = std::uniform_real_distribution<float>(-100, 100)(rng); break;
      case DType::bf16: x.as<std::uint16_t>()[i] = kernels::f32_to_bf16(std::uniform_real_distribution<float>(-100, 100)(rng)); break;
      case DType::f16: x.as<std::uint16_t>()[i] = kernels::f32_to_f16(std::uniform_real_distribution<float>(-100, 100)(rng)); break;
      case DType::i32: x.as<std::int32_t>()[i] = static_cast<std::int32_t>(rng()); break;  // sums overflow: they must wrap
      case DType::i64: x.as<std::int64_t>()[i] = static_cast<std::int64_t>((std::uint64_t(rng()) << 32) | rng()); break;
      case DType::boolean: x.as<std::uint8_t>()[i] = rng() % 2; break;
    }
  }
  return x;
}

enum class Op { psum, pmax, pmin, all_gather, psum_scatter, ppermute, all_to_all, pprod };

struct Trial {
  Op op;
  DType dtype;
  std::vector<std::string> axes;
  Shape shape;
  int axis = 0, split = 0, concat = 0;
  bool tiled = false;
  Permutation perm;
};

// A shape of the given rank whose dimension `dim` suits a group of n (multiple of n, or n).
Shape random_shape(std::mt19937& rng, int rank, int dim, int n, bool exact, bool large) {
  Shape s(rank);
  for (int d = 0; d < rank; ++d) s[d] = 1 + rng() % 4;
  if (large && rank > 0) s[rank - 1] = 3000 + rng() % 3000;  // > 32 KiB: the split all_reduce path
  if (dim >= 0) s[dim] = exact ? n : n * (1 + rng() % 3);
  return s;
}

Trial random_trial(std::mt19937& rng, const NaiveMesh& m) {
  Trial t;
  t.op = static_cast<Op>(rng() % 8);
  static const DType dtypes[] = {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean};
  t.dtype = dtypes[rng() % 6];
  t.axes = random_axes(rng, m);
  const int n = m.group_size(t.axes);
  const bool large = rng() % 8 == 0;
  t.tiled = rng() % 2;
  switch (t.op) {
    case Op::psum:
    case Op::pmax:
    case Op::pmin:
    case Op::pprod:
    case Op::ppermute: {
      t.shape = random_shape(rng, rng() % 4, -1, n, false, large);
      if (t.op == Op::ppermute) {
        std::vector<int> dst(n);
        for (int i = 0; i < n; ++i) dst[i] = i;
        std::shuffle(dst.begin(), dst.end(), rng);
        for (int i = 0; i < n; ++i)
          if (rng() % 4) t.perm.push_back({i, dst[i]});  // some ranks send nothing: zeros arrive
      }
      break;
    }
    case Op::all_gather: {
      const int rank = (t.tiled ? 1 : 0) + rng() % 3;
      t.shape = random_shape(rng, rank, -1, n, false, large);
      t.axis = rng() % (t.tiled ? rank : rank + 1);
      break;
    }
    case Op::psum_scatter: {
      const int rank = 1 + rng() % 3;
      t.axis = rng() % rank;
      t.shape = random_shape(rng, rank, t.axis, n, !t.tiled, large);
      break;
    }
    case Op::all_to_all: {
      const int rank = 1 + rng() % 3;
      t.split = rng() % rank;
      t.concat = rng() % rank;
      t.shape = random_shape(rng, rank, t.split, n, !t.tiled, false);
      break;
    }
  }
  return t;
}

Tensor naive_result(const Trial& t, const NaiveMesh& m, const std::vector<Tensor>& inputs, int d) {
  const int n = m.group_size(t.axes);
  std::vector<const Tensor*> ins(n);
  for (int k = 0; k < n; ++k) ins[k] = &inputs[m.peer(d, t.axes, k)];
  const int r = m.rank(d, t.axes);
  switch (t.op) {
    case Op::psum: return naive_reduce(ins, NaiveReduce::sum);
    case Op::pmax: return naive_reduce(ins, NaiveReduce::max);
    case Op::pmin: return naive_reduce(ins, NaiveReduce::min);
    case Op::pprod: return naive_reduce(ins, NaiveReduce::prod);
    case Op::all_gather: return naive_all_gather(ins, t.axis, t.tiled);
    case Op::psum_scatter: return naive_psum_scatter(ins, r, t.axis, t.tiled);
    case Op::all_to_all: return naive_all_to_all(ins, r, t.split, t.concat, t.tiled);
    case Op::ppermute:
      for (const auto& [src, dst] : t.perm)
        if (dst == r) return *ins[src];
      return Tensor(t.dtype, t.shape);
  }
  return {};
}

Tensor run_op(Device& dev, const Trial& t, const Tensor& x, int form) {
  const Axes axes(t.axes);
  if (form == 2) {  // async
    Pending p;
    switch (t.op) {
      case Op::psum: p = start_psum(dev, x, axes); break;
      case Op::pmax: p = start_pmax(dev, x, axes); break;
      case Op::pmin: p = start_pmin(dev, x, axes); break;
      case Op::pprod: p = start_pprod(dev, x, axes); break;
      case Op::all_gather: p = start_all_gather(dev, x, axes, t.axis, t.tiled); break;
      case Op::psum_scatter: p = start_psum_scatter(dev, x, axes, t.axis, t.tiled); break;
      case Op::ppermute: p = start_ppermute(dev, x, axes, t.perm); break;
      case Op::all_to_all: p = start_all_to_all(dev, x, axes, t.split, t.concat, t.tiled); break;
    }
    return p.wait();
  }
  switch (t.op) {
    case Op::psum: return psum(dev, x, axes);
    case Op::pmax: return pmax(dev, x, axes);
    case Op::pmin: return pmin(dev, x, axes);
    case Op::pprod: return pprod(dev, x, axes);
    case Op::all_gather: return all_gather(dev, x, axes, t.axis, t.tiled);
    case Op::psum_scatter: return psum_scatter(dev, x, axes, t.axis, t.tiled);
    case Op::ppermute: return ppermute(dev, x, axes, t.perm);
    case Op::all_to_all: return all_to_all(dev, x, axes, t.split, t.concat, t.tiled);
  }
  return {};
}

std::string describe(const Trial& t, const Mesh& mesh) {
  static const char* ops[] = {"psum", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all", "pprod"};
  std::string s = std::string(ops[static_cast<int>(t.op)]) + " over " + Axes(t.axes).to_string() + " of mesh " +
                  mesh.to_string() + " on " + std::string(dtype_name(t.dtype)) + shape_string(t.shape) +
                  " axis=" + std::to_string(t.axis) + " split=" + std::to_string(t.split) +
                  " concat=" + std::to_string(t.concat) + " tiled=" + std::to_string(t.tiled);
  return s;
}

TEST(CollectivesRandom, MatchNaiveReference) {
  Runtime rt{8};
  std::mt19937 rng(20261122);
  for (int trial = 0; trial < 400; ++trial) {
    const MeshChoice mc = random_mesh(rng);
    const Trial t = random_trial(rng, mc.naive);
    const int form = trial % 3;
    SCOPED_TRACE(describe(t, mc.mesh) + " form " + std::to_string(form));
    std::vector<Tensor> inputs;
    for (int d = 0; d < mc.mesh.size(); ++d) inputs.push_back(random_tensor(rng, t.dtype, t.shape));
    std::vector<Tensor> results(mc.mesh.size());
    rt.run(mc.mesh, [&](Device& dev) { results[dev.id()] = run_op(dev, t, inputs[dev.id()], form); });
    for (int d = 0; d < mc.mesh.size(); ++d) {
      const Tensor want = naive_result(t, mc.naive, inputs, d);
      ASSERT_TRUE(results[d].same_bytes(want)) << "device " << d << ": got " << results[d].type_string() << ", want "
                                               << want.type_string();
    }
  }
}

// One collective on fixed operands, for the tests of large outputs below.
struct LargeCase {
  Op op;
  DType dtype;
  Shape shape;
  int axis, split, concat;
  bool tiled;
};

// Runs `c` on every device of `mc` with random inputs and compares device 0's result with the
// reference. Returns the larger of device 0's input and result sizes in bytes.
std::size_t expect_case_matches(Runtime& rt, const MeshChoice& mc, const LargeCase& c, std::mt19937& rng) {
  Trial t;
  t.op = c.op;
  t.dtype = c.dtype;
  t.axes = mc.naive.names;
  t.shape = c.shape;
  t.axis = c.axis;
  t.split = c.split;
  t.concat = c.concat;
  t.tiled = c.tiled;
  const int n = mc.naive.group_size(t.axes);
  if (c.op == Op::ppermute)
    for (int i = 0; i < n; ++i) t.perm.push_back({i, (i + 1) % n});
  SCOPED_TRACE(describe(t, mc.mesh));
  std::vector<Tensor> inputs;
  for (int d = 0; d < mc.mesh.size(); ++d) inputs.push_back(random_tensor(rng, t.dtype, t.shape));
  std::vector<Tensor> results(mc.mesh.size());
  rt.run(mc.mesh, [&](Device& dev) { results[dev.id()] = run_op(dev, t, inputs[dev.id()], 0); });
  EXPECT_TRUE(results[0].same_bytes(naive_result(t, mc.naive, inputs, 0)));
  return std::max(inputs[0].nbytes(), results[0].nbytes());
}

// Outputs of 4 MiB and more are written with streaming stores (an ordinary copy of the
// unaligned head and the tail): odd element counts and offsets, every family, vs the reference.
// Device 0's result holds data from every device of the group (psum_scatter aside), so it is
// the one compared: the reference is slow under the sanitizers.
TEST(CollectivesRandom, LargeOutputsMatchNaiveReference) {
  Runtime rt{8};
  std::mt19937 rng(99);
  const MeshChoice meshes[] = {{NaiveMesh{{"a"}, {2}}, Mesh({{"a", 2}})},
                               {NaiveMesh{{"a", "b"}, {4, 2}}, Mesh({{"a", 4}, {"b", 2}})}};
  // Every output just over 4 MiB, with odd row lengths. On 8 devices only the split f32
  // all-reduces.
  const LargeCase cases[] = {
      {Op::psum, DType::f32, {3, 349527}, 0, 0, 0, false},
      {Op::psum, DType::bf16, {5, 419433}, 0, 0, 0, false},
      {Op::pmax, DType::f32, {1048579}, 0, 0, 0, false},
      {Op::pmin, DType::i32, {1048581}, 0, 0, 0, false},
      {Op::pprod, DType::f16, {2097169}, 0, 0, 0, false},
      {Op::psum, DType::i32, {7, 149797}, 0, 0, 0, false},
      {Op::psum_scatter, DType::f32, {2, 3, 349527}, 0, 0, 0, true},
      {Op::all_gather, DType::boolean, {2097169}, 0, 0, 0, false},
      {Op::all_to_all, DType::i32, {8, 131075}, 0, 0, 1, true},
      {Op::ppermute, DType::f32, {1048583}, 0, 0, 0, false},
  };
  for (const MeshChoice& mc : meshes)
    for (const LargeCase& c : cases) {
      if (mc.mesh.size() > 2 && !((c.op == Op::psum || c.op == Op::pmax) && c.dtype == DType::f32)) continue;
      EXPECT_GE(expect_case_matches(rt, mc, c, rng), std::size_t{4} << 20);
    }
}

// From kTeamCopyBytes per device (its larger buffer), a collective splits its copies and
// reductions over the device's OpenMP team (runtime/src/device_team.h): odd lengths, several
// outer rows, a leading dimension of 1 and a gathered dimension that is not the first, vs the
// reference (device 0's result: every device splits its own work the same way).
TEST(CollectivesRandom, OutputsSplitOverTheTeamMatchNaiveReference) {
  const LargeCase cases[] = {
      {Op::psum, DType::f32, {3, 116509}, 0, 0, 0, false},
      {Op::pmax, DType::i32, {393241}, 0, 0, 0, false},
      {Op::pprod, DType::i64, {131101}, 0, 0, 0, false},
      {Op::psum, DType::f32, {1048579}, 0, 0, 0, false},  // 4 MiB: streaming stores on every thread
      {Op::psum_scatter, DType::f32, {2, 4, 32771}, 1, 0, 0, true},
      {Op::all_gather, DType::f32, {3, 43691}, 1, 0, 0, true},
      {Op::all_gather, DType::boolean, {524309}, 0, 0, 0, false},
      {Op::all_to_all, DType::i32, {1, 8, 32771}, 0, 1, 2, true},
      {Op::all_to_all, DType::f32, {8, 32771}, 0, 0, 0, true},
      {Op::ppermute, DType::f32, {262147}, 0, 0, 0, false},
  };
  // 4 devices on 12 cores: teams of 3, so the parts are of unequal length.
  const MeshChoice mesh{NaiveMesh{{"a", "b"}, {2, 2}}, Mesh({{"a", 2}, {"b", 2}})};
  Runtime rt{4, 12};
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {  // sanitizer runs cap OpenMP at one thread
    ASSERT_EQ(rt.omp_threads_per_device(), 3);
  }
  std::mt19937 rng(2026);
  for (const LargeCase& c : cases) EXPECT_GE(expect_case_matches(rt, mesh, c, rng), kTeamCopyBytes);
}

TEST(CollectivesRandom, PmeanIsSumOverGroupSize) {
  Runtime rt{8};
  std::mt19937 rng(7);
  const Mesh mesh({{"a", 4}, {"b", 2}});
  NaiveMesh naive{{"a", "b"}, {4, 2}};
  for (const std::vector<std::string>& axes : std::vector<std::vector<std::string>>{{"a"}, {"b", "a"}, {}}) {
    std::vector<Tensor> inputs;
    for (int d = 0; d < 8; ++d) inputs.push_back(random_tensor(rng, DType::i32, {5}));
    std::vector<Tensor> results(8);
    rt.run(mesh, [&](Device& dev) { results[dev.id()] = pmean(dev, inputs[dev.id()], axes); });
    for (int d = 0; d < 8; ++d) {
      const int n = naive.group_size(axes);
      std::vector<const Tensor*> ins;
      for (int k = 0; k < n; ++k) ins.push_back(&inputs[naive.peer(d, axes, k)]);
      const Tensor sum = naive_reduce(ins, NaiveReduce::sum);
      ASSERT_EQ(results[d].dtype(), DType::f32);
      for (int i = 0; i < 5; ++i)
        EXPECT_EQ(results[d].as<float>()[i], static_cast<float>(sum.as<std::int32_t>()[i]) / static_cast<float>(n));
    }
  }
}

// Small collectives where devices share cores return after one rendezvous, with peers reading a
// staged copy of the input (inprocess_communicator.h): a device may overwrite its input as soon
// as the collective returns, while slower peers are still reading. With cores = 1 the devices
// share a core (staged); with 64 each has one (both rendezvous); results must not differ.
class SmallCollectivesReuseInputs : public ::testing::TestWithParam<int> {};

TEST_P(SmallCollectivesReuseInputs, ResultsAreUnaffectedByOverwritingInputs) {
  constexpr int kDevices = 4, kRounds = 300;
  Runtime rt{kDevices, GetParam()};
  const Mesh mesh({{"d", kDevices}});
  std::vector<int> wrong(kDevices, 0);
  rt.run(mesh, [&](Device& dev) {
    const int r = dev.id();
    Tensor x(DType::i32, {8});
    for (int round = 0; round < kRounds; ++round) {
      auto fill = [&](std::int32_t v) {
        for (int i = 0; i < 8; ++i) x.as<std::int32_t>()[i] = v;
      };
      fill(round * 10 + r);
      const Tensor gathered = all_gather(dev, x, {"d"}, 0, /*tiled=*/true);
      fill(-1);  // peers that have not finished reading must not see this
      fill(round * 10 + r);
      const Tensor sum = psum(dev, x, {"d"});
      fill(-1);
      fill(round * 10 + r);
      const Tensor shifted = ppermute_shift(dev, x, {"d"}, 1);
      fill(-1);
      for (int k = 0; k < kDevices; ++k)
        if (gathered.as<std::int32_t>()[k * 8] != round * 10 + k) ++wrong[r];
      if (sum.as<std::int32_t>()[7] != kDevices * round * 10 + 0 + 1 + 2 + 3) ++wrong[r];
      if (shifted.as<std::int32_t>()[3] != round * 10 + (r + kDevices - 1) % kDevices) ++wrong[r];
    }
  });
  for (int d = 0; d < kDevices; ++d) EXPECT_EQ(wrong[d], 0) << "device " << d;
}

INSTANTIATE_TEST_SUITE_P(Cores, SmallCollectivesReuseInputs, ::testing::Values(1, 64));

TEST(CollectivesRandom, ZeroSizeBlocksGiveEmptyResults) {
  // A zero-size dimension before (or at) the gathered or scattered one: every collective returns
  // an empty result of the right shape (all_gather and psum_scatter divided by that product).
  Runtime rt{6};
  const Mesh mesh({{"X", 2}, {"Y", 3}});
  std::vector<std::vector<Tensor>> results(6);
  rt.run(mesh, [&](Device& dev) {
    const Tensor x(DType::f32, {0, 6});
    auto& r = results[dev.id()];
    r.push_back(psum_scatter(dev, x, {"Y"}, 1, /*tiled=*/true));
    r.push_back(all_gather(dev, x, {"Y"}, 1, /*tiled=*/true));
    r.push_back(psum(dev, x, {"X", "Y"}));
    r.push_back(all_to_all(dev, x, {"Y"}, 1, 0, /*tiled=*/true));
    r.push_back(ppermute_shift(dev, x, {"X"}, 1));
  });
  for (const auto& r : results) {
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[0].shape(), (Shape{0, 2}));
    EXPECT_EQ(r[1].shape(), (Shape{0, 18}));
    EXPECT_EQ(r[2].shape(), (Shape{0, 6}));
    EXPECT_EQ(r[3].shape(), (Shape{0, 2}));
    EXPECT_EQ(r[4].shape(), (Shape{0, 6}));
  }
}

TEST(CollectivesRandom, ShiftsAsLargeAsAnIntAreReducedFirst) {
  // j + shift overflowed int (undefined behaviour) for shifts near INT_MAX / INT_MIN.
  Runtime rt{3};
  const Mesh mesh({{"X", 3}});
  std::vector<std::int32_t> up(3), down(3);
  rt.run(mesh, [&](Device& dev) {
    Tensor x(DType::i32, {1});
    x.as<std::int32_t>()[0] = dev.id();
    up[dev.id()] = ppermute_shift(dev, x, {"X"}, std::numeric_limits<int>::max()).as<std::int32_t>()[0];
    down[dev.id()] = ppermute_shift(dev, x, {"X"}, std::numeric_limits<int>::min()).as<std::int32_t>()[0];
  });
  // INT_MAX = 1 (mod 3): device j's value goes to j + 1. INT_MIN = -2 = 1 (mod 3): the same.
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(up[d], (d + 2) % 3) << "device " << d;
    EXPECT_EQ(down[d], (d + 2) % 3) << "device " << d;
  }
}

TEST(CollectivesRandom, OverlappedAsyncCollectivesOnDifferentGroups) {
  // Several started collectives outstanding at once, waited in start order, with compute between.
  Runtime rt{8};
  const Mesh mesh({{"a", 4}, {"b", 2}});
  NaiveMesh naive{{"a", "b"}, {4, 2}};
  std::mt19937 rng(3);
  std::vector<Tensor> inputs;
  for (int d = 0; d < 8; ++d) inputs.push_back(random_tensor(rng, DType::f32, {64, 129}));
  std::vector<Tensor> r1(8), r2(8), r3(8), r4(8);
  rt.run(mesh, [&](Device& dev) {
    const Tensor& x = inputs[dev.id()];
    Pending p1 = start_psum(dev, x, {"a"});
    Pending p2 = start_all_gather(dev, x, {"b"}, 1, true);
    Pending p3 = start_ppermute_shift(dev, x, {"b", "a"}, 3);
    Pending p4 = start_psum_scatter(dev, x, {"a", "b"}, 0, true);
    r1[dev.id()] = p1.wait();
    r2[dev.id()] = p2.wait();
    r3[dev.id()] = p3.wait();
    r4[dev.id()] = p4.wait();
  });
  for (int d = 0; d < 8; ++d) {
    auto group = [&](const std::vector<std::string>& axes) {
      std::vector<const Tensor*> ins;
      for (int k = 0; k < naive.group_size(axes); ++k) ins.push_back(&inputs[naive.peer(d, axes, k)]);
      return ins;
    };
    EXPECT_TRUE(r1[d].same_bytes(naive_reduce(group({"a"}), NaiveReduce::sum)));
    EXPECT_TRUE(r2[d].same_bytes(naive_all_gather(group({"b"}), 1, true)));
    const int r = naive.rank(d, {"b", "a"});
    EXPECT_TRUE(r3[d].same_bytes(*group({"b", "a"})[((r - 3) % 8 + 8) % 8]));
    EXPECT_TRUE(r4[d].same_bytes(naive_psum_scatter(group({"a", "b"}), naive.rank(d, {"a", "b"}), 0, true)));
  }
}

TEST(CollectivesRandom, TooManyOutstandingIsAnError) {
  Runtime rt{2};
  const Mesh mesh({{"a", 2}});
  EXPECT_THROW(rt.run(mesh,
                      [](Device& dev) {
                        Tensor x(DType::f32, {4});
                        std::vector<Pending> pending;
                        for (int i = 0; i < 5; ++i) pending.push_back(start_psum(dev, x, "a"));
                      }),
               DeviceError);
}

TEST(CollectivesRandom, OutputOverloadChecksItsOutput) {
  Runtime rt{2};
  const Mesh mesh({{"a", 2}});
  EXPECT_THROW(rt.run(mesh,
                      [](Device& dev) {
                        Tensor x(DType::f32, {4});
                        Tensor wrong(DType::f32, {5});
                        psum(dev, x, "a", wrong);
                      }),
               DeviceError);
  EXPECT_THROW(rt.run(mesh,
                      [](Device& dev) {
                        Tensor x(DType::f32, {4});
                        psum(dev, x, "a", x);
                      }),
               DeviceError);
}

}  // namespace
}  // namespace shard::test

namespace shard::test {
namespace {

// ragged_all_to_all's checks: a sender's size disagreeing with the receiver's recv_sizes, and
// rows outside the output, are ShapeErrors on the receiver, never out-of-bounds writes.
TEST(RaggedAllToAll, MismatchedSizesAndBoundsAreErrors) {
  Runtime rt{2};
  const Mesh mesh({{"i", 2}});
  auto sizes = [](std::int32_t a, std::int32_t b) {
    Tensor t(DType::i32, {2});
    t.as<std::int32_t>()[0] = a;
    t.as<std::int32_t>()[1] = b;
    return t;
  };
  auto attempt = [&](std::int32_t recv_from_1, std::int32_t out_offset) {
    rt.run(mesh, [&](Device& dev) {
      const Tensor operand(DType::f32, {2, 3}), output(DType::f32, {2, 3});
      // Each device sends one row to each device; device 1 writes at `out_offset` on device 0.
      const Tensor out_offsets = dev.id() == 1 ? sizes(out_offset, 1) : sizes(0, 0);
      const Tensor recv = dev.id() == 0 ? sizes(1, recv_from_1) : sizes(1, 1);
      ragged_all_to_all(dev, operand, output, sizes(0, 1), sizes(1, 1), out_offsets, recv, "i");
    });
  };
  EXPECT_NO_THROW(attempt(1, 1));
  EXPECT_THROW(attempt(2, 1), DeviceError);  // recv_sizes disagrees with what device 1 sends
  EXPECT_THROW(attempt(1, 2), DeviceError);  // row 2 of a 2-row output
}

}  // namespace
}  // namespace shard::test
