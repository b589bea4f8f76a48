#include "onednn.h"

#include <omp.h>

#include <atomic>
#include <mutex>
#include <shared_mutex>

#include "checks.h"
#include "shard/kernels/compute_gate.h"
#include "shard/errors.h"

namespace shard::kernels {
namespace {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

struct PrimitiveCache {
  std::shared_mutex mutex;
  std::unordered_map<std::string, detail::CachedPrimitive> entries;
  std::int64_t misses = 0;  // under the exclusive lock
  std::atomic<std::int64_t> hits{0};
};

PrimitiveCache& cache() {
  static PrimitiveCache c;
  return c;
}

}  // namespace

Context::Impl::Impl() : engine(cpu_engine()), stream(engine) {}

void Context::set_compute_gate(ComputeGate* gate) { impl_->gate = gate; }

Context::Context() : impl_(std::make_unique<Impl>()) {}
Context::~Context() = default;

PrimitiveCacheStats primitive_cache_stats() {
  auto& c = cache();
  std::shared_lock lock(c.mutex);
  return PrimitiveCacheStats{static_cast<std::int64_t>(c.entries.size()), c.hits.load(), c.misses};
}

namespace detail {

CachedPrimitive cached_primitive(const std::string& key, const std::function<CachedPrimitive()>& make) {
  auto& c = cache();
  {
    std::shared_lock lock(c.mutex);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) {
      c.hits.fetch_add(1, std::memory_order_relaxed);
      return it->second;
    }
  }
  CachedPrimitive made = make();  // outside the lock: creation can take milliseconds
  std::unique_lock lock(c.mutex);
  auto [it, inserted] = c.entries.try_emplace(key, std::move(made));
  if (inserted) ++c.misses;
  return it->second;
}

BoundPrimitive* find_bound(Context& ctx, const std::string& key) {
  auto& bound = ctx.impl().bound;
  auto it = bound.find(key);
  if (it == bound.end()) return nullptr;
  cache().hits.fetch_add(1, std::memory_order_relaxed);
  return it->second.get();
}

BoundPrimitive& bind_slow(Context& ctx, const std::string& key, const std::function<CachedPrimitive()>& make,
                          const ArgDescs& descs) {
  auto& impl = ctx.impl();
  auto b = std::make_unique<BoundPrimitive>();
  b->cached = cached_primitive(key, make);
  for (const auto& [id, md] : descs) {
    b->arg_ids.push_back(id);
    b->args.emplace(id, dnnl::memory(md, impl.engine, DNNL_MEMORY_NONE));
  }
  b->args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(b->cached.scratchpad, impl.engine, DNNL_MEMORY_NONE));
  return *impl.bound.emplace(key, std::move(b)).first->second;
}

void execute(Context& ctx, BoundPrimitive& p, std::initializer_list<const void*> pointers) {
  auto& impl = ctx.impl();
  if (pointers.size() != p.arg_ids.size()) internal_error("oneDNN primitive called with the wrong number of arguments");
  std::size_t i = 0;
  for (const void* ptr : pointers) p.args.at(p.arg_ids[i++]).set_data_handle(const_cast<void*>(ptr));
  const std::size_t bytes = p.cached.scratchpad.get_size();
  if (impl.scratchpad.size() < bytes) impl.scratchpad.resize(bytes);
  if (bytes > 0) p.args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(impl.scratchpad.data());
  if (impl.gate == nullptr) {
    p.cached.primitive.execute(impl.stream, p.args);
    impl.stream.wait();
    return;
  }
  impl.gate->acquire();
  try {
    p.cached.primitive.execute(impl.stream, p.args);
    impl.stream.wait();
  } catch (...) {
    impl.gate->release();
    throw;
  }
  impl.gate->release();
}

std::string with_thread_count(const std::string& key) {
  return key + "@threads=" + std::to_string(omp_get_max_threads());
}

void rethrow_as_argument_error(const std::string& key, const dnnl::error& e) {
  throw ArgumentError("oneDNN cannot run " + key + ": " + e.what());
}

void append_key(std::string& key, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                dnnl::memory::data_type type) {
  key += '|';
  key += std::to_string(static_cast<int>(type));
  for (auto d : dims) (key += ',') += std::to_string(d);
  key += ':';
  for (auto s : strides) (key += ',') += std::to_string(s);
}

dnnl::primitive_attr user_scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace detail
}  // namespace shard::kernels
