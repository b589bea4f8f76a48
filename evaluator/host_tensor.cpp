#include "evaluator/host_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "evaluator/eval_error.h"
#include "frontend/internal_error.h"
#include "shard/kernels/float16.h"

namespace shardc::eval {

float round_to(DType dtype, float value) {
  switch (dtype) {
    case DType::bf16: return shard::kernels::bf16_to_f32(shard::kernels::f32_to_bf16(value));
    case DType::f16: return shard::kernels::f16_to_f32(shard::kernels::f32_to_f16(value));
    default: return value;
  }
}

std::int64_t wrap_to(DType dtype, std::int64_t value) {
  switch (dtype) {
    case DType::i32:
      // Modulo 2^32 in unsigned math, then reinterpreted: never signed overflow.
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
    case DType::boolean: return value != 0 ? 1 : 0;
    default: return value;
  }
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw EvalError("negative dimension in shape " + shape_text(shape));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw EvalError("shape " + shape_text(shape) + " has too many elements");
    n *= d;
  }
  return n;
}

std::string shape_text(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

HostTensor HostTensor::zeros(DType dtype, Shape shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  std::int64_t n = element_count(t.shape);
  if (t.is_float()) t.floats.assign(static_cast<std::size_t>(n), 0.0f);
  else t.ints.assign(static_cast<std::size_t>(n), 0);
  return t;
}

HostTensor HostTensor::from_bytes(DType dtype, Shape shape, const void* bytes) {
  HostTensor t = zeros(dtype, std::move(shape));
  const auto* p = static_cast<const unsigned char*>(bytes);
  std::int64_t n = t.size();
  for (std::int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::f32: std::memcpy(&t.floats[i], p + 4 * i, 4); break;
      case DType::bf16:
      case DType::f16: {
        std::uint16_t bits;
        std::memcpy(&bits, p + 2 * i, 2);
        t.floats[i] = dtype == DType::bf16 ? shard::kernels::bf16_to_f32(bits) : shard::kernels::f16_to_f32(bits);
        break;
      }
      case DType::i32: {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        t.ints[i] = v;
        break;
      }
      case DType::i64: std::memcpy(&t.ints[i], p + 8 * i, 8); break;
      case DType::boolean: t.ints[i] = p[i] != 0; break;
    }
  }
  return t;
}

HostTensor HostTensor::from_floats(DType dtype, Shape shape, const std::vector<double>& values) {
  HostTensor t = zeros(dtype, std::move(shape));
  if (static_cast<std::int64_t>(values.size()) != t.size())
    throw EvalError("from_floats: " + std::to_string(values.size()) + " values for shape " + shape_text(t.shape));
  for (std::size_t i = 0; i < values.size(); ++i) t.store_float(static_cast<std::int64_t>(i), values[i]);
  return t;
}

HostTensor HostTensor::from_ints(DType dtype, Shape shape, const std::vector<std::int64_t>& values) {
  HostTensor t = zeros(dtype, std::move(shape));
  if (static_cast<std::int64_t>(values.size()) != t.size())
    throw EvalError("from_ints: " + std::to_string(values.size()) + " values for shape " + shape_text(t.shape));
  for (std::size_t i = 0; i < values.size(); ++i) t.store_int(static_cast<std::int64_t>(i), values[i]);
  return t;
}

double HostTensor::as_double(std::int64_t i) const {
  return is_float() ? static_cast<double>(floats[i]) : static_cast<double>(ints[i]);
}

namespace {

// Float -> integer as XLA converts: truncate toward zero, saturate out of range, NaN -> 0.
std::int64_t saturating_int(double v, DType dtype) {
  if (dtype == DType::boolean) return v != 0.0;  // NaN is nonzero: true
  if (std::isnan(v)) return 0;
  double lo = dtype == DType::i32 ? -2147483648.0 : -9223372036854775808.0;
  double hi = dtype == DType::i32 ? 2147483647.0 : 9223372036854775807.0;
  double t = std::trunc(v);
  if (t <= lo) return dtype == DType::i32 ? std::numeric_limits<std::int32_t>::min()
                                          : std::numeric_limits<std::int64_t>::min();
  if (t >= hi) return dtype == DType::i32 ? std::numeric_limits<std::int32_t>::max()
                                          : std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(t);
}

}  // namespace

std::int64_t HostTensor::as_int(std::int64_t i) const {
  return is_float() ? saturating_int(floats[i], DType::i64) : ints[i];
}

void HostTensor::store_float(std::int64_t i, double v) {
  if (is_float()) floats[i] = round_to(dtype, static_cast<float>(v));
  else ints[i] = wrap_to(dtype, saturating_int(v, dtype));
}

void HostTensor::store_int(std::int64_t i, std::int64_t v) {
  if (is_float()) floats[i] = round_to(dtype, static_cast<float>(v));
  else ints[i] = wrap_to(dtype, v);
}

void HostTensor::copy_element(std::int64_t i, const HostTensor& from, std::int64_t from_index) {
  SHARDC_ASSERT(from.dtype == dtype, "copy_element between different dtypes");
  if (is_float()) floats[i] = from.floats[from_index];
  else ints[i] = from.ints[from_index];
}

std::vector<unsigned char> HostTensor::to_bytes() const {
  std::int64_t n = size();
  std::vector<unsigned char> out(static_cast<std::size_t>(n) * shard::dtype_size(dtype));
  unsigned char* p = out.data();
  for (std::int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::f32: std::memcpy(p + 4 * i, &floats[i], 4); break;
      case DType::bf16: {
        std::uint16_t bits = shard::kernels::f32_to_bf16(floats[i]);
        std::memcpy(p + 2 * i, &bits, 2);
        break;
      }
      case DType::f16: {
        std::uint16_t bits = shard::kernels::f32_to_f16(floats[i]);
        std::memcpy(p + 2 * i, &bits, 2);
        break;
      }
      case DType::i32: {
        auto v = static_cast<std::int32_t>(ints[i]);
        std::memcpy(p + 4 * i, &v, 4);
        break;
      }
      case DType::i64: std::memcpy(p + 8 * i, &ints[i], 8); break;
      case DType::boolean: p[i] = ints[i] != 0; break;
    }
  }
  return out;
}

bool identical(const HostTensor& a, const HostTensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape) return false;
  if (a.ints != b.ints || a.floats.size() != b.floats.size()) return false;
  for (std::size_t i = 0; i < a.floats.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a.floats[i]) != std::bit_cast<std::uint32_t>(b.floats[i])) return false;
  return true;
}

}  // namespace shardc::eval
