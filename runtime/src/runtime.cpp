#include "shard/runtime.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <numeric>
#include <system_error>

#include "cpu_affinity.h"
#include "inprocess_communicator.h"
#include "mpi_launch.h"
#include "shard/block_cache.h"
#include "shard/errors.h"
#include "wait.h"

namespace shard {

namespace {

// How many fork()s led to this process (counted in each child). A Runtime's device threads
// exist only in the process that created it: in a forked child a call would wait for them
// forever, and joining them would wait too.
std::atomic<unsigned> forks_before_this_process{0};

unsigned fork_generation() {
  static const bool counting = [] {
    pthread_atfork(nullptr, nullptr, [] { forks_before_this_process.fetch_add(1, std::memory_order_relaxed); });
    return true;
  }();
  (void)counting;
  return forks_before_this_process.load(std::memory_order_relaxed);
}

}  // namespace

// One call in progress: shared by the caller and the devices of the mesh.
struct Runtime::Call {
  std::uint64_t id;  // unique in the process (Device::call_id)
  const Mesh* mesh;
  Erased fn;
  void* ctx;
  std::vector<int> devices;
  std::atomic<int> remaining{0};
  std::atomic<bool> aborted{false};
  std::mutex error_mutex;
  bool failed = false;
  int error_device = -1;
  std::string error_message;
};

struct Runtime::Worker {
  explicit Worker(int id, Communicator& comm) : device(id, comm) {}
  Device device;
  std::thread thread;
  std::atomic<std::uint32_t> signal{0};      // bumped by the caller to hand over `call`
  std::atomic<std::uint32_t> completion{0};  // bumped when a call whose first device is this one ends
  Call* call = nullptr;
  bool stop = false;
};

struct Runtime::WaitPolicies {
  detail::WaitPolicy device;  // device threads inside collectives
  detail::WaitPolicy idle;    // device threads between calls
  detail::WaitPolicy caller;  // the thread in run(): for the call's end
};

namespace {
// Which runtime, if any, owns the current thread: a device may not start a nested call.
thread_local const void* tls_owner = nullptr;
// The device a worker thread runs (set once when the worker starts).
thread_local Device* tls_device = nullptr;
// This copy of the runtime's code. A process holds several where shared libraries or plugins
// link the static runtime and keep its symbols to themselves (-Wl,--exclude-libs, a dlopen()ed
// module): each copy has its own thread-locals above and its own tables for std::atomic::wait,
// so a Runtime run through another copy than the one that made it waited for ever.
char this_copy = 0;
}  // namespace

Device* current_device() { return tls_device; }

Runtime::Runtime(int devices, int cores) : code_copy_(&this_copy) {
  if (devices < 1) throw ArgumentError("a runtime needs at least one device, got: " + std::to_string(devices));
  if (cores < 0) throw ArgumentError("a runtime's core count is 0 (detect) or more, got: " + std::to_string(cores));
  block_cache_stats();  // reads SHARD_BLOCK_CACHE_MB now: a bad value fails here, not in some allocation
  detail::refuse_mpi_launch();
  fork_generation_ = fork_generation();
  // Detected: the CPUs this thread may run on, which the device threads inherit (a container's
  // cpuset or taskset may allow fewer than the machine has), else what the system reports.
  if (cores <= 0) cores = detail::usable_cores();
  omp_threads_ = std::max(1, cores / devices);
  // An explicit OMP_NUM_THREADS is an upper bound (ThreadSanitizer runs set it to 1 to keep
  // libgomp's thread pool, which TSan cannot see through, out of the tested paths).
  if (std::getenv("OMP_NUM_THREADS") != nullptr) omp_threads_ = std::max(1, std::min(omp_threads_, omp_get_max_threads()));
  // Device threads (with their OpenMP teams) spin while they fit the cores and yield when they
  // share them; the caller counts as one more busy thread for launches and call ends.
  const int busy = devices * omp_threads_;
  waits_ = std::make_unique<WaitPolicies>();
  waits_->device = detail::collective_wait_policy(busy, cores);
  waits_->idle = detail::idle_wait_policy(busy + 1, cores);
  waits_->caller = detail::caller_wait_policy(busy + 1, cores);
  busy_.assign(devices, 0);
  workers_.reserve(devices);
  auto comm = std::make_unique<detail::InProcessCommunicator>(devices, waits_->device);
  for (int d = 0; d < devices; ++d) workers_.push_back(std::make_unique<Worker>(d, *comm));
  for (std::size_t d = 0; d < workers_.size(); ++d) {
    try {
      workers_[d]->thread = std::thread([this, wp = workers_[d].get()] { worker_loop(*wp); });
    } catch (const std::system_error& e) {
      // Out of threads or memory: stop the ones started (a joinable std::thread left behind
      // would terminate the process) and report it as an error the caller can catch.
      stop_workers();
      throw ArgumentError("a runtime of " + std::to_string(devices) + " devices could not start device thread " +
                          std::to_string(d) + ": " + e.what());
    }
  }
  // The workers wait for their first call; placement and gates are settled before it (the
  // launch's release/acquire publishes them).
  if (busy > cores) {
    // The first `cores` CPUs the constructing thread may use: where devices are pinned, and
    // what unpinning gives back (not a later caller's own affinity, which may be narrower, nor
    // CPUs beyond the `cores` the runtime was given).
    pin_cpus_ = detail::allowed_cpus();
    if (static_cast<int>(pin_cpus_.size()) >= cores) {
      pin_cpus_.resize(static_cast<std::size_t>(cores));
      pinned_ = pin_devices();
    }
    if (pinned_) {
      foreign_load_ = std::make_unique<detail::ForeignLoad>(pin_cpus_);
      foreign_load_->sample();  // the baseline of the first check, a whole interval from now
      next_placement_check_ = std::chrono::steady_clock::now() + detail::kPlacementInterval;
      for (int c = 0; c < cores; ++c) gates_.push_back(std::make_unique<kernels::ComputeGate>(1));
    } else {
      gates_.push_back(std::make_unique<kernels::ComputeGate>(std::max(1, cores / omp_threads_)));
    }
    std::vector<kernels::ComputeGate*> by_device(devices);
    for (int d = 0; d < devices; ++d) by_device[d] = gates_[d % gates_.size()].get();
    comm->set_compute_gates(by_device);
    for (int d = 0; d < devices; ++d) workers_[d]->device.set_compute_gate(by_device[d]);
  }
  comm_ = std::move(comm);
}

bool Runtime::pin_devices() {
  if (!detail::pinning_enabled()) return false;
  for (std::size_t d = 0; d < workers_.size(); ++d) {
    if (detail::pin_thread(workers_[d]->thread, pin_cpus_[d % pin_cpus_.size()])) continue;
    for (std::size_t u = 0; u < d; ++u) detail::unpin_thread(workers_[u]->thread, pin_cpus_);
    return false;
  }
  return true;
}

void Runtime::adjust_placement() {
  if (!foreign_load_) return;
  const auto now = std::chrono::steady_clock::now();
  // Concurrent launches (calls on disjoint devices): one of them looks.
  const std::unique_lock lock(placement_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || now < next_placement_check_) return;
  next_placement_check_ = now + detail::kPlacementInterval;
  const std::optional<double> foreign = foreign_load_->sample();
  if (!foreign) return;
  // Changing a running thread's affinity is safe at any time: the kernel moves it when it next
  // runs. The compute gates stay one per core, which still lets `cores` kernels run at once.
  if (pinned_ && *foreign >= detail::kUnpinForeignCores) {
    for (auto& w : workers_) detail::unpin_thread(w->thread, pin_cpus_);
    pinned_ = false;
  } else if (!pinned_ && *foreign < detail::kRepinForeignCores) {
    pinned_ = pin_devices();
  }
}

Runtime::~Runtime() { stop_workers(); }

void Runtime::stop_workers() noexcept {
  if (fork_generation() != fork_generation_) {
    // A fork()ed child: the threads are not in this process, and a std::thread may be neither
    // joined nor dropped while it looks joinable. Their handles are left behind, on purpose.
    for (auto& w : workers_)
      if (w->thread.joinable()) new std::thread(std::move(w->thread));
    return;
  }
  for (auto& w : workers_) {
    w->stop = true;
    w->signal.fetch_add(1, std::memory_order_release);
  }
  dispatch_.fetch_add(1, std::memory_order_release);
  dispatch_.notify_all();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

void Runtime::acquire(const Mesh& mesh) {
  const int first = mesh.first_device(), end = mesh.end_device();
  std::unique_lock lock(busy_mutex_);
  const std::uint64_t ticket = next_ticket_++;
  waiting_.push_back({ticket, first, end});
  // Its devices are free, and no call that came earlier and still waits needs any of them.
  auto may_start = [&] {
    for (int d = first; d < end; ++d)
      if (busy_[d]) return false;
    for (const WaitingCall& w : waiting_) {
      if (w.ticket == ticket) return true;
      if (w.first_device < end && first < w.end_device) return false;
    }
    return true;
  };
  while (!may_start()) {
    // Read under the lock: a release after it changes the word, so the wait returns at once.
    const std::uint32_t seen = busy_changes_.load(std::memory_order_relaxed);
    lock.unlock();
    busy_changes_.wait(seen, std::memory_order_relaxed);
    lock.lock();
  }
  waiting_.erase(std::find_if(waiting_.begin(), waiting_.end(), [&](const WaitingCall& w) { return w.ticket == ticket; }));
  // Later calls that waited behind this one overlap it: they now wait for its devices instead.
  for (int d = first; d < end; ++d) busy_[d] = 1;
}

void Runtime::release(const Mesh& mesh) {
  {
    std::lock_guard lock(busy_mutex_);
    for (int d = mesh.first_device(); d < mesh.end_device(); ++d) busy_[d] = 0;
    // seq_cst: ordered before notify_all's check for sleepers (a Dekker handshake with wait).
    busy_changes_.fetch_add(1, std::memory_order_seq_cst);
  }
  busy_changes_.notify_all();  // waiters for other devices too: each rechecks its own
}

void Runtime::run_erased(const Mesh& mesh, Erased fn, void* ctx) {
  if (code_copy_ != &this_copy)
    throw UnsupportedError(
        "this Runtime was created by another copy of the shard runtime in this process: a shared library or "
        "plugin that links shard::runtime statically and hides its symbols (-Wl,--exclude-libs, dlopen) has a "
        "copy of its own. Create the Runtime in the module whose generated code runs it, or let every module "
        "use one copy (no --exclude-libs for shard's libraries; an executable that dlopen()s plugins linked "
        "with -rdynamic)");
  if (mesh.end_device() > num_devices())
    throw ArgumentError("mesh " + mesh.to_string() + " needs devices up to " + std::to_string(mesh.end_device() - 1) +
                        " but the runtime has " + std::to_string(num_devices()) +
                        (num_devices() == 1 ? " device" : " devices"));
  if (tls_owner == this) throw ArgumentError("Runtime::run called from inside a device of the same runtime");
  if (fork_generation() != fork_generation_)
    throw UnsupportedError("this Runtime was created before a fork(): its device threads are in the parent process "
                           "only (start worker processes with exec, as multiprocessing's 'spawn' does, not a bare "
                           "fork: OpenMP, which the kernels use, does not survive one either)");

  Call call;
  // One count for the whole process, taken once per call by its caller, not by every device.
  static std::atomic<std::uint64_t> calls{0};
  call.id = calls.fetch_add(1, std::memory_order_relaxed) + 1;
  call.mesh = &mesh;
  call.fn = fn;
  call.ctx = ctx;
  call.devices.resize(mesh.size());
  std::iota(call.devices.begin(), call.devices.end(), mesh.first_device());
  call.remaining.store(mesh.size(), std::memory_order_relaxed);

  acquire(mesh);
  adjust_placement();
  comm_->begin_call(call.devices, &call.aborted);
  Worker& first = *workers_[mesh.first_device()];
  const std::uint32_t completion = first.completion.load(std::memory_order_acquire);
  for (int d : call.devices) {
    Worker& w = *workers_[d];
    w.call = &call;
    w.signal.fetch_add(1, std::memory_order_release);
  }
  dispatch_.fetch_add(1, std::memory_order_seq_cst);
  dispatch_.notify_all();
  detail::wait_while_equal(first.completion, completion, waits_->caller);
  comm_->end_call(call.devices);
  release(mesh);
  if (call.failed) throw DeviceError(call.error_device, call.error_message);
  // A dropped collective names its device above; this stays for a communicator that aborts a
  // call for a reason of its own.
  if (call.aborted.load()) throw DeviceError(-1, "the call was aborted");
}

std::uint32_t Runtime::wait_for_call(Worker& w, std::uint32_t seen) {
  std::uint32_t s = seen;
  if (detail::poll_until(waits_->idle, [&] { return (s = w.signal.load(std::memory_order_acquire)) != seen; })) return s;
  while (true) {
    // Read the dispatch word before the signal: a call handed over after this read bumps the
    // word too, so the wait below returns at once instead of missing it.
    const std::uint32_t epoch = dispatch_.load(std::memory_order_seq_cst);
    s = w.signal.load(std::memory_order_acquire);
    if (s != seen) return s;
    dispatch_.wait(epoch, std::memory_order_acquire);
  }
}

void Runtime::worker_loop(Worker& w) {
  tls_owner = this;
  tls_device = &w.device;
  omp_set_num_threads(omp_threads_);
  std::uint32_t seen = 0;
  while (true) {
    seen = wait_for_call(w, seen);
    if (w.stop) return;
    Call& call = *w.call;
    auto fail = [&](std::string message) {
      {
        std::lock_guard lock(call.error_mutex);
        if (!call.failed) {
          call.failed = true;
          call.error_device = w.device.id();
          call.error_message = std::move(message);
        }
      }
      call.aborted.store(true, std::memory_order_seq_cst);
      comm_->abort_call(call.devices);
    };
    try {
      w.device.begin_call(*call.mesh, call.id);
      call.fn(call.ctx, w.device);
      // Its peers may still read the inputs of what it started: the call cannot end well.
      if (const int open = comm_->unfinished(w.device.id()); open > 0)
        throw ArgumentError("device " + std::to_string(w.device.id()) + " returned from the call with " +
                            std::to_string(open) + " started collective(s) not waited for: wait() every Pending " +
                            "in the call that started it");
    } catch (const CallAborted&) {
      // Another device failed first and reported the error, or this one dropped a collective
      // (below).
    } catch (const std::bad_alloc& e) {
      fail(std::string("out of memory (") + e.what() + "): a block, result or temporary of the call could not be "
           "allocated");
    } catch (const std::exception& e) {
      fail(e.what());
    } catch (...) {
      fail("unknown exception");
    }
    if (w.device.dropped_collective())
      fail("a started collective was dropped without wait(); the call was aborted");
    comm_->leave_call(w.device.id());
    if (call.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The last device out wakes the caller through a word the Runtime owns: the Call on the
      // caller's stack may be gone as soon as the caller sees the bump.
      Worker& first = *workers_[call.mesh->first_device()];
      first.completion.fetch_add(1, std::memory_order_release);
      first.completion.notify_all();
    }
  }
}

}  // namespace shard
