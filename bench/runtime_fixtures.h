// Runtimes shared by the benchmarks of runtime_bench: one per device count, created on first use
// and kept for the whole run (a Runtime's threads are persistent, as in generated code).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_model.h"
#include "shard/runtime.h"

namespace shard_bench {

// The device counts runtime_bench registers its launch/ and coll/ rows for: kDeviceCounts (8
// and 2, what bench_report judges), or the comma-separated powers of two up to 64 in
// SHARD_BENCH_DEVICES, to see how the runtime scales with its device threads:
//   SHARD_BENCH_DEVICES=1,2,4,8,16 runtime_bench --benchmark_filter='launch/|coll/all_reduce/'
inline std::vector<int> device_counts() {
  const char* text = std::getenv("SHARD_BENCH_DEVICES");
  if (text == nullptr) return {kDeviceCounts.begin(), kDeviceCounts.end()};
  std::vector<int> counts;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 64 || (n & (n - 1)) != 0) {
      std::fprintf(stderr, "SHARD_BENCH_DEVICES=%s: '%s' is not a power of two from 1 to 64\n", text, item.c_str());
      std::exit(2);
    }
    counts.push_back(static_cast<int>(n));
  }
  return counts;
}

inline shard::Runtime& runtime(int devices) {
  static std::map<int, std::unique_ptr<shard::Runtime>> runtimes;
  auto& slot = runtimes[devices];
  if (!slot) slot = std::make_unique<shard::Runtime>(devices);
  return *slot;
}

}  // namespace shard_bench
