// The design check of issue 3: hand-written C++ of the shape the code generator will emit, for
// seed 002's explicit matmul with its reshards and LANGUAGE.md's collective matmul, checked
// against one matmul of the whole problem.
#include <gtest/gtest.h>

#include <cmath>

#include "shard/kernels/data_movement.h"
#include "shard/kernels/matmul.h"
#include "shard/random.h"
#include "shard/shard.h"

namespace shard {
namespace {

// jax.random.normal(key, shape) for the block of `device` under `type`: what the generated code
// does for `let x = normal(key(0), f32[1024@dp, 4096])`, each device computing only its block.
Tensor normal_block(random::Key key, const ArrayType& type, int device) {
  Tensor t = Tensor::uninitialized(type.dtype, type.block_shape());
  random::normal(key, type.dtype,
                 random::Block{type.shape, type.sharding.block_offset(type.shape, device), type.block_shape()}, t.data());
  return t;
}

// The whole problem on one thread: the reference.
std::vector<float> full_matmul(Runtime& rt, const ArrayType& xt, random::Key kx, const ArrayType& wt, random::Key kw) {
  const Mesh one({{"all", 1}});
  const ArrayType x1(xt.dtype, xt.shape, Sharding::replicated(one, 2));
  const ArrayType w1(wt.dtype, wt.shape, Sharding::replicated(one, 2));
  std::vector<float> out(static_cast<std::size_t>(xt.shape[0] * wt.shape[1]));
  rt.run(one, [&](Device& dev) {
    const Tensor x = normal_block(kx, x1, 0), w = normal_block(kw, w1, 0);
    Tensor y(DType::f32, {xt.shape[0], wt.shape[1]});
    kernels::matmul(dev.kernels(), view(x), view(w), mut_view(y));
    std::memcpy(out.data(), y.data(), y.nbytes());
  });
  return out;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-3f + 1e-5f * std::fabs(want[i]))) ++bad;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ";
}

// seed 002: y = x @ w with x: f32[1024@dp,4096], w: f32[4096,256@tp] on [dp:4, tp:2], giving
// f32[1024@dp,256@tp] without communication; then reshard(y, P()) and reshard(y, P('tp','dp')).
TEST(DesignCheck, Seed002ExplicitMatmulAndReshards) {
  Runtime rt{8};
  const Mesh mesh({{"dp", 4}, {"tp", 2}});
  const ArrayType x_type(DType::f32, {1024, 4096}, Sharding(mesh, {{"dp"}, {}}));
  const ArrayType w_type(DType::f32, {4096, 256}, Sharding(mesh, {{}, {"tp"}}));
  const ArrayType y_type(DType::f32, {1024, 256}, Sharding(mesh, {{"dp"}, {"tp"}}));
  const ArrayType rep_type(DType::f32, {1024, 256}, Sharding(mesh, {{}, {}}));
  const ArrayType tpdp_type(DType::f32, {1024, 256}, Sharding(mesh, {{"tp"}, {"dp"}}));
  EXPECT_EQ(y_type.to_string(), "float32[1024@dp,256@tp]");
  EXPECT_EQ(tpdp_type.to_string(), "float32[1024@tp,256@dp]");
  const random::Key kx = random::key(0), kw = random::key(1);

  Array y = Array::zeros(rt, y_type), y_rep = Array::zeros(rt, rep_type), y_tpdp = Array::zeros(rt, tpdp_type);
  rt.run(mesh, [&](Device& dev) {
    const Tensor x = normal_block(kx, x_type, dev.id());  // f32[256,4096]{dp}
    const Tensor w = normal_block(kw, w_type, dev.id());  // f32[4096,128]{tp}
    Tensor& yb = y.block(dev.id());                        // f32[256,128]{dp,tp}
    kernels::matmul(dev.kernels(), view(x), view(w), mut_view(yb));
    // reshard(y, P()): all-gather the tp pieces of dim 1, then the dp pieces of dim 0.
    const Tensor cols = all_gather(dev, yb, "tp", 1, true);  // f32[256,256]{dp}
    all_gather(dev, cols, "dp", 0, true, y_rep.block(dev.id()));
    // reshard(y, P('tp','dp')): with all columns here, an all-to-all over dp sends column chunk
    // j to dp=j and stacks the rows: f32[1024,64]; the rows of this tp index are a local slice.
    const Tensor by_dp = all_to_all(dev, cols, "dp", 1, 0, true);
    const std::int64_t rows = 1024 / dev.axis_size("tp");
    kernels::dynamic_slice(view(by_dp), {dev.axis_index("tp") * rows, 0}, mut_view(y_tpdp.block(dev.id())));
  });

  const std::vector<float> want = full_matmul(rt, x_type, kx, w_type, kw);
  expect_close(y.to_host<float>(), want, "y");
  EXPECT_EQ(y_rep.to_host<float>(), y.to_host<float>());   // the seed asserts y == y_resharded
  EXPECT_EQ(y_tpdp.to_host<float>(), y.to_host<float>());  // and y_resharded == y_resharded_2
  for (int d = 1; d < 8; ++d) EXPECT_TRUE(y_rep.block(d).same_bytes(y_rep.block(0)));
}

// LANGUAGE.md's collective_matmul on g = [X: 2, Y: 4]: lhs f32[M@X, K@Y] @ rhs f32[K, N@Y] ->
// f32[M@X, N@Y], the lhs blocks travelling round the Y ring while each device multiplies the
// matching rows of its rhs block; the next ppermute is started before the matmul so that the
// two overlap.
TEST(DesignCheck, CollectiveMatmulWithOverlappedRingShift) {
  Runtime rt{8};
  const Mesh g({{"X", 2}, {"Y", 4}});
  const std::int64_t M = 256, K = 512, N = 1024;
  const ArrayType lhs_type(DType::f32, {M, K}, Sharding(g, {{"X"}, {"Y"}}));
  const ArrayType rhs_type(DType::f32, {K, N}, Sharding(g, {{}, {"Y"}}));
  const ArrayType out_type(DType::f32, {M, N}, Sharding(g, {{"X"}, {"Y"}}));
  const random::Key kl = random::key(3), kr = random::key(4);
  Array out = Array::zeros(rt, out_type);
  rt.run(g, [&](Device& dev) {
    const int n = dev.axis_size("Y");
    const int i0 = dev.axis_index("Y");
    const std::int64_t chunk = K / n;
    const Tensor rhs = normal_block(kr, rhs_type, dev.id());  // f32[K, N/4]
    Tensor& acc = out.block(dev.id());                         // f32[M/2, N/4], zeros
    Tensor l = normal_block(kl, lhs_type, dev.id());           // f32[M/2, K/4]
    for (int i = 0; i < n; ++i) {
      Pending next;
      if (i < n - 1) next = start_ppermute_shift(dev, l, "Y", -1);
      const auto rows = view(rhs).sliced(0, ((i0 + i) % n) * chunk, chunk);
      kernels::matmul(dev.kernels(), view(l), rows, mut_view(acc), {.accumulate = true});
      if (i < n - 1) l = next.wait();
    }
  });
  expect_close(out.to_host<float>(), full_matmul(rt, lhs_type, kl, rhs_type, kr), "collective matmul");
}

}  // namespace
}  // namespace shard
