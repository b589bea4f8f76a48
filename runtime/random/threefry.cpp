// threefry2x32, 20 rounds, as jax/_src/prng.py defines it (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3"): four groups of five key injections, rotations alternating
// between {13,15,26,6} and {17,29,16,24}, the third key word k0 ^ k1 ^ 0x1BD11BDA.
#include "shard/random.h"

namespace shard::random {
namespace {

constexpr std::uint32_t rotate_left(std::uint32_t v, int by) { return (v << by) | (v >> (32 - by)); }

// Four mix rounds with the given rotation amounts.
inline void mix4(std::uint32_t& x0, std::uint32_t& x1, const int (&rotations)[4]) {
  for (int r : rotations) {
    x0 += x1;
    x1 = rotate_left(x1, r);
    x1 ^= x0;
  }
}

}  // namespace

std::array<std::uint32_t, 2> threefry2x32(Key key, std::uint32_t x0, std::uint32_t x1) {
  static constexpr int kRotationsA[4] = {13, 15, 26, 6};
  static constexpr int kRotationsB[4] = {17, 29, 16, 24};
  const std::uint32_t ks[3] = {key.k0, key.k1, key.k0 ^ key.k1 ^ 0x1BD11BDAu};

  x0 += ks[0];
  x1 += ks[1];
  // After each group of four rounds, inject the key schedule rotated by one and the group number.
  for (std::uint32_t group = 1; group <= 5; ++group) {
    mix4(x0, x1, (group % 2 == 1) ? kRotationsA : kRotationsB);
    x0 += ks[group % 3];
    x1 += ks[(group + 1) % 3] + group;
  }
  return {x0, x1};
}

}  // namespace shard::random
