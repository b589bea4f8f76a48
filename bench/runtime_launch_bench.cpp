// The cost of an empty call: Runtime::run launching a function that does nothing on every device
// and returning when all are done ("launch/runtime/<n>"), against the plain alternative a
// programmer would write: n persistent std::threads and two std::barriers, one to start a round
// and one to finish it, with the caller taking part in both ("launch/threads/<n>").
#include <benchmark/benchmark.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "bench_model.h"
#include "runtime_fixtures.h"

namespace {

// n workers looping on start-barrier / finish-barrier; run() is one empty round.
class PlainThreadLoop {
 public:
  explicit PlainThreadLoop(int n) : start_(n + 1), finish_(n + 1) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        for (;;) {
          start_.arrive_and_wait();
          if (stop_) return;
          finish_.arrive_and_wait();
        }
      });
  }
  ~PlainThreadLoop() {
    stop_ = true;  // published to the workers by the barrier
    start_.arrive_and_wait();
    for (auto& t : threads_) t.join();
  }
  void run() {
    start_.arrive_and_wait();
    finish_.arrive_and_wait();
  }

 private:
  std::barrier<> start_, finish_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

void BM_RuntimeEmptyCall(benchmark::State& state, int n) {
  shard::Runtime& rt = shard_bench::runtime(n);
  const shard::Mesh mesh({{"d", n}});
  for (auto _ : state) rt.run(mesh, [](shard::Device&) {});
  state.counters["devices"] = n;
}

void BM_PlainThreadLoop(benchmark::State& state, int n) {
  PlainThreadLoop loop(n);
  for (auto _ : state) loop.run();
  state.counters["devices"] = n;
}

[[maybe_unused]] const bool registered = [] {
  for (int n : shard_bench::device_counts()) {
    benchmark::RegisterBenchmark(("launch/runtime/" + std::to_string(n)).c_str(), BM_RuntimeEmptyCall, n)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("launch/threads/" + std::to_string(n)).c_str(), BM_PlainThreadLoop, n)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
