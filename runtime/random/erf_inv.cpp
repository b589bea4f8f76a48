// XLA's ErfInv32 (xla/client/lib/math.cc): Giles' single-precision approximation, evaluated in
// float32 exactly in XLA's order (w = -log1p(-x*x); Horner from the highest coefficient;
// separate multiply and add, no fused multiply-add). erf_inv(+-1) = +-FLT_MAX * 1, as XLA.
#include <cmath>
#include <limits>

#include "shard/random.h"

namespace shard::random {

float erf_inv_f32(float x) {
  static constexpr float kSmallW[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                       -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                       -0.00417768164f,  0.246640727f,    1.50140941f};
  static constexpr float kLargeW[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                       -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                       0.00943887047f,   1.00167406f,     2.83297682f};
  if (std::fabs(x) == 1.0f) return x * std::numeric_limits<float>::max();
  const float neg_square = -(x * x);
  float w = -std::log1p(neg_square);
  const bool small = w < 5.0f;
  const float* c = small ? kSmallW : kLargeW;
  w = small ? w - 2.5f : std::sqrt(w) - 3.0f;
  float p = c[0];
  for (int i = 1; i < 9; ++i) {
    const float product = p * w;
    p = c[i] + product;
  }
  return p * x;
}

}  // namespace shard::random
