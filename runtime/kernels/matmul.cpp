// Matmul: shape checks, then one of three paths (see matmul.h). The f32 path hands the
// caller's strided views straight to a cached oneDNN primitive: no copies, no re-creation.
#include "shard/kernels/matmul.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "checks.h"
#include "element_types.h"
#include "onednn.h"
#include "shard/kernels/data_movement.h"

namespace shard::kernels {
namespace {

using dnnl::memory;

// One operand laid out for oneDNN: c's rank, broadcast batch dims as size 1.
struct Operand {
  memory::dims dims;
  memory::dims strides;
};

// Right-aligns `v` to `rank` dims. Batch dims that are broadcasts (size 1, or stride 0 with a
// larger size) become size-1 dims, which oneDNN broadcasts itself. Size-1 dims get the
// stride a dense layout would give them, so that equivalent layouts share one primitive.
Operand to_operand(const View& v, std::size_t rank) {
  Operand op{memory::dims(rank, 1), memory::dims(rank, 0)};
  const std::size_t lead = rank - v.shape.size();
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    const bool batch = d + 2 < v.shape.size();
    const bool broadcast = batch && v.strides[d] == 0;
    op.dims[lead + d] = broadcast ? 1 : v.shape[d];
    op.strides[lead + d] = v.strides[d];
  }
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (op.dims[d] > 1) extent = std::max(extent, op.strides[d] * op.dims[d]);
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (op.dims[d] == 1) op.strides[d] = extent;
  }
  return op;
}

void check_shapes(const View& a, const View& b, const View& c) {
  detail::check_view(a, "matmul", "lhs");
  detail::check_view(b, "matmul", "rhs");
  detail::check_output(c, "matmul");
  detail::check_same_dtype(a.dtype, b.dtype, "matmul");
  detail::check_same_dtype(a.dtype, c.dtype, "matmul");
  auto shapes = [&] {
    return shape_string(a.shape) + " @ " + shape_string(b.shape) + " -> " + shape_string(c.shape);
  };
  for (const View* v : {&a, &b, &c}) {
    for (auto s : v->strides) {
      if (s < 0) throw ArgumentError("matmul: negative strides are not supported, got strides " + shape_string(v->strides));
    }
  }
  if (a.rank() < 2 || b.rank() < 2 || c.rank() < 2) {
    throw ShapeError("matmul: operands and result need at least 2 dims, got " + shapes());
  }
  if (a.rank() > c.rank() || b.rank() > c.rank()) {
    throw ShapeError("matmul: the result has fewer batch dims than an operand: " + shapes());
  }
  const auto& as = a.shape;
  const auto& bs = b.shape;
  const auto& cs = c.shape;
  const std::int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k || cs[cs.size() - 2] != m || cs.back() != n) {
    throw ShapeError("matmul: shapes do not fit: " + shapes());
  }
  detail::check_no_overlap(c, a, "matmul", false);
  detail::check_no_overlap(c, b, "matmul", false);
  // Batch dims: each operand's dim is c's or 1.
  for (const View* v : {&a, &b}) {
    const std::size_t lead = cs.size() - v->shape.size();
    for (std::size_t d = 0; d + 2 < v->shape.size(); ++d) {
      if (v->shape[d] != cs[lead + d] && v->shape[d] != 1) {
        throw ShapeError("matmul: batch dims do not broadcast to the result's: " + shapes());
      }
    }
  }
}

// c = a @ b (+ c) by one cached oneDNN primitive on the views as they are, in dtype `type`.
// With `reject_reference`, a product that oneDNN could run only with its reference
// implementation (orders of magnitude slower) is not run: false, and the caller widens to f32
// instead. The refusal is cached under the key like a primitive.
bool matmul_onednn(Context& ctx, const View& a, const View& b, const MutView& c, bool accumulate,
                   memory::data_type type, bool reject_reference) {
  const std::size_t rank = c.shape.size();
  const Operand oa = to_operand(a, rank), ob = to_operand(b, rank), oc = to_operand(c, rank);
  std::string key = accumulate ? "matmul+sum" : "matmul";
  detail::append_key(key, oa.dims, oa.strides, type);
  detail::append_key(key, ob.dims, ob.strides, type);
  detail::append_key(key, oc.dims, oc.strides, type);
  auto& bound = detail::bound_primitive(
      ctx, key,
      [&] {
        auto attr = detail::user_scratchpad_attr();
        if (accumulate) {
          dnnl::post_ops ops;
          ops.append_sum(1.0f);
          attr.set_post_ops(ops);
        }
        const memory::desc a_md(oa.dims, type, oa.strides), b_md(ob.dims, type, ob.strides),
            c_md(oc.dims, type, oc.strides);
        const detail::CachedPrimitive refused{dnnl::primitive(), memory::desc()};
        std::optional<dnnl::matmul::primitive_desc> pd;
        try {
          pd.emplace(dnnl::matmul::desc(a_md, b_md, c_md), attr, ctx.impl().engine);
        } catch (const dnnl::error& e) {
          // A CPU without the dtype's instructions (bf16 on AVX2): oneDNN 2.6 offers no
          // implementation at all, not even its reference one.
          if (reject_reference && e.status == dnnl_unimplemented) return refused;
          throw;
        }
        if (reject_reference && std::string_view(pd->impl_info_str()).starts_with("ref")) return refused;
        return detail::CachedPrimitive{dnnl::matmul(*pd), pd->scratchpad_desc()};
      },
      [&] {
        return detail::ArgDescs{{DNNL_ARG_SRC, memory::desc(oa.dims, type, oa.strides)},
                                {DNNL_ARG_WEIGHTS, memory::desc(ob.dims, type, ob.strides)},
                                {DNNL_ARG_DST, memory::desc(oc.dims, type, oc.strides)}};
      });
  if (!bound.cached.primitive) return false;
  detail::execute(ctx, bound, {a.data, b.data, c.data});
  return true;
}

void matmul_f32(Context& ctx, const View& a, const View& b, const MutView& c, bool accumulate) {
  matmul_onednn(ctx, a, b, c, accumulate, memory::data_type::f32, false);
}

// bf16 products go to oneDNN as they are where it has a bf16 kernel for the CPU (AVX-512 BF16,
// AMX): it accumulates in f32 and rounds once, as the widening path does, with half the memory
// traffic and no conversion passes (kernels_bench --benchmark_filter=Bf16 on an AMD EPYC with
// AVX-512 BF16: 1.7-3.4x faster, see docs/performance.md). SHARD_NATIVE_BF16=0 turns it off.
bool native_bf16_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("SHARD_NATIVE_BF16");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return allowed;
}

// A product of at most this many rows is memory-bound on b: b is widened in chunks of rows
// that stay in cache (kWidenedChunkBytes of f32), each multiplied as soon as it is widened,
// instead of all at once, on the calling thread alone. kernels_bench BM_MatmulBf16 (a device's
// [2, 1024] @ [1024, 8192] block of matmul_square; the whole [8, 2048] @ [2048, 8192]):
//   widened whole, 1 thread   5.9 ms  16.8 ms  (b's 16 MiB written back as 32 MiB of f32, read again)
//   widened whole, 2 threads  4.9 ms  12.1 ms
//   1 MiB chunks, 1 thread    1.5 ms   6.1 ms  (256 KiB: 1.8 ms; 4 MiB: 3.1 ms)
//   1 MiB chunks, 2 threads   9.9 ms  22.0 ms  (oneDNN's cost per call on a team, for such thin
//                                               products, outweighs its parallelism)
constexpr std::int64_t kFewRows = 16;
constexpr std::int64_t kWidenedChunkBytes = 1 << 20;

// Runs the calling thread's next OpenMP regions (oneDNN's) on one thread until destroyed.
class OneThread {
 public:
  OneThread() : team_(omp_get_max_threads()) {
    if (team_ > 1) omp_set_num_threads(1);
  }
  ~OneThread() {
    if (team_ > 1) omp_set_num_threads(team_);
  }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int team_;
};

// The last two dims of a view whose other dims are all 1.
template <class V>
V matrix(const V& v) {
  V m = v;
  m.shape.erase(m.shape.begin(), m.shape.end() - 2);
  m.strides.erase(m.strides.begin(), m.strides.end() - 2);
  return m;
}

// bf16/f16 with few rows: c = a @ b as a sum over chunks of b's rows.
void matmul_few_rows_via_f32(Context& ctx, const View& a, const View& b, const MutView& c, bool accumulate) {
  const OneThread one_thread;
  auto& impl = ctx.impl();
  const std::int64_t k = a.shape[1], n = b.shape[1];
  const std::int64_t rows = std::clamp<std::int64_t>(kWidenedChunkBytes / (n * 4), 1, k);
  impl.f32_a.resize(static_cast<std::size_t>(a.size()));
  impl.f32_b.resize(static_cast<std::size_t>(rows * n));
  impl.f32_c.resize(static_cast<std::size_t>(c.size()));
  const MutView a32 = MutView::contiguous(impl.f32_a.data(), DType::f32, a.shape);
  const MutView c32 = MutView::contiguous(impl.f32_c.data(), DType::f32, c.shape);
  copy(a, a32);
  if (accumulate) copy(c, c32);
  for (std::int64_t first = 0; first < k; first += rows) {
    const std::int64_t count = std::min(rows, k - first);
    const MutView b32 = MutView::contiguous(impl.f32_b.data(), DType::f32, {count, n});
    copy(b.sliced(0, first, count), b32);
    matmul_f32(ctx, a32.as_view().sliced(1, first, count), b32, c32, accumulate || first > 0);
  }
  copy(c32, c);
}

// bf16/f16: widen to f32 in the context's buffers, multiply, round back once.
void matmul_via_f32(Context& ctx, const View& a, const View& b, const MutView& c, bool accumulate) {
  const std::int64_t rows = c.shape[c.shape.size() - 2];
  if (rows <= kFewRows && c.size() == rows * c.shape.back())  // one matrix
    return matmul_few_rows_via_f32(ctx, matrix(a), matrix(b), matrix(c), accumulate);
  auto& impl = ctx.impl();
  impl.f32_a.resize(static_cast<std::size_t>(a.size()));
  impl.f32_b.resize(static_cast<std::size_t>(b.size()));
  impl.f32_c.resize(static_cast<std::size_t>(c.size()));
  const MutView a32 = MutView::contiguous(impl.f32_a.data(), DType::f32, a.shape);
  const MutView b32 = MutView::contiguous(impl.f32_b.data(), DType::f32, b.shape);
  const MutView c32 = MutView::contiguous(impl.f32_c.data(), DType::f32, c.shape);
  copy(a, a32);
  copy(b, b32);
  if (accumulate) copy(c, c32);
  matmul_f32(ctx, a32, b32, c32, accumulate);
  copy(c32, c);
}

// `matrix`'s last two dims behind `result`'s batch dims: the shape an operand broadcasts to.
Shape with_batch_of(const Shape& result, const Shape& matrix) {
  Shape s(result.begin(), result.end() - 2);
  s.push_back(matrix[matrix.size() - 2]);
  s.push_back(matrix.back());
  return s;
}

// Integer product, wrapping modulo 2^bits: the sum is formed in the unsigned type.
template <typename I>
void matmul_int(const View& a, const View& b, const MutView& c, bool accumulate) {
  using U = std::make_unsigned_t<I>;
  const std::size_t rank = c.shape.size();
  const View ab = a.broadcast_to(with_batch_of(c.shape, a.shape));
  const View bb = b.broadcast_to(with_batch_of(c.shape, b.shape));
  const std::int64_t m = c.shape[rank - 2], n = c.shape[rank - 1], k = a.shape.back();
  const std::int64_t batches = element_count(Shape(c.shape.begin(), c.shape.end() - 2));
  Shape index(rank - 2, 0);
  const auto* pa = static_cast<const I*>(ab.data);
  const auto* pb = static_cast<const I*>(bb.data);
  auto* pc = static_cast<I*>(c.data);
  const auto as = ab.strides, bs = bb.strides, cs = c.strides;
  for (std::int64_t batch = 0; batch < batches; ++batch) {
    std::int64_t oa = 0, ob = 0, oc = 0;
    for (std::size_t d = 0; d + 2 < rank; ++d) {
      oa += index[d] * as[d];
      ob += index[d] * bs[d];
      oc += index[d] * cs[d];
    }
    for (std::int64_t i = 0; i < m; ++i) {
      I* row = pc + oc + i * cs[rank - 2];
      if (!accumulate) {
        for (std::int64_t j = 0; j < n; ++j) row[j * cs[rank - 1]] = 0;
      }
      for (std::int64_t p = 0; p < k; ++p) {
        const U aip = static_cast<U>(pa[oa + i * as[rank - 2] + p * as[rank - 1]]);
        const I* brow = pb + ob + p * bs[rank - 2];
        for (std::int64_t j = 0; j < n; ++j) {
          I& out = row[j * cs[rank - 1]];
          out = static_cast<I>(static_cast<U>(out) + aip * static_cast<U>(brow[j * bs[rank - 1]]));
        }
      }
    }
    for (std::size_t d = rank - 2; d-- > 0;) {
      if (++index[d] < c.shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

void matmul(Context& ctx, const View& a, const View& b, const MutView& c, MatmulOptions options) {
  check_shapes(a, b, c);
  if (c.size() == 0) return;
  ctx.count_matmul_flops(2 * c.size() * a.shape.back());
  if (a.shape.back() == 0) {  // empty contraction: the sum of nothing
    if (!options.accumulate) fill(c, 0.0);
    return;
  }
  switch (c.dtype) {
    case DType::f32: return matmul_f32(ctx, a, b, c, options.accumulate);
    case DType::bf16:
      if (native_bf16_allowed() &&
          matmul_onednn(ctx, a, b, c, options.accumulate, memory::data_type::bf16, /*reject_reference=*/true))
        return;
      return matmul_via_f32(ctx, a, b, c, options.accumulate);
    case DType::f16: return matmul_via_f32(ctx, a, b, c, options.accumulate);
    case DType::i32: return matmul_int<std::int32_t>(a, b, c, options.accumulate);
    case DType::i64: return matmul_int<std::int64_t>(a, b, c, options.accumulate);
    case DType::boolean: detail::unsupported_dtype("matmul", c.dtype);
  }
}

}  // namespace shard::kernels
