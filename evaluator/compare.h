// Comparing a computed array (e.g. generated code's Array::to_host, read with
// HostTensor::from_bytes) with the evaluator's reference, by the project's rule:
//   integers and bools exactly;
//   floats where |a - r| <= 1e-4 |r| + 1e-5 max|r| for every element (NaN only against NaN);
//   bf16 2^-6 |r| + 2^-8 max|r| and f16 2^-9 |r| + 2^-11 max|r| (docs/language.md 6.7).
// Also the figures `shardc run` prints: max absolute error, normwise error and a digest.
#pragma once

#include <cstdint>
#include <string>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

struct Comparison {
  bool ok = false;
  std::string problem;          // why not ok: dtype/shape mismatch, or the first bad element
  double max_abs_error = 0;     // max |a - r|
  double normwise_error = 0;    // ||a - r||_2 / ||r||_2 (0 when both are 0)
  std::int64_t mismatches = 0;  // elements outside the tolerance
  double scale = 0;             // the rule's max|r|: the largest finite |r| (floats)
};

// `atol` widens every float element's bound by that much (`shardc run --atol`): a result that is
// near zero everywhere, such as the difference of two computations of one value, has a tiny
// max|r| and so almost no tolerance under the rule alone.
Comparison compare_to_reference(const HostTensor& actual, const HostTensor& reference, double atol = 0);

// How far a float element may be from its reference value `r` under the rule above, when the
// largest |r| of the array is `max_abs`; 0 for integers and bools (compared exactly).
double tolerance(shard::DType dtype, double r, double max_abs);

// Whether element `a` matches its reference `r` by the rule above, with `scale` the largest
// finite |r| of the array (reference_scale): NaN only against NaN, an infinity only against
// the same infinity, finite values within `tolerance` (plus `slack`, for printed values).
bool element_matches(shard::DType dtype, double a, double r, double scale, double slack = 0);
// The max|r| of the rule: the largest finite |r| (an infinity would make every tolerance infinite).
double reference_scale(const double* r, std::int64_t n);

// A short stable digest of dtype, shape and data (FNV-1a 64 over the runtime's byte layout),
// as 16 hex digits: equal arrays have equal digests on every machine.
std::string digest(const HostTensor& t);

}  // namespace shardc::eval
