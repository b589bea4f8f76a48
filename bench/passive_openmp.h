// The benchmarks that pair a sharded call with one oneDNN call on the caller's OpenMP team run
// with OMP_WAIT_POLICY=passive. With libgomp's default policy the team's worker keeps spinning
// for milliseconds after every parallel region (a 1024x4096x256 matmul leaves it ~3.5 ms), so
// the single call's team sits on a core through the sharded call that follows it and delays
// its device threads by that much (1.44x instead of 0.92x, measured). The single call itself
// runs at the same speed under both policies (BM_Matmul/1024/4096/256 in kernels_bench: 7.17 ms
// active, 7.20 ms passive, medians of 5). libgomp reads the policy once, when it loads, so
// the benchmark sets it and executes itself again; a policy already in the environment wins.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace shard_bench {

inline void use_passive_openmp(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "warning: could not re-execute with OMP_WAIT_POLICY=passive; the paired matmuls run with "
                       "libgomp's spinning workers\n");
}

inline const char* openmp_wait_policy() {
  const char* p = std::getenv("OMP_WAIT_POLICY");
  return p ? p : "libgomp default (spin, then sleep)";
}

}  // namespace shard_bench
