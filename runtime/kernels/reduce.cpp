// Reductions: the reduced axes are split off as an inner view walked by strided_loop (so
// contiguous runs stay contiguous); the kept axes are walked one output element at a time.
#include "shard/kernels/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "checks.h"
#include "element_types.h"
#include "onednn.h"
#include "scalar_math.h"
#include "strided_loop.h"

namespace shard::kernels {
namespace {

// x split into the kept part (walked per output element) and the reduced part.
struct Split {
  std::vector<bool> reduced;  // per axis of x
  Shape kept_shape, kept_strides;
  Shape reduced_shape, reduced_strides;
  Shape keepdims_shape;  // x's shape with reduced dims set to 1
};

Split split_axes(const View& x, const std::vector<int>& axes, const char* op) {
  Split s;
  s.reduced.assign(x.shape.size(), false);
  for (int a : axes) {
    const auto ax = static_cast<std::size_t>(detail::normalize_axis(a, x.rank(), op));
    if (s.reduced[ax]) throw ShapeError(std::string(op) + ": axis " + std::to_string(a) + " is listed twice");
    s.reduced[ax] = true;
  }
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    (s.reduced[d] ? s.reduced_shape : s.kept_shape).push_back(x.shape[d]);
    (s.reduced[d] ? s.reduced_strides : s.kept_strides).push_back(x.strides[d]);
    s.keepdims_shape.push_back(s.reduced[d] ? 1 : x.shape[d]);
  }
  return s;
}

// `out` may have the kept shape or the keepdims shape; returns it viewed with the kept shape.
MutView output_as_kept(const MutView& out, const Split& s, const char* op) {
  detail::check_output(out, op);
  if (out.shape == s.kept_shape) return out;
  if (out.shape == s.keepdims_shape) {
    MutView v{out.data, out.dtype, {}, {}};
    for (std::size_t d = 0; d < out.shape.size(); ++d) {
      if (!s.reduced[d]) {
        v.shape.push_back(out.shape[d]);
        v.strides.push_back(out.strides[d]);
      }
    }
    return v;
  }
  throw ShapeError(std::string(op) + ": result shape " + shape_string(out.shape) + " is neither " +
                   shape_string(s.kept_shape) + " nor " + shape_string(s.keepdims_shape));
}

// Calls fn(kept_offset_in_x_elements, out_element_pointer) for every output element.
template <typename Fn>
void for_each_output(const Split& s, const MutView& out, Fn&& fn) {
  const std::int64_t count = element_count(s.kept_shape);
  Shape index(s.kept_shape.size(), 0);
  const auto esize = static_cast<std::int64_t>(dtype_size(out.dtype));
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t x_offset = 0, out_offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      x_offset += index[d] * s.kept_strides[d];
      out_offset += index[d] * out.strides[d];
    }
    fn(x_offset, static_cast<char*>(out.data) + out_offset * esize);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < s.kept_shape[d]) break;
      index[d] = 0;
    }
  }
}

// Folds `step(acc, value)` over the reduced block starting at x_offset.
template <typename T, typename Acc, typename Step>
Acc fold_block(const View& x, const Split& s, std::int64_t x_offset, Acc acc, Step step) {
  using S = typename T::Stored;
  detail::Operands<1> ops;
  ops.base = {static_cast<char*>(const_cast<void*>(x.data)) + x_offset * static_cast<std::int64_t>(sizeof(S))};
  ops.strides = {s.reduced_strides};
  ops.element_size = {sizeof(S)};
  detail::strided_loop(s.reduced_shape, ops, [&](std::int64_t n, std::array<char*, 1> p, std::array<std::int64_t, 1> st) {
    if (st[0] == sizeof(S)) {
      const auto* v = reinterpret_cast<const S*>(p[0]);
      for (std::int64_t i = 0; i < n; ++i) acc = step(acc, T::load(v[i]));
    } else {
      for (std::int64_t i = 0; i < n; ++i) acc = step(acc, T::load(*reinterpret_cast<const S*>(p[0] + i * st[0])));
    }
  });
  return acc;
}

// A dense x whose reduced axes are one run (size-1 axes count either way) read as [A, R, B]:
// the kept axes before the run, the run, the kept axes after it.
struct Run {
  std::int64_t outer, reduced, inner;
};
std::optional<Run> reduced_run(const View& x, const Split& s, const MutView& out) {
  if (!x.is_row_major() || !out.is_row_major()) return std::nullopt;
  std::optional<std::size_t> first, last;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (s.reduced[d] && x.shape[d] != 1) {
      if (!first) first = d;
      last = d;
    }
  if (!first) return std::nullopt;
  Run r{1, 1, 1};
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (d >= *first && d <= *last) {
      if (!s.reduced[d] && x.shape[d] != 1) return std::nullopt;  // a kept axis inside the run
      r.reduced *= x.shape[d];
    } else {
      (d < *first ? r.outer : r.inner) *= x.shape[d];
    }
  }
  return r;
}

// Calls finish(fold, output element) for every output element, fold being step folded over its
// reduced elements in row-major order from init. Where the reduced axes are one run of a dense
// x, rows are accumulated whole: the elements the kept inner axes hold side by side are read
// side by side (a sum over axis 0 walked each column at the row stride before, 16-74x slower
// than this), and a short run costs no loop set-up per output. Either way each output folds
// the same elements in the same order, so results do not depend on the path.
template <typename T, typename Acc, typename Step, typename Finish>
void fold_outputs(const View& x, const Split& s, const MutView& out, Acc init, Step step, Finish finish) {
  using S = typename T::Stored;
  if (const auto run = reduced_run(x, s, out)) {
    const auto* base = static_cast<const S*>(x.data);
    auto* o = static_cast<char*>(out.data);
    const auto esize = static_cast<std::int64_t>(dtype_size(out.dtype));
    std::vector<Acc> acc(static_cast<std::size_t>(run->inner));
    for (std::int64_t a = 0; a < run->outer; ++a) {
      std::fill(acc.begin(), acc.end(), init);
      const S* block = base + a * run->reduced * run->inner;
      for (std::int64_t r = 0; r < run->reduced; ++r) {
        const S* row = block + r * run->inner;
        for (std::int64_t b = 0; b < run->inner; ++b)
          acc[static_cast<std::size_t>(b)] = step(acc[static_cast<std::size_t>(b)], T::load(row[b]));
      }
      for (std::int64_t b = 0; b < run->inner; ++b)
        finish(acc[static_cast<std::size_t>(b)], o + (a * run->inner + b) * esize);
    }
    return;
  }
  for_each_output(s, out, [&](std::int64_t off, char* o) { finish(fold_block<T>(x, s, off, init, step), o); });
}

template <typename Out>
void store_as(char* p, typename Out::Math v) {
  *reinterpret_cast<typename Out::Stored*>(p) = Out::store(v);
}

// Writes a double result into any float or integer out dtype.
void store_double(DType dtype, char* p, double v) {
  detail::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::is_float_type<T>) {
      store_as<T>(p, static_cast<float>(v));
    } else {
      throw ArgumentError("mean: the result must be a float dtype, got " + std::string(dtype_name(dtype)));
    }
  });
}

template <typename T>
void reduce_typed(ReduceOp op, const View& x, const Split& s, const MutView& out) {
  using M = typename T::Math;
  const char* name = op_name(op);
  const std::int64_t count = element_count(s.reduced_shape);
  if constexpr (detail::is_float_type<T>) {
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::mean:
      case ReduceOp::prod: {
        // A 16-bit float's sum or product may also be kept in f32: a sharded reduction's
        // partial results stay f32 until the collective has combined them (as jnp.sum's do).
        if (op != ReduceOp::mean && !(x.dtype != DType::f32 && out.dtype == DType::f32))
          detail::check_same_dtype(x.dtype, out.dtype, name);
        // mean divides the sum rounded to f32, in f32 (jnp.mean's computation dtype; the
        // evaluator does the same), so a sum beyond f32's range is inf whatever the count.
        auto finish = [&](double r, char* o) {
          if (op == ReduceOp::mean) r = static_cast<float>(r) / static_cast<float>(count);
          store_double(out.dtype, o, r);
        };
        if (op == ReduceOp::prod) fold_outputs<T>(x, s, out, 1.0, [](double a, M v) { return a * v; }, finish);
        else fold_outputs<T>(x, s, out, 0.0, [](double a, M v) { return a + v; }, finish);
        return;
      }
      case ReduceOp::max:
      case ReduceOp::min: {
        detail::check_same_dtype(x.dtype, out.dtype, name);
        const bool is_max = op == ReduceOp::max;
        const M init = is_max ? -std::numeric_limits<M>::infinity() : std::numeric_limits<M>::infinity();
        auto finish = [](M r, char* o) { store_as<T>(o, r); };
        if (is_max) fold_outputs<T>(x, s, out, init, detail::float_max_value, finish);
        else fold_outputs<T>(x, s, out, init, detail::float_min_value, finish);
        return;
      }
    }
  } else {
    // Integers and bool: sums and products wrap in the result's integer type.
    if (op == ReduceOp::mean) {
      // jnp.mean converts the integers to f32 first (16777217 counts as 16777216), then sums.
      fold_outputs<T>(
          x, s, out, 0.0, [](double a, M v) { return a + static_cast<double>(static_cast<float>(v)); },
          [&](double r, char* o) { store_double(out.dtype, o, static_cast<float>(r) / static_cast<float>(count)); });
      return;
    }
    if (op == ReduceOp::sum || op == ReduceOp::prod) {
      // bool sums and products count in an integer result (jnp: i32).
      const bool from_bool = std::is_same_v<T, detail::Bool>;
      if (from_bool && !is_integer(out.dtype)) {
        throw ArgumentError(std::string(name) + " of bool needs an int32 or int64 result, got " +
                            std::string(dtype_name(out.dtype)));
      }
      if (!from_bool) detail::check_same_dtype(x.dtype, out.dtype, name);
      const std::uint64_t init = op == ReduceOp::sum ? 0u : 1u;
      // The low bits of a 64-bit wrapping sum are the wrapping sum in any narrower type.
      auto finish = [&](std::uint64_t r, char* o) {
        if (out.dtype == DType::i32) {
          *reinterpret_cast<std::int32_t*>(o) = static_cast<std::int32_t>(static_cast<std::uint32_t>(r));
        } else {
          *reinterpret_cast<std::int64_t*>(o) = static_cast<std::int64_t>(r);
        }
      };
      if (op == ReduceOp::sum)
        fold_outputs<T>(x, s, out, init, [](std::uint64_t a, M v) { return a + static_cast<std::uint64_t>(v); }, finish);
      else
        fold_outputs<T>(x, s, out, init, [](std::uint64_t a, M v) { return a * static_cast<std::uint64_t>(v); }, finish);
      return;
    }
    detail::check_same_dtype(x.dtype, out.dtype, name);
    const bool is_max = op == ReduceOp::max;
    M init;
    if constexpr (std::is_same_v<T, detail::Bool>) {
      init = !is_max;
    } else {
      init = is_max ? std::numeric_limits<M>::min() : std::numeric_limits<M>::max();
    }
    auto finish = [](M r, char* o) { store_as<T>(o, r); };
    if (is_max) fold_outputs<T>(x, s, out, init, [](M a, M v) { return v > a ? v : a; }, finish);
    else fold_outputs<T>(x, s, out, init, [](M a, M v) { return v < a ? v : a; }, finish);
  }
}

// The shortest trailing run of reduced elements per output that oneDNN sums faster than the loop.
constexpr std::int64_t kOneDnnMinReducedRun = 256;

// f32 sum/mean of a dense array over its trailing axes into a dense result: oneDNN's reduction
// primitive.
bool try_onednn_reduce(Context& ctx, ReduceOp op, const View& x, const Split& s, const MutView& out) {
  if ((op != ReduceOp::sum && op != ReduceOp::mean) || x.dtype != DType::f32 || out.dtype != DType::f32 ||
      x.size() < kOneDnnMinElements || !x.is_row_major() || !out.is_row_major() || s.reduced_shape.empty() ||
      !detail::onednn_takes_rank(x.shape.size())) {
    return false;
  }
  // Reducing only dimensions of size 1 leaves the shape as it is, and oneDNN 2.6 refuses such a
  // reduction descriptor (one row per device of a data-parallel sum): the loop copies instead.
  // And oneDNN 2.6 is fast only over long trailing runs: other reductions take its reference
  // code (a sum over axis 0 of [1024, 1024]: 20 ms against 0.4 ms in the loop) and short rows
  // its per-row overhead ([65536, 4] over axis 1: 9.4 ms against 0.1 ms).
  const auto run = reduced_run(x, s, out);
  if (!run || run->inner != 1 || run->reduced < kOneDnnMinReducedRun) return false;
  using dnnl::memory;
  const memory::dims src_dims(x.shape.begin(), x.shape.end());
  const memory::dims dst_dims(s.keepdims_shape.begin(), s.keepdims_shape.end());
  const auto f32 = memory::data_type::f32;
  const memory::desc src_md(src_dims, f32, memory::dims(row_major_strides(x.shape)));
  const memory::desc dst_md(dst_dims, f32, memory::dims(row_major_strides(s.keepdims_shape)));
  const auto alg = op == ReduceOp::sum ? dnnl::algorithm::reduction_sum : dnnl::algorithm::reduction_mean;
  std::string key = "reduction" + std::to_string(static_cast<int>(alg));
  detail::append_key(key, src_dims, {}, f32);
  detail::append_key(key, dst_dims, {}, f32);
  auto& bound = detail::bound_primitive(
      ctx, key,
      [&] {
        const dnnl::reduction::desc d(alg, src_md, dst_md, 0.0f, 0.0f);
        const dnnl::reduction::primitive_desc pd(d, detail::user_scratchpad_attr(), ctx.impl().engine);
        return detail::CachedPrimitive{dnnl::reduction(pd), pd.scratchpad_desc()};
      },
      [&] { return detail::ArgDescs{{DNNL_ARG_SRC, src_md}, {DNNL_ARG_DST, dst_md}}; });
  detail::execute(ctx, bound, {x.data, out.data});
  return true;
}

template <bool kMax>
void arg_reduce(const View& x, int axis, const MutView& out) {
  const char* name = kMax ? "argmax" : "argmin";
  detail::check_view(x, name, "operand");
  const int ax = detail::normalize_axis(axis, x.rank(), name);
  const Split s = split_axes(x, {ax}, name);
  const MutView kept = output_as_kept(out, s, name);
  if (out.dtype != DType::i32 && out.dtype != DType::i64) {
    throw ArgumentError(std::string(name) + ": the result must be int32 or int64, got " +
                        std::string(dtype_name(out.dtype)));
  }
  const std::int64_t n = s.reduced_shape[0];
  if (n == 0 && kept.size() > 0) {
    throw ShapeError(std::string(name) + ": cannot take the " + name + " of an empty axis " + std::to_string(ax));
  }
  detail::dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    using S = typename T::Stored;
    const auto* base = static_cast<const S*>(x.data);
    const std::int64_t stride = s.reduced_strides[0];
    for_each_output(s, kept, [&](std::int64_t off, char* o) {
      std::int64_t best = 0;
      auto best_value = T::load(base[off]);
      for (std::int64_t i = 1; i < n; ++i) {
        const auto v = T::load(base[off + i * stride]);
        bool better;
        if constexpr (detail::is_float_type<T>) {
          if (std::isnan(best_value)) break;  // the first NaN wins
          better = std::isnan(v) || (kMax ? v > best_value : v < best_value);
        } else {
          better = kMax ? v > best_value : v < best_value;
        }
        if (better) {
          best = i;
          best_value = v;
        }
      }
      if (out.dtype == DType::i32) {
        *reinterpret_cast<std::int32_t*>(o) = static_cast<std::int32_t>(best);
      } else {
        *reinterpret_cast<std::int64_t*>(o) = best;
      }
    });
  });
}

}  // namespace

void reduce(Context& ctx, ReduceOp op, const View& x, const std::vector<int>& axes, const MutView& out) {
  const char* name = op_name(op);
  detail::check_view(x, name, "operand");
  const Split s = split_axes(x, axes, name);
  const MutView kept = output_as_kept(out, s, name);
  if (kept.size() == 0) return;
  if (try_onednn_reduce(ctx, op, x, s, out)) return;
  detail::dispatch(x.dtype, [&](auto tag) { reduce_typed<decltype(tag)>(op, x, s, kept); });
}

void argmax(const View& x, int axis, const MutView& out) { arg_reduce<true>(x, axis, out); }
void argmin(const View& x, int axis, const MutView& out) { arg_reduce<false>(x, axis, out); }

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::mean: return "mean";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
    case ReduceOp::prod: return "prod";
  }
  return "reduce";
}

}  // namespace shard::kernels
