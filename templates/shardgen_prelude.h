// The fixed, placeholder-free part of every file shardc generates: small Tensor-level helpers
// over the runtime (shard/*.h) and its kernels (shard/kernels/*.h), so that each line of a
// generated per-device function is one call. Header-only and installed with the runtime's
// headers; generated code includes it as "shardgen_prelude.h".
//
// Everything here runs on one device thread, inside a Runtime::run call, on local blocks.
// Errors are thrown as the runtime's error types (ShapeError, ArgumentError), which the
// Runtime turns into a DeviceError for the whole call.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "shard/kernels/context.h"
#include "shard/kernels/data_movement.h"
#include "shard/kernels/elementwise.h"
#include "shard/kernels/float16.h"
#include "shard/kernels/matmul.h"
#include "shard/kernels/reduce.h"
#include "shard/kernels/sort.h"
#include "shard/kernels/view.h"
#include "shard/random.h"
#include "shard/shard.h"

namespace shardgen::prelude {

// Generated code checks this at compile time: a header from another shardc version fails the
// build instead of misbehaving. Bump it with any change of a helper's meaning or signature.
inline constexpr int kVersion = 4;

using shard::DType;
using shard::Shape;
using shard::Tensor;
namespace k = shard::kernels;

// The kernel context of the device this thread runs: its own oneDNN stream and scratch, and the
// Runtime's compute gate when devices outnumber cores. Off a device thread (never in generated
// entry points), one context per thread.
inline k::Context& context() {
  if (shard::Device* dev = shard::current_device()) return dev->kernels();
  thread_local k::Context ctx;
  return ctx;
}

inline k::View in_view(const Tensor& t) { return k::View::contiguous(t.data(), t.dtype(), t.shape()); }
inline k::MutView out_view(Tensor& t) { return k::MutView::contiguous(t.data(), t.dtype(), t.shape()); }

// ---- conversions and scalars ----------------------------------------------------------------

inline Tensor convert(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = Tensor::uninitialized(dtype, x.shape());
  k::copy(in_view(x), out_view(out));
  return out;
}

// `x` in `dtype` without a copy when it already has it: converts into a temporary otherwise.
class InDType {
 public:
  InDType(const Tensor& x, DType dtype) : x_(&x) {
    if (x.dtype() != dtype) {
      converted_ = convert(x, dtype);
      x_ = &converted_;
    }
  }
  InDType(const InDType&) = delete;
  InDType& operator=(const InDType&) = delete;
  const Tensor& operator*() const { return *x_; }

 private:
  const Tensor* x_;
  Tensor converted_;
};

// A rank-0 tensor holding `value` converted to `dtype` (integers exactly).
inline Tensor scalar_int(DType dtype, std::int64_t value) {
  Tensor out = Tensor::uninitialized(dtype, {});
  k::fill_int(out_view(out), value);
  return out;
}
inline Tensor scalar_float(DType dtype, double value) {
  Tensor out = Tensor::uninitialized(dtype, {});
  k::fill(out_view(out), value);
  return out;
}

// The value of an integer rank-0 tensor (a dynamic index, a seed).
inline std::int64_t to_index(const Tensor& t) {
  if (t.numel() != 1) throw shard::ShapeError("expected a scalar index, got " + t.type_string());
  Tensor i = convert(t, DType::i64);
  return i.as<std::int64_t>()[0];
}

// ---- elementwise --------------------------------------------------------------------------

inline Tensor unary(k::UnaryOp op, const Tensor& x, DType dtype) {
  InDType in(x, dtype);
  Tensor out = Tensor::uninitialized(dtype, (*in).shape());
  k::unary(context(), op, in_view(*in), out_view(out));
  return out;
}

// Both operands are converted to `dtype` (the promoted dtype) and broadcast to `shape`.
inline Tensor binary(k::BinaryOp op, const Tensor& a, const Tensor& b, DType dtype, Shape shape) {
  InDType ca(a, dtype), cb(b, dtype);
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  k::binary(context(), op, in_view(*ca), in_view(*cb), out_view(out));
  return out;
}

// binary() into a's own block when a already has the result's dtype and shape (generated code
// passes a block nobody reads again, as in acc = acc + x); otherwise as binary().
inline Tensor binary_reusing(k::BinaryOp op, Tensor a, const Tensor& b, DType dtype, Shape shape) {
  if (a.dtype() != dtype || a.shape() != shape) return binary(op, a, b, dtype, std::move(shape));
  InDType cb(b, dtype);
  k::binary(context(), op, in_view(a), in_view(*cb), out_view(a));
  return a;
}

inline Tensor compare(k::CompareOp op, const Tensor& a, const Tensor& b, DType dtype, Shape shape) {
  InDType ca(a, dtype), cb(b, dtype);
  Tensor out = Tensor::uninitialized(DType::boolean, std::move(shape));
  k::compare(op, in_view(*ca), in_view(*cb), out_view(out));
  return out;
}

inline Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b, DType dtype, Shape shape) {
  InDType ca(a, dtype), cb(b, dtype);
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  k::select(in_view(cond), in_view(*ca), in_view(*cb), out_view(out));
  return out;
}

// ---- data movement -------------------------------------------------------------------------

inline Tensor materialize(const k::View& v) {
  Tensor out = Tensor::uninitialized(v.dtype, v.shape);
  k::copy(v, out_view(out));
  return out;
}

// By value: generated code moves a block nobody reads again in, which keeps its buffer.
inline Tensor reshape(Tensor x, Shape shape) { return std::move(x).reshaped(std::move(shape)); }

inline Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
  return materialize(in_view(x).permuted(perm));
}

// ---- windows: views into a block, nothing copied ------------------------------------------
// Generated code reads a slice, dynamic slice, index or reshape in place when only matmuls (and
// further windows) read it; the block it views outlives the window (codegen/last_use.h).

// x[starts:limits:steps].
inline k::View slice_window(const k::View& x, const Shape& starts, const Shape& limits, const Shape& steps) {
  k::View v = x;
  for (int d = 0; d < static_cast<int>(x.rank()); ++d) {
    const auto i = static_cast<std::size_t>(d);
    v = v.sliced(d, starts[i], shard::slice_count(starts[i], limits[i], steps[i]), steps[i]);
  }
  return v;
}

// lax.dynamic_slice (starts clamped as JAX does).
inline k::View dynamic_window(const k::View& x, const Shape& starts, const Shape& sizes) {
  return k::dynamic_window(x, starts, sizes);
}

// Gives the blocks of tensors nothing reads again back to the runtime's block cache (generated
// code calls it after each tensor's last use, so a body holds only the blocks it still needs).
template <class... Tensors>
inline void release(Tensors&... tensors) {
  ((tensors = Tensor()), ...);
}

// x[i] along dimension 0: a dynamic_slice of one row without its dimension, so i counts from
// the end when negative and is clamped, as JAX's x[i] on CPU.
inline k::View index_window(const k::View& x, std::int64_t index) {
  if (x.rank() == 0) throw shard::ShapeError("cannot index a scalar");
  Shape starts(x.shape.size(), 0), sizes = x.shape;
  starts[0] = index;
  sizes[0] = 1;
  k::View v = k::dynamic_window(x, starts, sizes);
  v.shape.erase(v.shape.begin());
  v.strides.erase(v.strides.begin());
  return v;
}

// A block seen with another shape of the same element count.
inline k::View reshape_window(const k::View& x, const Shape& shape) { return x.reshaped(shape); }

// ---- copies out of a block ------------------------------------------------------------------

// x[starts:limits:steps], then the `squeezed` dims (indexed, not sliced) removed.
inline Tensor slice(const Tensor& x, const Shape& starts, const Shape& limits, const Shape& steps,
                    const std::vector<int>& squeezed) {
  Tensor out = materialize(slice_window(in_view(x), starts, limits, steps));
  if (squeezed.empty()) return out;
  Shape kept;
  for (int d = 0; d < out.rank(); ++d)
    if (std::find(squeezed.begin(), squeezed.end(), d) == squeezed.end()) kept.push_back(out.dim(d));
  return std::move(out).reshaped(kept);
}

// lax.dynamic_slice with per-dimension starts (clamped as JAX does) and sizes.
inline Tensor dynamic_slice(const Tensor& x, const Shape& starts, Shape sizes) {
  Tensor out = Tensor::uninitialized(x.dtype(), std::move(sizes));
  k::dynamic_slice(in_view(x), starts, out_view(out));
  return out;
}

// By value: generated code moves a block nobody reads again in, which is updated in place
// (a loop filling a result slice by slice then copies nothing).
inline Tensor dynamic_update_slice(Tensor x, const Tensor& update, const Shape& starts) {
  InDType u(update, x.dtype());
  k::dynamic_update_slice(out_view(x), in_view(*u), starts);
  return x;
}

// A dimension of a block along which dynamic_update_slice_across_blocks' starts are global.
struct BlockedDim {
  int dim;
  std::int64_t global_size;
  shard::Axes axes;  // the dimension's sharding: block i of it is on the device of axis_index i
};

// dynamic_update_slice of the array whose block x is, along `blocked` dimensions where `update`
// spans the window (gathered) and starts are global: each start is placed as lax's are
// (k::clamp_start, against the global dimension), and the device writes the part of the
// window that falls in its block. Along the other dimensions, as dynamic_update_slice.
inline Tensor dynamic_update_slice_across_blocks(shard::Device& dev, Tensor x, const Tensor& update, Shape starts,
                                                 const std::vector<BlockedDim>& blocked) {
  InDType converted(update, x.dtype());
  const Tensor& u = *converted;
  k::MutView window = out_view(x);
  k::View source = in_view(u);
  std::vector<bool> is_blocked(static_cast<std::size_t>(x.rank()), false);
  for (const BlockedDim& b : blocked) {
    const std::int64_t size = u.dim(b.dim), block = x.dim(b.dim);
    const std::int64_t start = k::clamp_start(starts.at(static_cast<std::size_t>(b.dim)), b.global_size, size);
    const std::int64_t local = start - dev.axis_index(b.axes) * block;  // in this block's coordinates
    const std::int64_t first = std::max<std::int64_t>(local, 0), end = std::min(local + size, block);
    if (end <= first) return x;  // no part of the window is here
    window = window.sliced(b.dim, first, end - first);
    source = source.sliced(b.dim, first - local, end - first);
    is_blocked[static_cast<std::size_t>(b.dim)] = true;
  }
  for (int d = 0; d < x.rank(); ++d) {
    if (is_blocked[static_cast<std::size_t>(d)]) continue;
    const std::int64_t size = u.dim(d);
    const std::int64_t start = k::clamp_start(starts.at(static_cast<std::size_t>(d)), x.dim(d), size);
    window = window.sliced(d, start, size);
  }
  k::copy(source, window);
  return x;
}

// x[i] for a runtime index i along dimension 0 (clamped, as JAX's x[i] on CPU).
inline Tensor dynamic_index(const Tensor& x, std::int64_t index) { return materialize(index_window(in_view(x), index)); }

inline Tensor concat(const std::vector<const Tensor*>& xs, int axis, DType dtype, Shape shape) {
  std::vector<Tensor> converted;
  std::vector<k::View> views;
  converted.reserve(xs.size());
  for (const Tensor* x : xs) converted.push_back(convert(*x, dtype));
  for (const Tensor& c : converted) views.push_back(in_view(c));
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  k::concat(views, axis, out_view(out));
  return out;
}

// jnp.stack: each input gets a size-1 dim at `axis`, then they are concatenated.
inline Tensor stack(const std::vector<const Tensor*>& xs, int axis, DType dtype, Shape shape) {
  std::vector<Tensor> expanded;
  for (const Tensor* x : xs) {
    Shape s = x->shape();
    s.insert(s.begin() + axis, 1);
    expanded.push_back(convert(*x, dtype).reshaped(s));
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& e : expanded) ptrs.push_back(&e);
  return concat(ptrs, axis, dtype, std::move(shape));
}

inline Tensor roll(const Tensor& x, std::int64_t shift, int axis) {
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  k::roll(in_view(x), shift, axis, out_view(out));
  return out;
}

// ---- reductions ----------------------------------------------------------------------------

inline Tensor reduce(k::ReduceOp op, const Tensor& x, const std::vector<int>& axes, DType dtype, Shape shape) {
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  // mean of integers reads them as they are and writes floats; the rest compute in `dtype`.
  InDType in(x, op == k::ReduceOp::mean ? x.dtype() : dtype);
  k::reduce(context(), op, in_view(*in), axes, out_view(out));
  return out;
}

// jnp.argmax / argmin along one axis (i32 indices; `shape` is the result's, with or without
// the kept size-1 dimension).
inline Tensor argmax(const Tensor& x, int axis, Shape shape) {
  Tensor out = Tensor::uninitialized(DType::i32, std::move(shape));
  k::argmax(in_view(x), axis, out_view(out));
  return out;
}
inline Tensor argmin(const Tensor& x, int axis, Shape shape) {
  Tensor out = Tensor::uninitialized(DType::i32, std::move(shape));
  k::argmin(in_view(x), axis, out_view(out));
  return out;
}

// Integers and bools are taken as f32 (language.md: softmax of an int array is f32).
inline Tensor softmax(const Tensor& x, int axis) {
  if (!shard::is_floating(x.dtype())) return softmax(convert(x, DType::f32), axis);
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  k::softmax(context(), in_view(x), axis, out_view(out));
  return out;
}

inline std::tuple<Tensor, Tensor> top_k(const Tensor& x, std::int64_t k_count, Shape shape) {
  Tensor values = Tensor::uninitialized(x.dtype(), shape);
  Tensor indices = Tensor::uninitialized(DType::i32, shape);
  k::top_k(in_view(x), k_count, out_view(values), out_view(indices));
  return {std::move(values), std::move(indices)};
}

// ---- einsum --------------------------------------------------------------------------------

// A two-operand einsum ("bd,df->bf") as one batched matmul: each operand is permuted to
// [batch, free, contracted] (or [batch, contracted, free]) and flattened; the product is
// unflattened and permuted to the output's letter order. Letters that appear in one operand
// only and not in the output are summed first. Repeated letters within one operand are not
// supported (the compiler never emits them).
class Einsum {
 public:
  static Tensor run(std::string_view spec, const Tensor& a, const Tensor& b, DType dtype) {
    auto arrow = spec.find("->");
    auto comma = spec.find(',');
    if (arrow == std::string_view::npos || comma == std::string_view::npos || comma > arrow)
      throw shard::ArgumentError("einsum spec '" + std::string(spec) + "' needs two operands and ->");
    std::string la(spec.substr(0, comma)), lb(spec.substr(comma + 1, arrow - comma - 1)),
        lo(spec.substr(arrow + 2));
    InDType a_in(a, dtype), b_in(b, dtype);
    Tensor a_summed, b_summed;  // set only when a letter is summed away first
    const Tensor& ca = sum_private(*a_in, la, lb, lo, a_summed);
    const Tensor& cb = sum_private(*b_in, lb, la, lo, b_summed);
    std::string batch, free_a, free_b, contracted;
    for (char c : la) {
      bool in_b = lb.find(c) != std::string::npos, in_o = lo.find(c) != std::string::npos;
      if (in_b && in_o) batch += c;
      else if (in_b) contracted += c;
      else free_a += c;
    }
    for (char c : lb)
      if (la.find(c) == std::string::npos) free_b += c;
    std::int64_t B = 1, M = 1, N = 1, K = 1;
    for (char c : batch) B *= dim_of(ca, la, c);
    for (char c : free_a) M *= dim_of(ca, la, c);
    for (char c : free_b) N *= dim_of(cb, lb, c);
    for (char c : contracted) {
      if (dim_of(ca, la, c) != dim_of(cb, lb, c))
        throw shard::ShapeError("einsum '" + std::string(spec) + "': contracted dimension '" + std::string(1, c) +
                                "' has sizes " + std::to_string(dim_of(ca, la, c)) + " and " +
                                std::to_string(dim_of(cb, lb, c)));
      K *= dim_of(ca, la, c);
    }
    Tensor a_moved, b_moved;  // set only when an operand's letters must be reordered by a copy
    k::View pa = arrange(ca, la, {batch, free_a, contracted}, {B, M, K}, a_moved);
    k::View pb = arrange(cb, lb, {batch, contracted, free_b}, {B, K, N}, b_moved);
    Tensor product = Tensor::uninitialized(dtype, {B, M, N});
    k::matmul(context(), pa, pb, out_view(product));
    std::string order = batch + free_a + free_b;
    Shape natural;
    for (char c : order) natural.push_back(la.find(c) != std::string::npos ? dim_of(ca, la, c) : dim_of(cb, lb, c));
    Tensor unflat = std::move(product).reshaped(natural);
    std::vector<int> perm;
    for (char c : lo) perm.push_back(static_cast<int>(order.find(c)));
    if (is_identity(perm)) return unflat;
    return transpose(unflat, perm);
  }

 private:
  static std::int64_t dim_of(const Tensor& t, const std::string& letters, char c) {
    return t.dim(static_cast<int>(letters.find(c)));
  }
  static bool is_identity(const std::vector<int>& perm) {
    for (std::size_t i = 0; i < perm.size(); ++i)
      if (perm[i] != static_cast<int>(i)) return false;
    return true;
  }
  // Sums the letters of `mine` found neither in `other` nor in `out`, and drops them from
  // `mine`. Returns x itself when there are none, else the sum (held in `storage`).
  static const Tensor& sum_private(const Tensor& x, std::string& mine, const std::string& other,
                                   const std::string& out, Tensor& storage) {
    std::vector<int> axes;
    std::string kept;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      char c = mine[i];
      if (mine.find(c) != i) throw shard::ArgumentError("einsum: repeated letter '" + std::string(1, c) + "'");
      if (other.find(c) == std::string::npos && out.find(c) == std::string::npos) axes.push_back(static_cast<int>(i));
      else kept += c;
    }
    if (axes.empty()) return x;
    Shape shape;
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (std::find(axes.begin(), axes.end(), static_cast<int>(i)) == axes.end()) shape.push_back(x.dim(static_cast<int>(i)));
    mine = kept;
    storage = reduce(k::ReduceOp::sum, x, axes, x.dtype(), shape);
    return storage;
  }
  // x (letters `have`) as a [B, rows, cols] view whose three dims are the letter groups `want`:
  // the tensor itself when the order already matches; else x read through permuted strides when
  // each group's dims merge into one (oneDNN takes strided operands: q @ k^T reads k in place);
  // else a transposed copy held in `storage`.
  static k::View arrange(const Tensor& x, const std::string& have, const std::array<std::string, 3>& want,
                         Shape flat, Tensor& storage) {
    std::vector<int> perm;
    for (const std::string& group : want)
      for (char c : group) perm.push_back(static_cast<int>(have.find(c)));
    if (is_identity(perm)) return k::View::contiguous(x.data(), x.dtype(), std::move(flat));
    if (x.numel() > 0)
      if (auto v = grouped(in_view(x).permuted(perm), want)) return *v;
    storage = transpose(x, perm);
    return k::View::contiguous(storage.data(), storage.dtype(), std::move(flat));
  }
  // v with each group of consecutive dims (sized as `groups`) merged into one dim, when the
  // strides allow it without a copy (an empty group is a dim of size 1).
  static std::optional<k::View> grouped(const k::View& v, const std::array<std::string, 3>& groups) {
    k::View out{v.data, v.dtype, {}, {}};
    std::size_t d = 0;
    for (const std::string& group : groups) {
      std::int64_t size = 1, stride = 1;
      for (std::size_t i = d + group.size(); i-- > d;) {  // innermost first
        if (v.shape[i] == 1) continue;
        if (size > 1 && v.strides[i] != stride * size) return std::nullopt;
        if (size == 1) stride = v.strides[i];
        size *= v.shape[i];
      }
      out.shape.push_back(size);
      out.strides.push_back(stride);
      d += group.size();
    }
    return out;
  }
};

inline Tensor einsum(std::string_view spec, const Tensor& a, const Tensor& b, DType dtype) {
  return Einsum::run(spec, a, b, dtype);
}

// a[M, K] @ b[K, N] of 2-D views of `dtype` (either may be a window into a larger block, read
// through its strides): the einsum "ab,bc->ac" when an operand is a dynamic_window.
inline Tensor matmul(const k::View& a, const k::View& b, DType dtype) {
  if (a.rank() != 2 || b.rank() != 2)
    throw shard::ShapeError("matmul of views needs 2-D operands, got " + k::shape_string(a.shape) + " and " +
                            k::shape_string(b.shape));
  Tensor out = Tensor::uninitialized(dtype, {a.shape[0], b.shape[1]});
  k::matmul(context(), a, b, out_view(out));
  return out;
}

// A one-operand einsum ("ij->ji", "ijk->k"): the letters missing from the output are summed
// (in `dtype`), then the rest are permuted to the output's order.
inline Tensor einsum(std::string_view spec, const Tensor& x, DType dtype) {
  const auto arrow = spec.find("->");
  if (arrow == std::string_view::npos || spec.substr(0, arrow).find(',') != std::string_view::npos)
    throw shard::ArgumentError("einsum spec '" + std::string(spec) + "' needs one operand and ->");
  const std::string in(spec.substr(0, arrow)), out(spec.substr(arrow + 2));
  if (static_cast<int>(in.size()) != x.rank())
    throw shard::ShapeError("einsum '" + std::string(spec) + "' names " + std::to_string(in.size()) +
                            " dimensions of " + x.type_string());
  InDType cx(x, dtype);
  std::vector<int> summed;
  std::string kept;
  Shape kept_shape;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in.find(in[i]) != i) throw shard::ArgumentError("einsum: repeated letter '" + std::string(1, in[i]) + "'");
    if (out.find(in[i]) == std::string::npos) {
      summed.push_back(static_cast<int>(i));
    } else {
      kept += in[i];
      kept_shape.push_back(x.dim(static_cast<int>(i)));
    }
  }
  Tensor reduced = summed.empty() ? *cx : reduce(k::ReduceOp::sum, *cx, summed, dtype, kept_shape);
  std::vector<int> perm;
  bool identity = true;
  for (char c : out) {
    perm.push_back(static_cast<int>(kept.find(c)));
    identity = identity && perm.back() == static_cast<int>(perm.size()) - 1;
  }
  if (perm.size() != kept.size()) throw shard::ArgumentError("einsum '" + std::string(spec) + "': bad output letters");
  return identity ? reduced : transpose(reduced, perm);
}

// ---- constructors --------------------------------------------------------------------------

// A block whose every element the code that follows writes before reading it (a zeros block
// that dynamic_update_slices overwrite whole: codegen/overwritten_fills.h).
inline Tensor uninitialized(DType dtype, Shape shape) { return Tensor::uninitialized(dtype, std::move(shape)); }

inline Tensor fill(DType dtype, Shape shape, double value) {
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  k::fill(out_view(out), value);
  return out;
}

inline Tensor full(DType dtype, Shape shape, const Tensor& value) {
  Tensor v = convert(value, dtype);
  Tensor out = Tensor::uninitialized(dtype, std::move(shape));
  k::copy(in_view(v).broadcast_to(out.shape()), out_view(out));
  return out;
}

// The block of `device` of a global array with this shape and sharding: its offset and shape.
struct BlockPlace {
  Shape offset;
  Shape shape;
};
inline BlockPlace place(shard::Device& dev, const Shape& global, const std::vector<shard::DimAxes>& spec) {
  shard::Sharding sharding(dev.mesh(), spec);
  return {sharding.block_offset(global, dev.id()), sharding.block_shape(global)};
}

// This device's block of arange(start, start + step * global, step) laid out on `spec`.
inline Tensor arange(shard::Device& dev, DType dtype, double start, double step, std::int64_t global,
                     const std::vector<shard::DimAxes>& spec) {
  BlockPlace p = place(dev, {global}, spec);
  const bool integral = shard::is_integer(dtype);  // NumPy's integer fill (shard::arange_int_fill)
  Tensor out = Tensor::uninitialized(integral ? DType::i64 : DType::f32, p.shape);
  // A float array is filled as NumPy fills it (shard::arange_fill), from its first two elements
  // as the dtype stores them.
  auto stored = [&](double v) {
    const auto f = static_cast<float>(v);
    if (dtype == DType::bf16) return k::bf16_to_f32(k::f32_to_bf16(f));
    if (dtype == DType::f16) return k::f16_to_f32(k::f32_to_f16(f));
    return f;
  };
  const float first = stored(start), second = stored(start + step);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    const std::int64_t g = i + p.offset[0];  // the element's global index
    if (integral) out.as<std::int64_t>()[i] = shard::arange_int_fill(start, step, g);
    else if (shard::is_floating(dtype)) out.as<float>()[i] = g == 0 ? first : g == 1 ? second : shard::arange_fill(first, second, g);
    else out.as<float>()[i] = static_cast<float>(start + static_cast<double>(g) * step);
  }
  return convert(out, dtype);
}

// ---- random --------------------------------------------------------------------------------

using Key = shard::random::Key;

inline Key make_key(const Tensor& seed) { return shard::random::key(to_index(seed)); }
inline Key fold_in(Key key, const Tensor& data) {
  return shard::random::fold_in(key, static_cast<std::uint32_t>(static_cast<std::uint64_t>(to_index(data))));
}
inline Key split_at(Key key, std::uint64_t i) { return shard::random::split_at(key, i); }

// This device's block of normal/uniform(key, global shape) on `spec` (an empty spec: the
// whole array, as inside a shard_map body).
inline Tensor normal(shard::Device& dev, Key key, DType dtype, const Shape& global,
                     const std::vector<shard::DimAxes>& spec) {
  BlockPlace p = place(dev, global, spec);
  Tensor out = Tensor::uninitialized(dtype, p.shape);
  shard::random::normal(key, dtype, shard::random::Block{global, p.offset, p.shape}, out.data());
  return out;
}
inline Tensor uniform(shard::Device& dev, Key key, DType dtype, const Shape& global,
                      const std::vector<shard::DimAxes>& spec, double minval, double maxval) {
  BlockPlace p = place(dev, global, spec);
  Tensor out = Tensor::uninitialized(dtype, p.shape);
  shard::random::uniform(key, dtype, shard::random::Block{global, p.offset, p.shape}, minval, maxval, out.data());
  return out;
}

// ---- sharding moves -----------------------------------------------------------------------

// This device's piece of `x` along `dim` when that dimension is split further over `axes`:
// piece axis_index(axes) of axis_size(axes) equal pieces. Free of communication.
inline Tensor take_piece(shard::Device& dev, const Tensor& x, int dim, const shard::Axes& axes) {
  std::int64_t n = dev.axis_size(axes);
  if (x.dim(dim) % n != 0)
    throw shard::ShapeError("cannot split dimension " + std::to_string(dim) + " of " + x.type_string() + " over " +
                            axes.to_string() + " of size " + std::to_string(n));
  std::int64_t size = x.dim(dim) / n;
  return materialize(in_view(x).sliced(dim, dev.axis_index(axes) * size, size));
}

inline Tensor axis_index(shard::Device& dev, const shard::Axes& axes) {
  return scalar_int(DType::i32, dev.axis_index(axes));
}

// ---- checks of run-time values -----------------------------------------------------------

// Runs `op`, a call whose checks depend on values rather than types (ragged_all_to_all's offsets
// and sizes: the checker has passed everything it can see), and puts the .shard location
// (`where`: "file.shard:LINE:COL") in front of its error, so that the DeviceError of the call
// says which line of the program failed, as a compile error would.
template <class Op>
decltype(auto) at_source(std::string_view where, Op&& op) {
  auto located = [&](const std::exception& e) { return std::string(where) + ": " + e.what(); };
  try {
    return std::forward<Op>(op)();
  } catch (const shard::ShapeError& e) {
    throw shard::ShapeError(located(e));
  } catch (const shard::ArgumentError& e) {
    throw shard::ArgumentError(located(e));
  }
}

// ---- the boundary --------------------------------------------------------------------------

// Throws ArgumentError naming the function, the argument and both types when `got` is not
// `expected` (dtype, global shape and sharding).
inline void check_argument(std::string_view function, std::string_view name, int index,
                           const shard::Array& got, const shard::ArrayType& expected) {
  const auto which = [&] {
    return std::string(function) + ": argument " + std::to_string(index) + " ('" + std::string(name) + "')";
  };
  if (got.holds_blocks() && got.type() == expected) {
    // A block replaced through Array::block() bypasses set_block's check: the device bodies
    // would read past it.
    try {
      got.check_blocks();
    } catch (const shard::ShapeError& e) {
      throw shard::ArgumentError(which() + ": " + e.what());
    }
    return;
  }
  if (!got.holds_blocks()) throw shard::ArgumentError(which() + " holds no blocks: it was moved from");
  throw shard::ArgumentError(which() + " has type " + got.type().to_string() + " on mesh " +
                             got.mesh().to_string() + ", but " + std::string(function) + " expects " +
                             expected.to_string() + " on mesh " + expected.sharding.mesh().to_string());
}

// Throws ArgumentError naming the function when `rt` has fewer devices than `mesh` needs.
inline void check_runtime(std::string_view function, const shard::Runtime& rt, const shard::Mesh& mesh) {
  if (mesh.end_device() <= rt.num_devices()) return;
  throw shard::ArgumentError(std::string(function) + ": its mesh " + mesh.to_string() + " needs devices up to " +
                             std::to_string(mesh.end_device() - 1) + " but the runtime has " +
                             std::to_string(rt.num_devices()) + (rt.num_devices() == 1 ? " device" : " devices"));
}

// Keeps a device's result block until the call ends; the result Array then takes every block
// (shard::Array::from_blocks, which checks their shapes) without copying or zero-filling.
inline void keep_block(std::vector<Tensor>& blocks, const shard::Device& dev, Tensor block) {
  blocks[static_cast<std::size_t>(dev.id() - dev.mesh().first_device())] = std::move(block);
}

// A function's results as the vector that all_functions() and parameterless_functions() hand
// out, each moved in. A braced list (`std::vector<shard::Array>{f(...)}`) would deep-copy every
// result: an initializer_list's elements are const. Measured: 10-20 ms of a 190 ms call whose
// result is 128 MiB (allreduce_collective_matmul's naive form in generated_matmul_bench).
template <class... Results>
std::vector<shard::Array> result_vector(Results... results) {
  std::vector<shard::Array> v;
  v.reserve(sizeof...(results));
  (v.push_back(std::move(results)), ...);
  return v;
}

}  // namespace shardgen::prelude
