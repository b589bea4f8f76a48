// Admission of kernels to the cores. When device threads outnumber the cores, letting all of
// them compute at once makes the scheduler time-slice them in the middle of their kernels, each
// slice evicting the others' working sets from the caches. With one permit per core, at most
// that many kernels run at a time, each to completion with warm caches, while the other device
// threads wait asleep. A permit is held only around one oneDNN execution, never across a
// collective or any other wait, so the gate cannot deadlock.
#pragma once

#include <condition_variable>
#include <mutex>

namespace shard::kernels {

// A mutex and a condition variable, not std::counting_semaphore: the semaphore of GCC 12's
// libstdc++ (Debian 12) can miss a wake-up and leave an acquirer asleep with a permit free
// (a known libstdc++ bug, fixed in later GCCs). It hung `shardc run` of explicit_matmul's
// `main` on a fresh machine: one device asleep in acquire(), the seven others waiting for it
// in a collective.
class ComputeGate {
 public:
  explicit ComputeGate(int permits) : free_(permits) {}
  ComputeGate(const ComputeGate&) = delete;
  ComputeGate& operator=(const ComputeGate&) = delete;

  void acquire() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void release() {
    {
      const std::lock_guard lock(mutex_);
      ++free_;
    }
    freed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  int free_;
};

}  // namespace shard::kernels
