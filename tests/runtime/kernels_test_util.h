// Helpers for the kernel tests: owned arrays of any dtype, random fills, and index arithmetic
// for naive reference implementations (which deliberately share no code with the kernels).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "shard/kernels/float16.h"
#include "shard/kernels/view.h"

namespace kt {

using shard::DType;
using shard::Shape;
using shard::kernels::MutView;
using shard::kernels::View;

inline std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// A dense row-major array of any dtype, read and written as double.
struct Array {
  DType dtype;
  Shape shape;
  std::vector<unsigned char> bytes;

  Array(DType t, Shape s) : dtype(t), shape(std::move(s)), bytes(static_cast<std::size_t>(numel(shape)) * shard::dtype_size(t) + 1) {}
  std::int64_t size() const { return numel(shape); }
  View view() const { return View::contiguous(bytes.data(), dtype, shape); }
  MutView mut() { return MutView::contiguous(bytes.data(), dtype, shape); }

  double get(std::int64_t i) const {
    const unsigned char* p = bytes.data() + i * static_cast<std::int64_t>(shard::dtype_size(dtype));
    switch (dtype) {
      case DType::f32: { float v; std::memcpy(&v, p, 4); return v; }
      case DType::bf16: { std::uint16_t v; std::memcpy(&v, p, 2); return shard::kernels::bf16_to_f32(v); }
      case DType::f16: { std::uint16_t v; std::memcpy(&v, p, 2); return shard::kernels::f16_to_f32(v); }
      case DType::i32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
      case DType::i64: { std::int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
      case DType::boolean: return *p != 0;
    }
    return 0;
  }
  std::int64_t get_int(std::int64_t i) const {
    const unsigned char* p = bytes.data() + i * static_cast<std::int64_t>(shard::dtype_size(dtype));
    if (dtype == DType::i64) { std::int64_t v; std::memcpy(&v, p, 8); return v; }
    if (dtype == DType::i32) { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    return static_cast<std::int64_t>(get(i));
  }
  void set(std::int64_t i, double value) {
    unsigned char* p = bytes.data() + i * static_cast<std::int64_t>(shard::dtype_size(dtype));
    switch (dtype) {
      case DType::f32: { float v = static_cast<float>(value); std::memcpy(p, &v, 4); break; }
      case DType::bf16: { auto v = shard::kernels::f32_to_bf16(static_cast<float>(value)); std::memcpy(p, &v, 2); break; }
      case DType::f16: { auto v = shard::kernels::f32_to_f16(static_cast<float>(value)); std::memcpy(p, &v, 2); break; }
      case DType::i32: { auto v = static_cast<std::int32_t>(value); std::memcpy(p, &v, 4); break; }
      case DType::i64: { auto v = static_cast<std::int64_t>(value); std::memcpy(p, &v, 8); break; }
      case DType::boolean: *p = value != 0; break;
    }
  }
  void set_int(std::int64_t i, std::int64_t value) {
    unsigned char* p = bytes.data() + i * static_cast<std::int64_t>(shard::dtype_size(dtype));
    if (dtype == DType::i64) { std::memcpy(p, &value, 8); return; }
    if (dtype == DType::i32) { auto v = static_cast<std::int32_t>(value); std::memcpy(p, &v, 4); return; }
    set(i, static_cast<double>(value));
  }
};

// Fills with uniform values in [lo, hi) (integers: whole numbers in that range).
inline void randomize(Array& a, std::mt19937& rng, double lo = -2.0, double hi = 2.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = u(rng);
    a.set(i, shard::is_integer(a.dtype) ? std::floor(v) : a.dtype == DType::boolean ? (v > (lo + hi) / 2) : v);
  }
}

// The multi-index of flat row-major index i in shape.
inline Shape unravel(std::int64_t i, const Shape& shape) {
  Shape idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

// The flat index in `shape` of a result multi-index, broadcasting numpy-style (right-aligned,
// size-1 dims pinned to 0).
inline std::int64_t broadcast_index(const Shape& result_idx, const Shape& shape) {
  std::int64_t flat = 0;
  const std::size_t lead = result_idx.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + (shape[d] == 1 ? 0 : result_idx[lead + d]);
  return flat;
}

inline std::vector<DType> all_dtypes() {
  return {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean};
}

// One rounding of a double to the dtype, for references of 16-bit computations.
inline double round_to(DType t, double v) {
  Array a(t, {});
  a.set(0, v);
  return a.get(0);
}

}  // namespace kt
