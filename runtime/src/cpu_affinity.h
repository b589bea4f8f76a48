// Placing device threads on CPUs when they outnumber the cores.
//
// Why pin at all: Linux places a woken thread on one CPU's run queue and rebalances the queues
// only every few milliseconds. When 8 device threads wake on 2 cores, several of them queue
// behind a kernel that is already running, while the other core finishes its work and idles
// (or a peer yields there): a sharded matmul took up to 1.5x its ideal time this way, the
// blocks starting milliseconds late. With device d fixed on core d % cores and one compute
// permit per core, each core runs its own devices' kernels back to back and the run queues
// never hold a device that another core could have run.
//
// Why not always: a pinned device cannot leave its core when another process keeps that core
// busy. It waits for the neighbour's time slice to end (milliseconds) at every wake-up, where an
// unpinned one moves to a core that is free: a ring of 8 devices on 2 cores took 16 ms a call
// pinned against 0.7-1.1 ms unpinned with one busy process beside it (0.55 ms alone). So the
// runtime watches how busy other processes keep its CPUs (ForeignLoad) and unpins the devices
// while they share them, pinning again once they are quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace shard::detail {

// The CPUs the calling thread may run on (sched_getaffinity of this thread: Linux keeps a mask
// per thread, and a new thread starts with its creator's), in increasing order; empty when the
// system does not say.
std::vector<int> allowed_cpus();

// How many CPUs the calling thread may run on: allowed_cpus()'s count, or when the system does not
// say, std::thread::hardware_concurrency() (at least 1).
int usable_cores();

// Restricts `thread` to the one CPU `cpu`, or to all of `cpus` (to undo a pin); false when the
// system refuses (a container may forbid it).
bool pin_thread(std::thread& thread, int cpu);
bool unpin_thread(std::thread& thread, const std::vector<int>& cpus);

// Whether the environment allows pinning device threads: SHARD_PIN_DEVICES=0 turns it off.
bool pinning_enabled();

// The busy time of `cpus` in /proc/stat's text (user, nice, system, irq and softirq of each
// "cpuN" line, in clock ticks); nullopt when a CPU's line is missing or malformed.
std::optional<std::uint64_t> busy_ticks(std::string_view proc_stat, const std::vector<int>& cpus);

// How many of `cpus` other processes kept busy: the CPUs' busy time from /proc/stat less this
// process's own CPU time, between two samples.
class ForeignLoad {
 public:
  explicit ForeignLoad(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  // The average number of cores that other processes used since the previous sample; nullopt
  // for the first sample, when /proc/stat cannot be read, and when the previous sample is less
  // than kMinForeignLoadWindow ago (which then stays the baseline).
  std::optional<double> sample();

 private:
  std::vector<int> cpus_;
  bool have_previous_ = false;
  std::uint64_t previous_ticks_ = 0;
  std::chrono::nanoseconds previous_own_{0};
  std::chrono::steady_clock::time_point previous_time_;
};

// When the runtime looks at ForeignLoad (on a call's launch, at most this often), and the
// levels, in cores, from which pinned devices are unpinned and below which they are pinned
// again. /proc/stat counts 10 ms ticks: over 200 ms on 2 cores, 0.3 cores is 6 of 40 ticks.
inline constexpr std::chrono::milliseconds kPlacementInterval{200};
// A sample over a shorter window than this is no answer (10 ms ticks make it noise).
inline constexpr std::chrono::milliseconds kMinForeignLoadWindow{100};
inline constexpr double kUnpinForeignCores = 0.3;
inline constexpr double kRepinForeignCores = 0.1;

}  // namespace shard::detail
