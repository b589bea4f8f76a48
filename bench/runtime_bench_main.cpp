// runtime_bench's main: Google Benchmark's, run under the passive OpenMP wait policy (see
// passive_openmp.h; it matters for the sharded matmul pairs only).
#include <benchmark/benchmark.h>

#include <cstdio>

#include "passive_openmp.h"

int main(int argc, char** argv) {
  shard_bench::use_passive_openmp(argv);
  std::printf("OMP_WAIT_POLICY: %s\n", shard_bench::openmp_wait_policy());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
