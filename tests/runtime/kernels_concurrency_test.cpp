// Several device threads, each with its own Context, run every oneDNN-backed kernel on the same
// shapes at once (sharing the process-wide primitive cache) and get the single-thread results.
#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <thread>

#include "kernels_test_util.h"
#include "shard/kernels/elementwise.h"
#include "shard/kernels/matmul.h"
#include "shard/kernels/reduce.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;

namespace {

// One device's work: every oneDNN path once, on inputs of its own. Returns the outputs.
std::vector<Array> run_all(sk::Context& ctx, const Array& a, const Array& b, const Array& w) {
  std::vector<Array> out;
  out.emplace_back(DType::f32, a.shape);
  sk::unary(ctx, sk::UnaryOp::tanh, a.view(), out.back().mut());
  out.emplace_back(DType::f32, a.shape);
  sk::binary(ctx, sk::BinaryOp::mul, a.view(), b.view(), out.back().mut());
  out.emplace_back(DType::f32, kt::Shape{a.shape[0]});
  sk::reduce(ctx, sk::ReduceOp::sum, a.view(), {1}, out.back().mut());
  out.emplace_back(DType::f32, a.shape);
  sk::softmax(ctx, a.view(), 1, out.back().mut());
  out.emplace_back(DType::f32, kt::Shape{a.shape[0], w.shape[1]});
  sk::matmul(ctx, a.view(), w.view(), out.back().mut());
  return out;
}

}  // namespace

TEST(KernelsConcurrency, DeviceThreadsGetTheSingleThreadResults) {
  constexpr int kThreads = 4;
  std::mt19937 rng(40);
  std::vector<Array> as, bs, ws;
  for (int t = 0; t < kThreads; ++t) {
    as.emplace_back(DType::f32, kt::Shape{64, 96});
    bs.emplace_back(DType::f32, kt::Shape{96});
    ws.emplace_back(DType::f32, kt::Shape{96, 48});
    kt::randomize(as.back(), rng);
    kt::randomize(bs.back(), rng);
    kt::randomize(ws.back(), rng);
  }
  std::vector<std::vector<Array>> want;
  {
    sk::Context ctx;
    for (int t = 0; t < kThreads; ++t) want.push_back(run_all(ctx, as[t], bs[t], ws[t]));
  }
  std::vector<std::vector<Array>> got(kThreads);
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      sk::Context ctx;
      start.arrive_and_wait();  // all threads hit the kernels together
      for (int rep = 0; rep < 3; ++rep) got[t] = run_all(ctx, as[t], bs[t], ws[t]);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), want[t].size());
    for (std::size_t k = 0; k < want[t].size(); ++k) {
      EXPECT_EQ(std::memcmp(got[t][k].bytes.data(), want[t][k].bytes.data(), want[t][k].bytes.size()), 0)
          << "thread " << t << " output " << k;
    }
  }
}
