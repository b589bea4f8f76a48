#include "evaluator/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardc::eval {
namespace {

// |a - r| <= rel |r| + of_max max|r|, per float dtype (docs/language.md section 6.7): bf16 and
// f16 get a few units of their own precision, because a sharded bf16/f16 reduction rounds
// each device's partial result to the storage type before combining them.
struct Tolerance {
  double rel, of_max;
};

Tolerance tolerance_of(DType t) {
  switch (t) {
    case DType::bf16: return {0x1p-6, 0x1p-8};
    case DType::f16: return {0x1p-9, 0x1p-11};
    default: return {1e-4, 1e-5};
  }
}

}  // namespace

double tolerance(DType dtype, double r, double max_abs) {
  if (!shard::is_floating(dtype)) return 0;
  const Tolerance t = tolerance_of(dtype);
  return t.rel * std::fabs(r) + t.of_max * max_abs;
}

bool element_matches(DType dtype, double a, double r, double scale, double slack) {
  if (std::isnan(r) || std::isnan(a)) return std::isnan(a) && std::isnan(r);
  if (std::isinf(r) || std::isinf(a)) return a == r;
  return std::fabs(a - r) <= tolerance(dtype, r, scale) + slack;
}

double reference_scale(const double* r, std::int64_t n) {
  double scale = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (std::isfinite(r[i])) scale = std::max(scale, std::fabs(r[i]));
  return scale;
}

Comparison compare_to_reference(const HostTensor& a, const HostTensor& r, double atol) {
  Comparison c;
  if (a.dtype != r.dtype || a.shape != r.shape) {
    c.problem = "expected " + std::string(shard::dtype_name(r.dtype)) + shape_text(r.shape) + ", got " +
                std::string(shard::dtype_name(a.dtype)) + shape_text(a.shape);
    c.mismatches = -1;
    return c;
  }
  std::int64_t n = r.size();
  double scale = 0, diff2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (std::isfinite(r.as_double(i))) scale = std::max(scale, std::fabs(r.as_double(i)));
  for (std::int64_t i = 0; i < n; ++i) {
    double x = a.as_double(i), y = r.as_double(i);
    bool good;
    if (!a.is_float()) {
      good = a.ints[i] == r.ints[i];
    } else {
      good = element_matches(r.dtype, x, y, scale, atol);
    }
    if (!a.is_float() || (std::isfinite(x) && std::isfinite(y))) {
      double d = a.is_float() ? x - y : static_cast<double>(a.ints[i] - r.ints[i]);
      c.max_abs_error = std::max(c.max_abs_error, std::fabs(d));
      diff2 += d * d;
      ref2 += y * y;
    }
    if (!good) {
      if (c.mismatches == 0) {
        char buf[160];
        if (a.is_float())
          std::snprintf(buf, sizeof buf, "element %lld is %.9g, the reference has %.9g", static_cast<long long>(i), x, y);
        else  // exactly: an int64 printed as %g hides the difference
          std::snprintf(buf, sizeof buf, "element %lld is %lld, the reference has %lld", static_cast<long long>(i),
                        static_cast<long long>(a.ints[i]), static_cast<long long>(r.ints[i]));
        c.problem = buf;
      }
      ++c.mismatches;
    }
  }
  c.scale = scale;
  c.normwise_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0);
  c.ok = c.mismatches == 0;
  if (!c.ok) c.problem = std::to_string(c.mismatches) + " of " + std::to_string(n) + " elements differ; first: " + c.problem;
  return c;
}

std::string digest(const HostTensor& t) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&](unsigned char byte) {
    h ^= byte;
    h *= 1099511628211ull;
  };
  mix(static_cast<unsigned char>(t.dtype));
  for (std::int64_t d : t.shape)
    for (int k = 0; k < 8; ++k) mix(static_cast<unsigned char>(static_cast<std::uint64_t>(d) >> (8 * k)));
  for (unsigned char b : t.to_bytes()) mix(b);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace shardc::eval
