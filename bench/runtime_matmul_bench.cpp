// Sharded matmuls on mesh [dp:4, tp:2] (8 devices) against one oneDNN matmul of the whole
// problem, x[1024,4096] @ w[4096,256], on the same cores:
//   matmul/rows     f32[1024@dp,4096] @ f32[4096,256@tp]        local [256,4096]@[4096,128], no collective
//   matmul/scatter  f32[1024,4096@(dp,tp)] @ f32[4096@(dp,tp),256]
//                   local [1024,512]@[512,256] partials, then psum_scatter over (dp,tp) -> [128,256]
// Paired samples: each iteration times one sharded call (Runtime::run, launch included, from the
// caller) and one single call (shard::kernels::matmul on the caller's thread and its OpenMP team),
// alternating which goes first; the counter `ratio` is the median of the per-pair ratios
// sharded / single. The manual time is the sharded call's. Results are compared with the single
// call's after timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "runtime_fixtures.h"
#include "shard/collectives.h"
#include "shard/kernels/matmul.h"

namespace {

namespace sk = shard::kernels;
using Clock = std::chrono::steady_clock;
constexpr std::int64_t kM = 1024, kK = 4096, kN = 256;

enum class Form { rows, scatter };

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// A copy of rows [r0, r0+rows) x cols [c0, c0+cols) of a row-major matrix with `ld` columns.
shard::Tensor block(const std::vector<float>& m, std::int64_t ld, std::int64_t r0, std::int64_t rows, std::int64_t c0,
                    std::int64_t cols) {
  shard::Tensor t = shard::Tensor::uninitialized(shard::DType::f32, {rows, cols});
  float* p = t.as<float>();
  for (std::int64_t r = 0; r < rows; ++r)
    std::copy_n(m.data() + (r0 + r) * ld + c0, cols, p + r * cols);
  return t;
}

sk::View view(const shard::Tensor& t) { return sk::View::contiguous(t.data(), t.dtype(), t.shape()); }
sk::MutView mut_view(shard::Tensor& t) { return sk::MutView::contiguous(t.data(), t.dtype(), t.shape()); }

void BM_ShardedMatmul(benchmark::State& state, Form form) {
  shard::Runtime& rt = shard_bench::runtime(8);
  const shard::Mesh mesh({{"dp", 4}, {"tp", 2}});
  std::vector<float> x(kM * kK), w(kK * kN), y(kM * kN);
  for (std::int64_t i = 0; i < kM * kK; ++i) x[i] = static_cast<float>(i * 7 % 17 - 8) / 8.0f;
  for (std::int64_t i = 0; i < kK * kN; ++i) w[i] = static_cast<float>(i * 5 % 11 - 5) / 16.0f;

  // Per-device operands, results, and (scatter form) partial products.
  std::vector<shard::Tensor> xs(8), ws(8), outs(8), partials(8);
  for (int d = 0; d < 8; ++d) {
    const int dp = d / 2, tp = d % 2;
    if (form == Form::rows) {
      xs[d] = block(x, kK, dp * (kM / 4), kM / 4, 0, kK);
      ws[d] = block(w, kN, 0, kK, tp * (kN / 2), kN / 2);
      outs[d] = shard::Tensor(shard::DType::f32, {kM / 4, kN / 2});
    } else {
      xs[d] = block(x, kK, 0, kM, d * (kK / 8), kK / 8);
      ws[d] = block(w, kN, d * (kK / 8), kK / 8, 0, kN);
      partials[d] = shard::Tensor(shard::DType::f32, {kM, kN});
      outs[d] = shard::Tensor(shard::DType::f32, {kM / 8, kN});
    }
  }
  auto sharded = [&] {
    rt.run(mesh, [&](shard::Device& dev) {
      const int d = dev.id();
      if (form == Form::rows) {
        sk::matmul(dev.kernels(), view(xs[d]), view(ws[d]), mut_view(outs[d]));
      } else {
        sk::matmul(dev.kernels(), view(xs[d]), view(ws[d]), mut_view(partials[d]));
        shard::psum_scatter(dev, partials[d], {"dp", "tp"}, 0, /*tiled=*/true, outs[d]);
      }
    });
  };
  sk::Context ctx;
  const sk::View xv = sk::View::contiguous(x.data(), shard::DType::f32, {kM, kK});
  const sk::View wv = sk::View::contiguous(w.data(), shard::DType::f32, {kK, kN});
  const sk::MutView yv = sk::MutView::contiguous(y.data(), shard::DType::f32, {kM, kN});
  auto single = [&] { sk::matmul(ctx, xv, wv, yv); };
  auto timed = [](auto&& fn) {
    const auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };

  sharded();  // warm-up: primitives created, pages touched
  single();
  std::vector<double> ratios, sharded_s, single_s;
  bool sharded_first = true;
  for (auto _ : state) {
    double a, b;
    if (sharded_first) {
      a = timed(sharded);
      b = timed(single);
    } else {
      b = timed(single);
      a = timed(sharded);
    }
    sharded_first = !sharded_first;
    ratios.push_back(a / b);
    sharded_s.push_back(a);
    single_s.push_back(b);
    state.SetIterationTime(a);
  }

  // Each device's block of the result must match the single call's.
  for (int d = 0; d < 8; ++d) {
    const int dp = d / 2, tp = d % 2;
    const shard::Tensor want = form == Form::rows ? block(y, kN, dp * (kM / 4), kM / 4, tp * (kN / 2), kN / 2)
                                                  : block(y, kN, d * (kM / 8), kM / 8, 0, kN);
    const float* got = outs[d].as<float>();
    const float* ref = want.as<float>();
    for (std::int64_t i = 0; i < want.numel(); ++i)
      if (std::abs(got[i] - ref[i]) > 1e-3f * (1.0f + std::abs(ref[i]))) {
        state.SkipWithError(("device " + std::to_string(d) + " differs from the single matmul").c_str());
        return;
      }
  }
  state.counters["ratio"] = median(ratios);
  state.counters["sharded_us"] = median(sharded_s) * 1e6;
  state.counters["single_us"] = median(single_s) * 1e6;
  state.counters["pairs"] = static_cast<double>(ratios.size());
}

[[maybe_unused]] const bool registered = [] {
  benchmark::RegisterBenchmark("matmul/rows", BM_ShardedMatmul, Form::rows)
      ->UseManualTime()
      ->Iterations(30)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("matmul/scatter", BM_ShardedMatmul, Form::scatter)
      ->UseManualTime()
      ->Iterations(30)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
