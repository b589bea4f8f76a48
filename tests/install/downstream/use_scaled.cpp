// Compiled twice (use_scaled_two, use_scaled_three): each copy sees one library's header, whose
// namespace SCALED_NAMESPACE names, and returns the sum of scale(ones).
#include <numeric>
#include <vector>

#include "scaled.shard.h"

float SCALED_ENTRY(shard::Runtime& rt) {
  namespace gen = SCALED_NAMESPACE::scaled;
  std::vector<float> ones(static_cast<std::size_t>(gen::N), 1.0f);
  shard::Array x = shard::Array::from_host(rt, gen::scale_in0_type(), ones);
  std::vector<float> y = gen::scale(rt, x).to_host<float>();
  return std::accumulate(y.begin(), y.end(), 0.0f);
}
