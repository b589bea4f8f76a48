// Per-device-thread execution context for the kernels: a oneDNN CPU stream of its own and
// scratch buffers. Each device thread owns one Context; kernels called with it run on the
// calling thread's OpenMP team (the runtime sets its size to max(1, cores / devices)).
// Primitives are shared between contexts through a process-wide cache (see primitive cache
// statistics below), created once per shape and reused by every thread.
#pragma once

#include <cstdint>
#include <memory>

namespace shard::kernels {

// Below this many elements, elementwise ops, reductions and softmax loop on the calling thread
// instead of calling oneDNN: its per-call cost (memory objects, a stream wait) outweighs the
// work, and small arrays gain nothing from spreading over OpenMP threads.
inline constexpr std::int64_t kOneDnnMinElements = 4096;

class ComputeGate;

class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Every oneDNN execution on this context holds a permit of `gate` (nullptr: none). The
  // Runtime sets one when its device threads outnumber the cores (see compute_gate.h).
  void set_compute_gate(ComputeGate* gate);

  // 2 x the multiply-adds of every matmul run on this context so far (benchmarks compare a
  // sharded program's total work with the single call's; nothing else reads it).
  std::int64_t matmul_flops() const { return matmul_flops_; }
  void count_matmul_flops(std::int64_t flops) { matmul_flops_ += flops; }

  struct Impl;  // oneDNN objects; see runtime/kernels/onednn.h
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
  std::int64_t matmul_flops_ = 0;
};

// How often the shared primitive cache found a primitive (hits) or had to create one (misses).
struct PrimitiveCacheStats {
  std::int64_t entries = 0;
  std::int64_t hits = 0;
  std::int64_t misses = 0;
};
PrimitiveCacheStats primitive_cache_stats();

}  // namespace shard::kernels
