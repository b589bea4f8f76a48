// Admission of kernels to the cores. When device threads outnumber the cores, letting all of
// them compute at once makes the scheduler time-slice them in the middle of their kernels, each
// slice evicting the others' working sets from the caches. With one permit per core, at most
// that many kernels run at a time, each to completion with warm caches, while the other device
// threads wait asleep. A permit is held only around one oneDNN execution, never across a
// collective or any other wait, so the gate cannot deadlock.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace shard::kernels {

// A mutex and a futex word (std::atomic::wait), not std::counting_semaphore: the semaphore of
// GCC 12's libstdc++ (Debian 12) can miss a wake-up and leave an acquirer asleep with a permit
// free (a known libstdc++ bug, fixed in later GCCs). It hung `shardc run` of explicit_matmul's
// `main` on a fresh machine: one device asleep in acquire(), the seven others waiting for it
// in a collective. Nor a std::condition_variable: glibc's destructor waits for the waiters it
// had when the process forked, so a fork()ed child that destroys the Runtime would hang.
class ComputeGate {
 public:
  explicit ComputeGate(int permits) : free_(permits) {}
  ComputeGate(const ComputeGate&) = delete;
  ComputeGate& operator=(const ComputeGate&) = delete;

  void acquire() {
    std::unique_lock lock(mutex_);
    while (free_ == 0) {
      // Read under the lock: a release after it changes the word, so the wait returns at once.
      const std::uint32_t seen = changes_.load(std::memory_order_relaxed);
      lock.unlock();
      changes_.wait(seen, std::memory_order_relaxed);
      lock.lock();
    }
    --free_;
  }
  void release() {
    {
      const std::lock_guard lock(mutex_);
      ++free_;
      // seq_cst: ordered before notify_one's check for sleepers (a Dekker handshake with wait).
      changes_.fetch_add(1, std::memory_order_seq_cst);
    }
    changes_.notify_one();  // one permit, one waiter woken; it rechecks under the lock
  }

 private:
  std::mutex mutex_;
  std::atomic<std::uint32_t> changes_{0};  // bumped by every release
  int free_;
};

}  // namespace shard::kernels
