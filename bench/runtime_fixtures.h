// Runtimes shared by the benchmarks of runtime_bench: one per device count, created on first use
// and kept for the whole run (a Runtime's threads are persistent, as in generated code).
#pragma once

#include <map>
#include <memory>

#include "shard/runtime.h"

namespace shard_bench {

inline shard::Runtime& runtime(int devices) {
  static std::map<int, std::unique_ptr<shard::Runtime>> runtimes;
  auto& slot = runtimes[devices];
  if (!slot) slot = std::make_unique<shard::Runtime>(devices);
  return *slot;
}

}  // namespace shard_bench
