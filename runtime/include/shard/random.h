// Random numbers exactly as JAX makes them: threefry2x32 with jax_threefry_partitionable=True
// (JAX's default since 0.5). A device computes only its own block of a global array; element
// values depend only on the key and the element's global row-major index, never on the sharding.
//
// A tiny standalone library (`shard_random`): no oneDNN, no runtime types, so the reference
// evaluator links it too and both produce bit-identical arrays.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "shard/dtype.h"

namespace shard::random {

// A key's raw data, as `jax.random.key_data` prints it: [k0, k1].
struct Key {
  std::uint32_t k0 = 0;
  std::uint32_t k1 = 0;
  friend bool operator==(const Key&, const Key&) = default;
};

// The threefry2x32 block cipher (20 rounds): encrypts the counter pair (x0, x1) under `key`.
std::array<std::uint32_t, 2> threefry2x32(Key key, std::uint32_t x0, std::uint32_t x1);

// jax.random.key(seed): [0, seed] for a seed that fits in 32 bits (negative int32 seeds wrap to
// uint32, as JAX does with 64-bit mode off); wider seeds give [seed >> 32, seed & 0xFFFFFFFF].
Key key(std::int64_t seed);

// jax.random.fold_in(key, data): threefry2x32(key, [0, data]). Data is taken modulo 2^32.
Key fold_in(Key key, std::uint32_t data);

// jax.random.split(key, n)[i] in partitionable mode: threefry2x32(key, [hi(i), lo(i)]).
// Equal to fold_in(key, i) for i < 2^32, and independent of n.
Key split_at(Key key, std::uint64_t i);
std::vector<Key> split(Key key, std::int64_t n);

// The part of a global array one device computes: the global shape, and the offset and shape
// of a rectangular block of it. Output buffers hold the block contiguously, row-major.
struct Block {
  Shape global_shape;
  Shape offset;  // empty means all zeros
  Shape shape;   // empty with an empty offset means the whole array
  // The whole array as one block.
  static Block whole(Shape global_shape) { return Block{std::move(global_shape), {}, {}}; }
};

// The number of elements of the block. Throws shard::ShapeError, naming the values, when the
// ranks differ, a size is negative or the block does not lie inside the global shape.
std::int64_t checked_block_size(const Block& block);

// jax.random.bits(key, shape, uint32): per element threefry2x32(key, [hi(g), lo(g)]) with both
// output words XORed, g the element's global row-major index.
void bits32(Key key, const Block& block, std::uint32_t* out);

// jax.random.uniform(key, shape, dtype, minval, maxval): dtype f32, bf16 or f16 (the latter two
// written as their 16-bit patterns). Values in [minval, maxval).
void uniform(Key key, DType dtype, const Block& block, double minval, double maxval, void* out);

// jax.random.normal(key, shape, dtype): sqrt(2) * erf_inv(uniform on (nextafter(-1, 0), 1)),
// erf_inv being XLA's float32 ErfInv32 polynomial.
void normal(Key key, DType dtype, const Block& block, void* out);

// XLA's ErfInv32 (Giles' polynomial in float32), exposed for tests and the evaluator.
float erf_inv_f32(float x);

}  // namespace shard::random
