// Device placement when devices outnumber cores: /proc/stat's busy time, and the runtime
// unpinning its devices while another process keeps their CPUs busy (runtime/src/cpu_affinity.h).
#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cpu_affinity.h"
#include "shard/shard.h"

namespace {

using shard::detail::busy_ticks;

// As /proc/stat begins (ForeignLoad puts a newline in front, so every CPU's line follows one).
const std::string kStat =
    "\ncpu  400 20 300 9000 50 7 3 11 0 0\n"
    "cpu0 100 10 100 4500 25 4 1 5 0 0\n"
    "cpu1 300 10 200 4500 25 3 2 6 0 0\n"
    "intr 12345 0 0\n";

TEST(CpuPlacement, BusyTicksAddUserNiceSystemIrqAndSoftirqOfTheGivenCpus) {
  EXPECT_EQ(busy_ticks(kStat, {0}), 100u + 10 + 100 + 4 + 1);
  EXPECT_EQ(busy_ticks(kStat, {1}), 300u + 10 + 200 + 3 + 2);
  EXPECT_EQ(busy_ticks(kStat, {0, 1}), 215u + 515);
  EXPECT_EQ(busy_ticks(kStat, {}), 0u);
}

TEST(CpuPlacement, AMissingOrMalformedCpuLineIsNoAnswer) {
  EXPECT_EQ(busy_ticks(kStat, {2}), std::nullopt);
  EXPECT_EQ(busy_ticks("\ncpu0 1 2 3\n", {0}), std::nullopt);
  EXPECT_EQ(busy_ticks("\ncpu0 1 2 x 4 5 6 7\n", {0}), std::nullopt);
  // "cpu1" must not be taken for "cpu10".
  EXPECT_EQ(busy_ticks("\ncpu10 1 1 1 1 1 1 1\n", {1}), std::nullopt);
}

TEST(CpuPlacement, AForeignLoadSampleNeedsAWholeWindow) {
  shard::detail::ForeignLoad load(shard::detail::allowed_cpus());
  EXPECT_EQ(load.sample(), std::nullopt);  // the baseline
  EXPECT_EQ(load.sample(), std::nullopt);  // microseconds later: 10 ms ticks make that noise
  std::this_thread::sleep_for(shard::detail::kMinForeignLoadWindow + std::chrono::milliseconds(20));
  const std::optional<double> cores = load.sample();
  ASSERT_TRUE(cores.has_value());
  EXPECT_GE(*cores, 0.0);
}

// A container's cpuset or taskset allows fewer CPUs than the machine has: the default core
// count is what the process may use, so devices get that many OpenMP threads in all and are
// pinned when they outnumber them.
TEST(CpuPlacement, TheDefaultCoreCountIsTheCpusTheProcessMayUse) {
  const std::vector<int> cpus = shard::detail::allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(shard::detail::usable_cores(), static_cast<int>(cpus.size()));
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[0], &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // this thread; new threads inherit it
  {
    EXPECT_EQ(shard::detail::usable_cores(), 1);
    shard::Runtime rt{2};
    EXPECT_EQ(rt.omp_threads_per_device(), 1);
    if (shard::detail::pinning_enabled()) {
      EXPECT_TRUE(rt.devices_pinned());  // 2 devices, 1 CPU
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
}

// Processes that keep each of `cpus` busy until killed (or for 20 s at most).
std::vector<pid_t> start_busy_processes(const std::vector<int>& cpus) {
  std::vector<pid_t> pids;
  for (int cpu : cpus) {
    const pid_t pid = fork();
    if (pid == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
      alarm(20);
      for (;;) __asm__ volatile("");  // an empty loop the compiler must keep
    }
    if (pid > 0) pids.push_back(pid);
  }
  return pids;
}

void stop(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) kill(pid, SIGKILL);
  for (pid_t pid : pids) waitpid(pid, nullptr, 0);
}

// Calls an empty function on every device until `done` holds or `limit` has passed.
template <class Done>
bool call_until(shard::Runtime& rt, const shard::Mesh& mesh, Done done, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    rt.run(mesh, [](shard::Device&) {});
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// A pinned device waits for a busy neighbour's time slice to end at every wake-up: with another
// process busy on its CPUs the runtime unpins the devices, and pins them again when it is gone.
TEST(CpuPlacement, DevicesAreUnpinnedWhileAnotherProcessKeepsTheirCpusBusy) {
  const std::vector<int> cpus = shard::detail::allowed_cpus();
  if (cpus.size() < 2 || !shard::detail::pinning_enabled())
    GTEST_SKIP() << "needs 2 CPUs and pinning allowed (SHARD_PIN_DEVICES unset)";
  shard::Runtime rt{8, 2};  // 8 devices on the first two CPUs: pinned
  const shard::Mesh mesh({{"x", 8}});
  ASSERT_TRUE(rt.devices_pinned());
  const std::vector<pid_t> busy = start_busy_processes({cpus[0], cpus[1]});
  ASSERT_EQ(busy.size(), 2u);
  const bool unpinned = call_until(rt, mesh, [&] { return !rt.devices_pinned(); }, std::chrono::seconds(10));
  stop(busy);
  EXPECT_TRUE(unpinned) << "still pinned after 10 s beside two busy processes";
  // Pinning again needs quiet CPUs, which other work on a shared machine may not leave: the
  // test watches the same load the runtime does, and holds the runtime to pinning only once
  // several of its own windows were quiet.
  shard::detail::ForeignLoad watch(cpus);
  int quiet_windows = 0;
  double least_load = 1e9;
  auto last_sample = std::chrono::steady_clock::now();
  watch.sample();
  const bool repinned = call_until(rt, mesh, [&] {
    if (rt.devices_pinned()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_sample >= shard::detail::kPlacementInterval) {
      last_sample = now;
      if (const std::optional<double> load = watch.sample()) {
        least_load = std::min(least_load, *load);
        if (*load < shard::detail::kRepinForeignCores) ++quiet_windows;
      }
    }
    return false;
  }, std::chrono::seconds(20));
  if (!repinned && quiet_windows < 3)
    GTEST_SKIP() << "other processes kept the CPUs busy for 20 s (" << quiet_windows
                 << " quiet windows of 200 ms; the quietest used " << least_load
                 << " cores): the runtime rightly stayed unpinned";
  EXPECT_TRUE(repinned) << "not pinned again within 20 s of the busy processes' end, although "
                        << quiet_windows << " windows of 200 ms were quiet";
}

}  // namespace
