// One .shard file built into three libraries with different DEFINES and NAMESPACEs, used from
// one source file: each header is included by its library's name, since all three are
// scaled.shard.h, and a source that uses several needs them in different namespaces (in one,
// `scaled::scale` would name all three). scaled_generated's source is written at build time.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "scaled_generated/scaled.shard.h"
#include "scaled_three/scaled.shard.h"
#include "scaled_two/scaled.shard.h"

namespace {

// The sum of scale(ones) for one of the generated modules.
float sum_of_scaled_ones(shard::Runtime& rt, std::int64_t n, const shard::ArrayType& type,
                         shard::Array (*scale)(shard::Runtime&, const shard::Array&)) {
  std::vector<float> ones(static_cast<std::size_t>(n), 1.0f);
  std::vector<float> y = scale(rt, shard::Array::from_host(rt, type, ones)).to_host<float>();
  return std::accumulate(y.begin(), y.end(), 0.0f);
}

}  // namespace

int main() {
  shard::Runtime rt{2};
  const float two = sum_of_scaled_ones(rt, two::scaled::N, two::scaled::scale_in0_type(), two::scaled::scale);
  const float three =
      sum_of_scaled_ones(rt, three::scaled::N, three::scaled::scale_in0_type(), three::scaled::scale);
  const float generated =
      sum_of_scaled_ones(rt, generated::scaled::N, generated::scaled::scale_in0_type(), generated::scaled::scale);
  std::printf("two::scaled: %g (expected 8), three::scaled: %g (expected -24), generated::scaled: %g (expected 4)\n",
              two, three, generated);
  return two == 8.0f && three == -24.0f && generated == 4.0f ? 0 : 1;
}
