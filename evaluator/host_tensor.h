// The evaluator's own global tensor: a dtype, a shape and row-major data, nothing else.
// It shares no code with the runtime's Tensor on purpose (the evaluator is an independent
// oracle); only the DType vocabulary and the 16-bit float conversions are common.
//
// Storage follows the dtype's kind:
//   f32 / bf16 / f16 -> `floats`, each value already rounded to the dtype's precision
//                       (a bf16 element is a float whose low 16 bits are zero);
//   i32 / i64 / bool -> `ints`, each value already wrapped to the dtype (an i32 element
//                       is sign-extended, a bool is 0 or 1).
// Every write goes through store_float / store_int, which round or wrap, so no value of
// the wrong precision can hide in a tensor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shard/dtype.h"

namespace shardc::eval {

using shard::DType;
using shard::Shape;

// Rounds an f32 value to the precision of a float dtype (bf16/f16: to nearest even, through
// their 16-bit patterns, exactly as the runtime stores them).
float round_to(DType dtype, float value);
// Wraps an integer to an integer dtype modulo 2^bits (bool: nonzero -> 1), in unsigned math.
std::int64_t wrap_to(DType dtype, std::int64_t value);

std::int64_t element_count(const Shape& shape);  // throws EvalError on a negative size
std::string shape_text(const Shape& shape);      // (2, 4)

struct HostTensor {
  DType dtype = DType::f32;
  Shape shape;
  std::vector<float> floats;       // float dtypes only
  std::vector<std::int64_t> ints;  // integer and bool dtypes only

  // A tensor of zeros (false) of the given dtype and shape.
  static HostTensor zeros(DType dtype, Shape shape);
  // Raw bytes in the runtime's layout (to_host): f32 floats, bf16/f16 16-bit patterns,
  // i32/i64 two's complement, bool one byte 0/1. `bytes` must hold count * dtype_size bytes.
  static HostTensor from_bytes(DType dtype, Shape shape, const void* bytes);
  // Builders for tests and drivers; values are rounded/wrapped to the dtype.
  static HostTensor from_floats(DType dtype, Shape shape, const std::vector<double>& values);
  static HostTensor from_ints(DType dtype, Shape shape, const std::vector<std::int64_t>& values);

  bool is_float() const { return shard::is_floating(dtype); }
  std::int64_t size() const { return element_count(shape); }
  int rank() const { return static_cast<int>(shape.size()); }

  // Element i (row-major) read as a double / an integer (floats truncate toward zero,
  // saturating, as astype does).
  double as_double(std::int64_t i) const;
  std::int64_t as_int(std::int64_t i) const;
  // Writes element i, rounding or wrapping to the dtype.
  void store_float(std::int64_t i, double v);
  void store_int(std::int64_t i, std::int64_t v);
  // Copies element `from_index` of `from` (same dtype) to element i.
  void copy_element(std::int64_t i, const HostTensor& from, std::int64_t from_index);

  std::vector<unsigned char> to_bytes() const;
};

// Bitwise equality of dtype, shape and data (NaNs with equal bits are equal).
bool identical(const HostTensor& a, const HostTensor& b);

// Row-major strides of a shape, in elements.
std::vector<std::int64_t> strides_of(const Shape& shape);

}  // namespace shardc::eval
