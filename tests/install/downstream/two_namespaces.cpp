// One .shard file built into two libraries with different DEFINES: with different NAMESPACEs
// both link into one program and each keeps its own functions (with one namespace the linker
// would keep one `scale` for both calls without a word).
#include <cstdio>

#include "shard/shard.h"

float scaled_two(shard::Runtime& rt);
float scaled_three(shard::Runtime& rt);

int main() {
  shard::Runtime rt{2};
  const float two = scaled_two(rt), three = scaled_three(rt);
  std::printf("two::scaled: %g (expected 8), three::scaled: %g (expected 24)\n", two, three);
  return two == 8.0f && three == 24.0f ? 0 : 1;
}
