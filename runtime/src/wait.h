// Waiting for another thread. Three phases, each bounded by a time budget: spin on the word
// with pause instructions, then give the core away with sched_yield, then sleep on a futex
// (std::atomic::wait).
//
// Why not simply sleep: a thread that futex-sleeps lets its core halt when nothing else runs
// there, and waking a halted (virtual) CPU costs tens of microseconds (~50-60 us measured in
// the VMs this runs on), far more than a small collective. Why not simply spin: with more
// busy threads than cores, a spinning waiter holds the core that the thread it waits for
// needs. So:
//   - threads that have a core each spin for tens of microseconds, then sleep;
//   - threads that share cores spin only briefly, then yield (the core goes to a runnable
//     peer, and it does not halt while anyone waits), then sleep.
// The clock is std::chrono::steady_clock (a vDSO read of the TSC, ~20 ns), read once per
// batch of pause instructions.
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace shard::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct WaitPolicy {
  std::chrono::nanoseconds spin{0};   // polling with pause instructions
  std::chrono::nanoseconds yield{0};  // then polling around sched_yield
};

// Budgets. Spinning covers the wake-up cost of a halted vCPU (~50-60 us). Threads that share
// cores do not spin at all (even 1 us of spinning per wait tripled the time of small
// collectives on 8 devices and 2 cores: the peer being waited for needs that core), and yield
// for a while before sleeping, which keeps the core awake and hands it straight to a runnable
// peer. Between calls the budget is longer: the caller's next launch usually comes soon.
inline constexpr std::chrono::nanoseconds kSpinBudget = std::chrono::microseconds(60);
inline constexpr std::chrono::nanoseconds kYieldBudget = std::chrono::microseconds(10);
inline constexpr std::chrono::nanoseconds kIdleYieldBudget = std::chrono::microseconds(200);

// A thread waiting in a collective while `busy_threads` threads (itself included) want a core
// out of `cores`.
inline WaitPolicy collective_wait_policy(int busy_threads, int cores) {
  if (busy_threads <= cores) return {kSpinBudget, {}};
  return {{}, kYieldBudget};
}

// A device thread waiting for its next call; `busy_threads` counts the caller too.
inline WaitPolicy idle_wait_policy(int busy_threads, int cores) {
  if (busy_threads <= cores) return {kSpinBudget, {}};
  return {{}, kIdleYieldBudget};
}

// The caller of a call waiting for its end; `busy_threads` counts the caller too. When the
// devices take every core, spinning would hold one of theirs, so the caller yields like an idle
// device, then sleeps. Yielding rather than sleeping at once saves the futex wake-up at the end
// of a short call: in a VM whose system calls trap to the hypervisor each costs ~1.5 us, and an
// empty call on 2 devices took 7.5 us with a 1 us spin then sleep, 5.2-6.2 us yielding
// (runtime_bench launch/runtime/2, AMD EPYC VM, 2 cores).
inline WaitPolicy caller_wait_policy(int busy_threads, int cores) {
  if (busy_threads <= cores) return {kSpinBudget, {}};
  return {{}, kIdleYieldBudget};
}

// Polls `done()` through the spin and yield phases of `policy`; true as soon as it holds,
// false when both budgets are spent (the caller then sleeps on its word and polls again).
template <class Done>
inline bool poll_until(const WaitPolicy& policy, Done&& done) {
  using Clock = std::chrono::steady_clock;
  if (done()) return true;
  auto now = Clock::now();
  const auto spin_end = now + policy.spin;
  while (now < spin_end) {
    for (int i = 0; i < 16; ++i) {
      cpu_relax();
      if (done()) return true;
    }
    now = Clock::now();
  }
  const auto yield_end = now + policy.yield;
  while (now < yield_end) {
    sched_yield();
    if (done()) return true;
    now = Clock::now();
  }
  return done();
}

// Returns the first value of `word` that differs from `old`.
inline std::uint32_t wait_while_equal(const std::atomic<std::uint32_t>& word, std::uint32_t old,
                                      const WaitPolicy& policy) {
  std::uint32_t v = old;
  if (poll_until(policy, [&] { return (v = word.load(std::memory_order_acquire)) != old; })) return v;
  while (true) {
    word.wait(old, std::memory_order_acquire);
    v = word.load(std::memory_order_acquire);
    if (v != old) return v;
  }
}

}  // namespace shard::detail
