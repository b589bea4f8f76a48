// Key construction and derivation: jax.random.key, fold_in and split (partitionable mode).
#include <stdexcept>
#include <string>

#include "shard/errors.h"
#include "shard/random.h"

namespace shard::random {

Key key(std::int64_t seed) {
  // JAX with 64-bit mode off sees an int32 seed: high word 0, low word the seed's bits. A seed
  // beyond 32 bits is split into its two words, as JAX does with a 64-bit seed.
  if (seed >= INT32_MIN && seed <= static_cast<std::int64_t>(UINT32_MAX)) {
    return Key{0, static_cast<std::uint32_t>(seed)};
  }
  const auto bits = static_cast<std::uint64_t>(seed);
  return Key{static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits)};
}

Key fold_in(Key key, std::uint32_t data) {
  const auto out = threefry2x32(key, 0, data);
  return Key{out[0], out[1]};
}

Key split_at(Key key, std::uint64_t i) {
  const auto out = threefry2x32(key, static_cast<std::uint32_t>(i >> 32), static_cast<std::uint32_t>(i));
  return Key{out[0], out[1]};
}

std::vector<Key> split(Key key, std::int64_t n) {
  if (n < 0) throw ShapeError("split: the number of keys must be non-negative, got " + std::to_string(n));
  std::vector<Key> keys;
  keys.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) keys.push_back(split_at(key, static_cast<std::uint64_t>(i)));
  return keys;
}

}  // namespace shard::random
