// Two libraries generate the same namespace shardgen::scaled from scaled.shard with different
// DEFINES, and one program links both, each used from a source file of its own
// (one_namespace_half.cpp, one_namespace_double.cpp). The modules' inline namespaces, named
// after their code, keep the two apart: each source calls its own library's `scale`. (Before,
// the linker kept one library's functions for both without a word.)
#include <cstdio>

#include "shard/shard.h"

float half_of_ones_sum(shard::Runtime& rt);    // one_namespace_half.cpp: SCALE=0.5, N=4
float double_of_ones_sum(shard::Runtime& rt);  // one_namespace_double.cpp: SCALE=2.0, N=8

int main() {
  shard::Runtime rt{2};
  const float half = half_of_ones_sum(rt), twice = double_of_ones_sum(rt);
  std::printf("scaled_half: %g (expected 2), scaled_double: %g (expected 16)\n", half, twice);
  return half == 2.0f && twice == 16.0f ? 0 : 1;
}
