// The Runtime owns one persistent thread per device, created once and reused by every call.
//
//   shard::Runtime rt{8};
//   rt.run(mesh, [&](shard::Device& dev) { ... });   // fn runs once on every device of the mesh
//
// run() returns when every device of the mesh has finished. Calls on disjoint device sets may
// run at the same time (from different caller threads); calls sharing a device are serialised,
// in the order they arrived: a call waits for no later one, so a call over many devices is not
// overtaken for ever by smaller calls on parts of them.
// If any device throws, every device blocked in a collective is woken and unwound, and run()
// throws shard::DeviceError with the first error's message and device.
//
// A device function may not call run() of its own Runtime (an ArgumentError, which the call
// turns into a DeviceError). It may call another Runtime's run(), as long as no device of that
// Runtime calls back into this one at the same time: each call holds its devices until it
// returns, so two Runtimes calling into each other wait for each other for ever, as two
// mutexes taken in opposite orders do.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "shard/communicator.h"
#include "shard/device.h"
#include "shard/kernels/compute_gate.h"
#include "shard/mesh.h"

namespace shard {

namespace detail {
class ForeignLoad;
}

// The device whose thread calls this (a Runtime's worker), or nullptr on any other thread.
// Generated code reaches its device's kernel context through it, so that the Runtime's
// placement of kernels (the compute gate) applies to them.
Device* current_device();

class Runtime {
 public:
  // `cores` = 0 means the number of CPUs the constructing thread may run on (its affinity
  // mask, which the device threads it starts inherit: a container's cpuset or taskset may allow
  // fewer than std::thread::hardware_concurrency() reports, which is the fallback). A thread
  // bound to one CPU (OMP_PROC_BIND binds OpenMP's initial thread; pthread_setaffinity_np)
  // would put every device on that CPU: construct the Runtime before such a binding, or on a
  // thread with the whole mask. Each device thread gets
  // max(1, cores / devices) OpenMP threads, so local math never oversubscribes the machine;
  // an OMP_NUM_THREADS set in the environment caps that number. When devices outnumber
  // cores, at most `cores` of them run a oneDNN kernel at a time (kernels/compute_gate.h), and
  // device d is pinned to the d % cores-th CPU of that mask, with a permit of its own
  // per core, while no other process keeps those CPUs busy (checked at launches, every 200 ms
  // at most; SHARD_PIN_DEVICES=0 turns pinning off; see src/cpu_affinity.h).
  // There is no MPI backend yet: in one of several ranks started by mpirun/mpiexec/srun the
  // constructor throws UnsupportedError rather than run independent copies that look like one
  // distributed run (SHARD_INDEPENDENT_RANKS=1 allows them; see src/mpi_launch.h).
  // A Runtime runs only through the copy of the runtime's code that created it: a shared library
  // or plugin with a static copy of its own, kept to itself (-Wl,--exclude-libs, dlopen), gets
  // UnsupportedError from run() (cmake/README.md: when a process holds several).
  // The device threads stay in the process that created the Runtime: in a fork()ed child,
  // run() throws UnsupportedError, and destruction is safe. Start worker processes with exec
  // (multiprocessing's "spawn"): OpenMP, under the kernels, does not survive a bare fork.
  explicit Runtime(int devices, int cores = 0);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int num_devices() const { return static_cast<int>(workers_.size()); }
  int omp_threads_per_device() const { return omp_threads_; }
  // Whether the device threads are pinned to CPUs now (only when they outnumber the cores, and
  // only while other processes leave those cores alone).
  bool devices_pinned() const { return pinned_.load(std::memory_order_relaxed); }
  Communicator& communicator() { return *comm_; }

  template <class Fn>
  void run(const Mesh& mesh, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    run_erased(mesh, [](void* ctx, Device& dev) { (*static_cast<F*>(ctx))(dev); }, const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  struct Call;
  struct Worker;
  using Erased = void (*)(void*, Device&);

  void run_erased(const Mesh& mesh, Erased fn, void* ctx);
  void worker_loop(Worker& w);
  // Tells every started worker to return and joins it.
  void stop_workers() noexcept;
  std::uint32_t wait_for_call(Worker& w, std::uint32_t seen);
  // Pins device d to pin_cpus_[d % pin_cpus_.size()] (one CPU per core the runtime was given);
  // false (and nothing pinned) when pinning is turned off or the system refuses.
  bool pin_devices();
  // At a launch: unpins the devices while other processes keep their CPUs busy, and pins them
  // again once those are quiet (src/cpu_affinity.h, ForeignLoad).
  void adjust_placement();
  void acquire(const Mesh& mesh);
  void release(const Mesh& mesh);

  // Which copy of the runtime's code made this Runtime (runtime.cpp: a process may hold several).
  const void* code_copy_;
  int omp_threads_;
  // How device threads and the caller wait (spin, yield, then sleep; see src/wait.h).
  struct WaitPolicies;
  std::unique_ptr<WaitPolicies> waits_;
  // When devices outnumber cores, the permits for the devices' kernels: one gate of one permit
  // per core with the devices pinned, or one gate of `cores` permits shared by all (empty when
  // every device has a core).
  std::vector<std::unique_ptr<kernels::ComputeGate>> gates_;
  std::atomic<bool> pinned_{false};
  // Set when the devices were pinned at construction: the watch on other processes' load.
  std::unique_ptr<detail::ForeignLoad> foreign_load_;
  std::vector<int> pin_cpus_;
  std::mutex placement_mutex_;
  std::chrono::steady_clock::time_point next_placement_check_;
  unsigned fork_generation_ = 0;  // see runtime.cpp: calls in a fork()ed child are refused
  std::unique_ptr<Communicator> comm_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // Calls take their devices in arrival order (acquire()). A futex word rather than a
  // std::condition_variable, whose destructor in a fork()ed child would wait for the parent's
  // waiters.
  struct WaitingCall {
    std::uint64_t ticket;
    int first_device, end_device;
  };
  std::mutex busy_mutex_;
  std::atomic<std::uint32_t> busy_changes_{0};  // bumped whenever devices are released
  std::vector<char> busy_;                      // per device: held by a call in progress
  std::vector<WaitingCall> waiting_;            // calls waiting for devices, oldest first
  std::uint64_t next_ticket_ = 0;
  // Bumped after handing calls to workers: idle workers all sleep on this one word, so a
  // launch costs one futex wake for all devices rather than one per device.
  std::atomic<std::uint32_t> dispatch_{0};
};

}  // namespace shard
