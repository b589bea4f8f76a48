// Internal: the oneDNN side of the kernels. One CPU engine per process; one stream and one
// scratchpad per Context; a process-wide, thread-safe cache of primitives keyed by a string
// that spells out the operation, its shapes, strides, dtypes and attributes; and, per Context,
// the primitive's memory objects created once, so a repeated call only swaps data pointers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "shard/kernels/context.h"

namespace shard::kernels {
namespace detail {

// A ready-to-run primitive and the scratchpad it asks for (attributes use the user mode, so
// concurrent executions from different threads never share library-owned scratch memory).
struct CachedPrimitive {
  dnnl::primitive primitive;
  dnnl::memory::desc scratchpad;
};

// A primitive bound to one Context: its argument memory objects, whose data handles are set
// per call. Never shared between threads.
struct BoundPrimitive {
  CachedPrimitive cached;
  std::vector<int> arg_ids;                     // in the order execute() receives pointers
  std::unordered_map<int, dnnl::memory> args;   // including DNNL_ARG_SCRATCHPAD
};

using ArgDescs = std::vector<std::pair<int, dnnl::memory::desc>>;

// oneDNN's memory descriptors have at most DNNL_MAX_NDIMS (12) dimensions, the language 16:
// kernels with a loop of their own use it beyond that.
inline bool onednn_takes_rank(std::size_t rank) { return rank <= DNNL_MAX_NDIMS; }

}  // namespace detail

struct Context::Impl {
  dnnl::engine engine;
  dnnl::stream stream;
  std::vector<char> scratchpad;             // grown on demand, shared by this context's primitives
  std::vector<float> f32_a, f32_b, f32_c;   // conversion buffers for bf16/f16 matmuls
  std::unordered_map<std::string, std::unique_ptr<detail::BoundPrimitive>> bound;
  ComputeGate* gate = nullptr;  // see Context::set_compute_gate

  Impl();
};

namespace detail {

// Returns the process-wide primitive for `key`, creating it with `make` on first use.
// Thread-safe: lookups share a lock; a primitive created by two threads at once is kept once.
CachedPrimitive cached_primitive(const std::string& key, const std::function<CachedPrimitive()>& make);

// This context's binding of the primitive for `key`: found in the context, else built from the
// process-wide cache (or `make`) with memory objects for `descs()`.
BoundPrimitive& bind_slow(Context& ctx, const std::string& key, const std::function<CachedPrimitive()>& make,
                          const ArgDescs& descs);
BoundPrimitive* find_bound(Context& ctx, const std::string& key);

[[noreturn]] void rethrow_as_argument_error(const std::string& key, const dnnl::error& e);

// `key` extended with the calling thread's OpenMP team size: oneDNN fixes a primitive's
// thread count when it is created, so a primitive made for 8 threads must not run on a device
// thread that was given 1.
std::string with_thread_count(const std::string& key);

template <typename Make, typename Descs>
BoundPrimitive& bound_primitive(Context& ctx, const std::string& op_key, Make&& make, Descs&& descs) {
  const std::string key = with_thread_count(op_key);
  if (BoundPrimitive* b = find_bound(ctx, key)) return *b;
  try {
    return bind_slow(ctx, key, make, descs());
  } catch (const dnnl::error& e) {
    // oneDNN refused the descriptors: the caller's views are not something it can run.
    rethrow_as_argument_error(key, e);
  }
}

// Runs a bound primitive on the context's stream with the given data pointers (one per arg id,
// in bind order) and the context's scratchpad, and waits for it.
void execute(Context& ctx, BoundPrimitive& p, std::initializer_list<const void*> pointers);

// Appends a memory descriptor's dims, strides and dtype to a cache key.
void append_key(std::string& key, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                dnnl::memory::data_type type);

// The attribute every cached primitive is built with: user-managed scratchpad.
dnnl::primitive_attr user_scratchpad_attr();

}  // namespace detail
}  // namespace shard::kernels
