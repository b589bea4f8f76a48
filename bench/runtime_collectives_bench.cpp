// Collectives of the in-process runtime, and memcpy / `a += b` on the same device threads (and,
// from kTeamCopyBytes, their OpenMP teams, as the collectives) at the same sizes: the machine's
// bandwidth, which the collectives are judged against.
//
// One benchmark per (op, devices, size), named "coll/<op>/<devices>/<bytes>". Each iteration is
// one Runtime::run call in which every device waits at a barrier, then runs K back-to-back ops
// into its own preallocated output (the runtime's out-parameter forms: no allocation, no views,
// no pointer hand-offs); the iteration's time is the span from the first device's start to the
// slowest device's end, / K (manual time). A span rather than the largest per-device time, so
// that memcpy and add, which do not synchronise, are not credited with running 8 devices at
// once on 2 cores when each device only timed its own time slice.
// After timing, every device checks every element of its output against bench_model.h's
// expected values, and a mismatch fails the benchmark. The number of calls per sample is fixed
// (bench_model.h), not left to Google Benchmark's minimum time: memcpy's per-op time is tiny
// next to a call's checks, so a time-based count would run for minutes.
//
// "fresh/<op>/<devices>/<bytes>" (up to 1 MiB; not judged by bench_report) is the same with one
// store per cache line of the device's input before every op. Without it each op reads the same
// unchanged inputs, so after the first op every core holds shared copies of its peers' input
// lines and reads them from its own cache; in a program an op's input was just computed, and
// reading it moves every line from the core that wrote it. memcpy and add get the same stores.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_model.h"
#include "device_team.h"
#include "runtime_fixtures.h"
#include "shard/collectives.h"

namespace {

using shard_bench::Op;
using Clock = std::chrono::steady_clock;

// Per-device buffers of one benchmark, allocated (and first touched) by the device threads.
struct Buffers {
  std::vector<shard::Tensor> in, out;
};

void run_op(shard::Device& dev, Op op, const shard::Tensor& in, shard::Tensor& out) {
  static const shard::Axes axes{"d"};
  switch (op) {
    case Op::all_reduce: shard::psum(dev, in, axes, out); break;
    case Op::all_gather: shard::all_gather(dev, in, axes, 0, /*tiled=*/true, out); break;
    case Op::reduce_scatter: shard::psum_scatter(dev, in, axes, 0, /*tiled=*/true, out); break;
    case Op::all_to_all: shard::all_to_all(dev, in, axes, 0, 0, /*tiled=*/true, out); break;
    case Op::permute: shard::ppermute_shift(dev, in, axes, 1, out); break;
    // The baselines run on the cores a collective of the same size gets: split over the
    // device's OpenMP team from kTeamCopyBytes per device, with the runtime's own split.
    case Op::memcpy:
      shard::detail::run_on_team(shard::detail::team_threads(out.nbytes()), [&](int part, int parts) {
        const auto [b, e] = shard::detail::part_range(static_cast<std::int64_t>(out.nbytes()), part, parts, 64);
        std::memcpy(out.bytes() + b, in.bytes() + b, static_cast<std::size_t>(e - b));
      });
      break;
    case Op::add:
      shard::detail::run_on_team(shard::detail::team_threads(out.nbytes()), [&](int part, int parts) {
        const auto [b, e] = shard::detail::part_range(out.numel(), part, parts, 16);
        float* o = out.as<float>();
        const float* a = in.as<float>();
        for (std::int64_t i = b; i < e; ++i) o[i] += a[i];
      });
      break;
  }
}

bool output_correct(Op op, int n, int rank, const shard::Tensor& out, int adds) {
  const float* o = out.as<float>();
  const std::int64_t count = out.numel();
  for (std::int64_t i = 0; i < count; ++i) {
    const float want = op == Op::add ? static_cast<float>(adds) * shard_bench::input_value(rank, i)
                                     : shard_bench::expected_value(op, n, rank, count, i);
    if (o[i] != want) return false;
  }
  return true;
}

// One store per 64-byte line of the input, rewriting the value it holds (a store takes the line
// exclusively whatever it writes, so the peers' copies are invalidated).
void rewrite_input(shard::Tensor& in, int rank) {
  float* p = in.as<float>();
  constexpr std::int64_t kFloatsPerLine = 64 / sizeof(float);
  for (std::int64_t i = 0; i < in.numel(); i += kFloatsPerLine) p[i] = shard_bench::input_value(rank, i);
}

void BM_Collective(benchmark::State& state, Op op, int n, std::int64_t size, bool fresh) {
  shard::Runtime& rt = shard_bench::runtime(n);
  const shard::Mesh mesh({{"d", n}});
  const auto counts = shard_bench::element_counts(op, n, size);
  const int k = shard_bench::ops_per_call(size);

  Buffers buf;
  buf.in.resize(n);
  buf.out.resize(n);
  rt.run(mesh, [&](shard::Device& dev) {
    const int r = dev.id();
    shard::Tensor in(shard::DType::f32, {counts.in});
    float* p = in.as<float>();
    for (std::int64_t i = 0; i < counts.in; ++i) p[i] = shard_bench::input_value(r, i);
    buf.in[r] = std::move(in);
    buf.out[r] = shard::Tensor(shard::DType::f32, {counts.out});
  });

  std::vector<Clock::time_point> starts(n), ends(n);
  std::atomic<bool> wrong{false};
  for (auto _ : state) {
    rt.run(mesh, [&](shard::Device& dev) {
      const int r = dev.id();
      if (op == Op::add) buf.out[r].fill_zero();
      shard::barrier(dev, {"d"});
      starts[r] = Clock::now();
      for (int i = 0; i < k; ++i) {
        if (fresh) rewrite_input(buf.in[r], r);
        run_op(dev, op, buf.in[r], buf.out[r]);
      }
      ends[r] = Clock::now();
      if (!output_correct(op, n, r, buf.out[r], k)) wrong.store(true);
    });
    const auto span = *std::max_element(ends.begin(), ends.end()) - *std::min_element(starts.begin(), starts.end());
    state.SetIterationTime(std::chrono::duration<double>(span).count() / k);
    if (wrong.load()) {
      state.SkipWithError("an output differs from the expected values");
      break;
    }
  }
  state.counters["devices"] = n;
  state.counters["bytes"] = static_cast<double>(size);
  state.counters["ops_per_call"] = k;
  // Rates over the manual (per-op) time: GB/s of bus bandwidth and of results written.
  const double iters = static_cast<double>(state.iterations());
  state.counters["busbw"] =
      benchmark::Counter(iters * static_cast<double>(size) * shard_bench::busbw_factor(op, n), benchmark::Counter::kIsRate);
  state.counters["written"] =
      benchmark::Counter(iters * shard_bench::bytes_written(op, n, size), benchmark::Counter::kIsRate);
}

[[maybe_unused]] const bool registered = [] {
  // The judged coll/ rows first, then the fresh/ ones (up to 1 MiB), in the same order.
  constexpr std::int64_t kLargestFresh = 1 << 20;
  for (const bool fresh : {false, true})
    for (int n : shard_bench::device_counts())
      for (Op op : shard_bench::kAllOps)
        for (std::int64_t size : shard_bench::kSizes) {
          if (fresh && size > kLargestFresh) continue;
          const std::string name = std::string(fresh ? "fresh/" : "coll/") + std::string(shard_bench::op_name(op)) +
                                   "/" + std::to_string(n) + "/" + std::to_string(size);
          benchmark::RegisterBenchmark(name.c_str(), BM_Collective, op, n, size, fresh)
              ->UseManualTime()
              ->Iterations(shard_bench::calls_per_sample(size))
              ->Unit(benchmark::kMicrosecond);
        }
  return true;
}();

}  // namespace
