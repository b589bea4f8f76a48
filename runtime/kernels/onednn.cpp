#include "onednn.h"

#include <mutex>
#include <atomic>
#include <shared_mutex>
#include <unordered_map>

namespace shard::kernels {
namespace {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

struct PrimitiveCache {
  std::shared_mutex mutex;
  std::unordered_map<std::string, detail::CachedPrimitive> entries;
  std::int64_t misses = 0;
};

PrimitiveCache& cache() {
  static PrimitiveCache c;
  return c;
}

std::atomic<std::int64_t> cache_hits{0};

}  // namespace

Context::Impl::Impl() : engine(cpu_engine()), stream(engine) {}

dnnl::memory Context::Impl::scratchpad_for(const dnnl::memory::desc& md) {
  const std::size_t bytes = md.get_size();
  if (scratchpad.size() < bytes) scratchpad.resize(bytes);
  return dnnl::memory(md, engine, bytes ? scratchpad.data() : nullptr);
}

Context::Context() : impl_(std::make_unique<Impl>()) {}
Context::~Context() = default;

PrimitiveCacheStats primitive_cache_stats() {
  auto& c = cache();
  std::shared_lock lock(c.mutex);
  return PrimitiveCacheStats{static_cast<std::int64_t>(c.entries.size()), cache_hits.load(), c.misses};
}

namespace detail {

CachedPrimitive cached_primitive(const std::string& key, const std::function<CachedPrimitive()>& make) {
  auto& c = cache();
  {
    std::shared_lock lock(c.mutex);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) {
      cache_hits.fetch_add(1, std::memory_order_relaxed);
      return it->second;
    }
  }
  CachedPrimitive made = make();  // outside the lock: creation can take milliseconds
  std::unique_lock lock(c.mutex);
  auto [it, inserted] = c.entries.try_emplace(key, std::move(made));
  if (inserted) ++c.misses;
  return it->second;
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

void execute(Context& ctx, const CachedPrimitive& p, std::unordered_map<int, dnnl::memory> args) {
  auto& impl = ctx.impl();
  args.emplace(DNNL_ARG_SCRATCHPAD, impl.scratchpad_for(p.scratchpad));
  p.primitive.execute(impl.stream, args);
  impl.stream.wait();
}

}  // namespace detail
}  // namespace shard::kernels
