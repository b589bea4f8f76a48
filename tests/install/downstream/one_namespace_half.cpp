// See one_namespace_main.cpp. The sum of scale(ones) of library scaled_half.
#include <numeric>
#include <vector>

#include "scaled_half/scaled.shard.h"

float half_of_ones_sum(shard::Runtime& rt) {
  std::vector<float> ones(static_cast<std::size_t>(shardgen::scaled::N), 1.0f);
  const shard::Array x = shard::Array::from_host(rt, shardgen::scaled::scale_in0_type(), ones);
  const std::vector<float> y = shardgen::scaled::scale(rt, x).to_host<float>();
  return std::accumulate(y.begin(), y.end(), 0.0f);
}
