// Internal: the oneDNN side of the kernels. One CPU engine per process; one stream and one
// scratchpad per Context; a process-wide, thread-safe cache of primitives keyed by a string
// that spells out the operation, its shapes, strides, dtypes and attributes.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "shard/kernels/context.h"

namespace shard::kernels {

struct Context::Impl {
  dnnl::engine engine;
  dnnl::stream stream;
  std::vector<char> scratchpad;                 // grown on demand, reused by every primitive
  std::vector<float> f32_a, f32_b, f32_c;       // conversion buffers for bf16/f16 matmuls

  Impl();
  // A scratchpad memory object of at least `md`'s size, backed by this context's buffer.
  dnnl::memory scratchpad_for(const dnnl::memory::desc& md);
};

namespace detail {

// A ready-to-run primitive and the scratchpad it asks for (attributes use the user mode, so
// concurrent executions from different threads never share library-owned scratch memory).
struct CachedPrimitive {
  dnnl::primitive primitive;
  dnnl::memory::desc scratchpad;
};

// Returns the cached primitive for `key`, creating it with `make` on first use. Thread-safe:
// lookups share a lock; a primitive created by two threads at once is kept once.
CachedPrimitive cached_primitive(const std::string& key, const std::function<CachedPrimitive()>& make);

// Appends a memory descriptor's dims, strides and dtype to a cache key.
void append_key(std::string& key, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                dnnl::memory::data_type type);

// The attribute every cached primitive is built with: user-managed scratchpad.
dnnl::primitive_attr user_scratchpad_attr();

// Runs a primitive on the context's stream with its scratchpad and waits for it.
void execute(Context& ctx, const CachedPrimitive& p, std::unordered_map<int, dnnl::memory> args);

}  // namespace detail
}  // namespace shard::kernels
