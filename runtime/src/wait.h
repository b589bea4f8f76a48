// Waiting for another thread without burning a shared core: a short spin, then a futex sleep
// through std::atomic::wait. The machine may run 8 device threads on 2 cores, so long spinning
// would steal the time of the very thread being waited for.
#pragma once

#include <atomic>
#include <cstdint>

namespace shard::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spin iterations before sleeping: a few when device threads outnumber cores (the thread being
// waited for needs this core), more when every device thread has a core of its own.
constexpr int kSpinIterations = 8;
constexpr int kSpinIterationsUndersubscribed = 64;

// Returns the first value that differs from `old`.
inline std::uint32_t wait_while_equal(const std::atomic<std::uint32_t>& word, std::uint32_t old) {
  for (int i = 0; i < kSpinIterations; ++i) {
    const std::uint32_t v = word.load(std::memory_order_acquire);
    if (v != old) return v;
    cpu_relax();
  }
  while (true) {
    word.wait(old, std::memory_order_acquire);
    const std::uint32_t v = word.load(std::memory_order_acquire);
    if (v != old) return v;
  }
}

}  // namespace shard::detail
