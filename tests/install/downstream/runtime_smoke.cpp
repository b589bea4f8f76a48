// A hand-written program against the installed runtime: it must compile with only the
// package's include path and link with only shardc::runtime. It exercises the parts a
// generated file uses (Runtime, Mesh, Sharding, Array, a collective, random keys) and exits
// non-zero, saying why, when a result is wrong.
#include <cstdio>
#include <mutex>
#include <vector>

#include "shard/random.h"
#include "shard/shard.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "runtime_smoke: FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  shard::Runtime rt{2};
  shard::Mesh mesh({{"dp", 2}});
  shard::ArrayType type(shard::DType::f32, {4}, shard::Sharding(mesh, {{"dp"}}));

  // f32[4@dp] = [1 2 3 4]: device 0 holds [1 2], device 1 holds [3 4].
  shard::Array x = shard::Array::from_host(rt, type, std::vector<float>{1, 2, 3, 4});
  expect(x.to_host<float>() == std::vector<float>{1, 2, 3, 4}, "from_host/to_host round trip");

  // psum over dp: every device gets [1+3, 2+4].
  std::mutex mutex;
  std::vector<std::vector<float>> sums(2);
  rt.run(mesh, [&](shard::Device& dev) {
    shard::Tensor sum = shard::psum(dev, x.block(dev.id()), {"dp"});
    const float* values = sum.as<float>();
    std::lock_guard lock(mutex);
    sums[dev.id()].assign(values, values + 2);
  });
  expect(sums[0] == std::vector<float>{4, 6}, "psum on device 0");
  expect(sums[1] == std::vector<float>{4, 6}, "psum on device 1");

  // shard_random links too: JAX's split(key(0))[0] (tests/runtime/random_known_answers_test.cpp).
  expect(shard::random::split(shard::random::key(0), 2).at(0) == shard::random::Key{1797259609u, 2579123966u},
         "random split of key(0)");

  if (failures == 0) std::puts("runtime_smoke: ok");
  return failures == 0 ? 0 : 1;
}
