// A deliberately naive reference for the collectives: whole-array loops over multi-indices,
// written from JAX's definitions, independent of the runtime's grouping, layouts and copies
// (it shares nothing with runtime/src). Used by the randomized tests.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "shard/kernels/float16.h"
#include "shard/shard.h"

namespace shard::test {

// Device coordinates and groups, computed from scratch.
struct NaiveMesh {
  std::vector<std::string> names;
  std::vector<int> sizes;
  int devices() const {
    int n = 1;
    for (int s : sizes) n *= s;
    return n;
  }
  std::vector<int> coords(int d) const {
    std::vector<int> c(sizes.size());
    for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
      c[i] = d % sizes[i];
      d /= sizes[i];
    }
    return c;
  }
  int pos(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return static_cast<int>(i);
    return -1;
  }
  int rank(int d, const std::vector<std::string>& axes) const {
    const auto c = coords(d);
    int r = 0;
    for (const auto& a : axes) r = r * sizes[pos(a)] + c[pos(a)];
    return r;
  }
  int group_size(const std::vector<std::string>& axes) const {
    int n = 1;
    for (const auto& a : axes) n *= sizes[pos(a)];
    return n;
  }
  // The device in d's group with rank k.
  int peer(int d, const std::vector<std::string>& axes, int k) const {
    for (int e = 0; e < devices(); ++e) {
      const auto cd = coords(d), ce = coords(e);
      bool same = true;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        bool named = false;
        for (const auto& a : axes) named |= pos(a) == static_cast<int>(i);
        if (!named && cd[i] != ce[i]) same = false;
      }
      if (same && rank(e, axes) == k) return e;
    }
    return -1;
  }
};

inline std::int64_t flat_index(const Shape& shape, const Shape& index) {
  std::int64_t f = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + index[i];
  return f;
}
inline Shape unflatten(const Shape& shape, std::int64_t f) {
  Shape index(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    index[i] = f % shape[i];
    f /= shape[i];
  }
  return index;
}

inline void copy_element(const Tensor& from, std::int64_t i, Tensor& to, std::int64_t j) {
  const std::size_t e = dtype_size(from.dtype());
  std::memcpy(to.bytes() + j * e, from.bytes() + i * e, e);
}

enum class NaiveReduce { sum, max, min, prod };

// Element i of the reduction over `ins` (rank order), in JAX's dtype rules; writes into out[j].
inline void reduce_element(const std::vector<const Tensor*>& ins, std::int64_t i, NaiveReduce op, Tensor& out,
                           std::int64_t j) {
  const DType t = ins[0]->dtype();
  auto fold_float = [&](auto load) {
    // A sum starts from +0 (XLA's all-reduce); max/min keep the first of equal values and the
    // first NaN.
    float acc = op == NaiveReduce::sum ? 0.0f + load(*ins[0], i) : load(*ins[0], i);
    for (std::size_t k = 1; k < ins.size(); ++k) {
      const float v = load(*ins[k], i);
      if (op == NaiveReduce::sum) acc = acc + v;
      else if (op == NaiveReduce::prod) acc = acc * v;
      else if (op == NaiveReduce::max) acc = (std::isnan(acc) || !(v > acc || std::isnan(v))) ? acc : v;
      else acc = (std::isnan(acc) || !(v < acc || std::isnan(v))) ? acc : v;
    }
    return acc;
  };
  switch (t) {
    case DType::f32: out.as<float>()[j] = fold_float([](const Tensor& x, std::int64_t n) { return x.as<float>()[n]; }); return;
    case DType::bf16:
      out.as<std::uint16_t>()[j] = kernels::f32_to_bf16(
          fold_float([](const Tensor& x, std::int64_t n) { return kernels::bf16_to_f32(x.as<std::uint16_t>()[n]); }));
      return;
    case DType::f16:
      out.as<std::uint16_t>()[j] = kernels::f32_to_f16(
          fold_float([](const Tensor& x, std::int64_t n) { return kernels::f16_to_f32(x.as<std::uint16_t>()[n]); }));
      return;
    case DType::i32:
    case DType::i64: {
      const bool wide = t == DType::i64;
      auto load = [&](const Tensor& x) { return wide ? x.as<std::int64_t>()[i] : x.as<std::int32_t>()[i]; };
      std::int64_t acc = load(*ins[0]);
      std::uint64_t usum = static_cast<std::uint64_t>(acc);
      std::uint64_t uprod = static_cast<std::uint64_t>(acc);
      for (std::size_t k = 1; k < ins.size(); ++k) {
        const std::int64_t v = load(*ins[k]);
        usum += static_cast<std::uint64_t>(v);
        uprod *= static_cast<std::uint64_t>(v);
        acc = op == NaiveReduce::max ? std::max(acc, v) : std::min(acc, v);
      }
      if (op == NaiveReduce::sum || op == NaiveReduce::prod) {  // both wrap: the low bits of the 64-bit result
        const std::uint64_t r = op == NaiveReduce::sum ? usum : uprod;
        if (wide) out.as<std::int64_t>()[j] = static_cast<std::int64_t>(r);
        else out.as<std::int32_t>()[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(r));
      } else {
        if (wide) out.as<std::int64_t>()[j] = acc;
        else out.as<std::int32_t>()[j] = static_cast<std::int32_t>(acc);
      }
      return;
    }
    case DType::boolean: {
      int count = 0, any = 0, all = 1;
      for (const Tensor* x : ins) {
        const int v = x->as<std::uint8_t>()[i] ? 1 : 0;
        count += v;
        any |= v;
        all &= v;
      }
      if (op == NaiveReduce::sum) out.as<std::int32_t>()[j] = count;
      else if (op == NaiveReduce::prod) out.as<std::int32_t>()[j] = all;
      else out.as<std::uint8_t>()[j] = static_cast<std::uint8_t>(op == NaiveReduce::max ? any : all);
      return;
    }
  }
}

inline DType reduce_result_dtype(DType t, NaiveReduce op) {
  return t == DType::boolean && (op == NaiveReduce::sum || op == NaiveReduce::prod) ? DType::i32 : t;
}

inline Tensor naive_reduce(const std::vector<const Tensor*>& ins, NaiveReduce op) {
  Tensor out(reduce_result_dtype(ins[0]->dtype(), op), ins[0]->shape());
  for (std::int64_t i = 0; i < out.numel(); ++i) reduce_element(ins, i, op, out, i);
  return out;
}

inline Tensor naive_all_gather(const std::vector<const Tensor*>& ins, int axis, bool tiled) {
  const Shape& s = ins[0]->shape();
  const int n = static_cast<int>(ins.size());
  Shape os = s;
  if (tiled) os[axis] *= n;
  else os.insert(os.begin() + axis, n);
  Tensor out(ins[0]->dtype(), os);
  for (std::int64_t f = 0; f < out.numel(); ++f) {
    Shape o = unflatten(os, f);
    int k;
    Shape src = o;
    if (tiled) {
      k = static_cast<int>(o[axis] / s[axis]);
      src[axis] = o[axis] % s[axis];
    } else {
      k = static_cast<int>(o[axis]);
      src.erase(src.begin() + axis);
    }
    copy_element(*ins[k], flat_index(s, src), out, f);
  }
  return out;
}

inline Tensor naive_psum_scatter(const std::vector<const Tensor*>& ins, int rank, int dim, bool tiled) {
  const Shape& s = ins[0]->shape();
  const int n = static_cast<int>(ins.size());
  Shape os = s;
  if (tiled) os[dim] /= n;
  else os.erase(os.begin() + dim);
  Tensor out(reduce_result_dtype(ins[0]->dtype(), NaiveReduce::sum), os);
  for (std::int64_t f = 0; f < out.numel(); ++f) {
    Shape src = unflatten(os, f);
    if (tiled) src[dim] += rank * os[dim];
    else src.insert(src.begin() + dim, rank);
    reduce_element(ins, flat_index(s, src), NaiveReduce::sum, out, f);
  }
  return out;
}

inline Tensor naive_all_to_all(const std::vector<const Tensor*>& ins, int rank, int split, int concat, bool tiled) {
  const Shape& s = ins[0]->shape();
  const int n = static_cast<int>(ins.size());
  Shape os = s;
  if (tiled) {
    os[split] /= n;
    os[concat] *= n;
  } else {
    os.erase(os.begin() + split);
    os.insert(os.begin() + concat, n);
  }
  Tensor out(ins[0]->dtype(), os);
  for (std::int64_t f = 0; f < out.numel(); ++f) {
    Shape o = unflatten(os, f);
    int k;
    Shape src = o;
    if (tiled) {
      const std::int64_t concat_chunk = split == concat ? s[concat] / n : s[concat];
      k = static_cast<int>(o[concat] / concat_chunk);
      src[concat] = o[concat] % concat_chunk;
      src[split] += rank * (s[split] / n);
    } else {
      k = static_cast<int>(o[concat]);
      src.erase(src.begin() + concat);
      src.insert(src.begin() + split, rank);
    }
    copy_element(*ins[k], flat_index(s, src), out, f);
  }
  return out;
}

}  // namespace shard::test
