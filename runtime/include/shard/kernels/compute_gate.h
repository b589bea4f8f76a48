// Admission of kernels to the cores. When device threads outnumber the cores, letting all of
// them compute at once makes the scheduler time-slice them in the middle of their kernels, each
// slice evicting the others' working sets from the caches. With one permit per core, at most
// that many kernels run at a time, each to completion with warm caches, while the other device
// threads wait asleep. A permit is held only around one oneDNN execution, never across a
// collective or any other wait, so the gate cannot deadlock.
#pragma once

#include <semaphore>

namespace shard::kernels {

class ComputeGate {
 public:
  explicit ComputeGate(int permits) : permits_(permits) {}
  ComputeGate(const ComputeGate&) = delete;
  ComputeGate& operator=(const ComputeGate&) = delete;

  void acquire() { permits_.acquire(); }
  void release() { permits_.release(); }

 private:
  std::counting_semaphore<> permits_;
};

}  // namespace shard::kernels
