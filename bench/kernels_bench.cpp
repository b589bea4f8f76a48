// Kernels: what shard::kernels adds on top of oneDNN, and how fast random blocks are drawn.
//   kernels_bench --benchmark_repetitions=7 --benchmark_report_aggregates_only=true
// Run with OMP_NUM_THREADS=1 to compare per-core figures (each device thread gets its own team).
//
// BM_Matmul/<m>/<k>/<n>/<ldb>: shard::kernels::matmul with b a column block of a matrix with
// ldb columns (read in place through strides, as a sharded einsum does), against
// BM_BareOneDnn with the same descriptors executed directly. BM_MatmulBf16: bf16 operands.
// BM_Normal: shard::random::normal.
// BM_ReduceSum/<rows>/<cols>/<axis>: shard::kernels::reduce (sum) of an f32 [rows, cols] over one
// axis, against BM_PlainSum, a plain loop summing the same bytes (the bound: one read of x).
// BM_Iota/<n>: shard::kernels::iota of n i64 elements, against BM_PlainIota, a plain loop.
// BM_Softmax/<rows>/<cols>/<axis>: shard::kernels::softmax of an f32 [rows, cols] along one axis.
// BM_Gelu/<n>, BM_Tanh/<n>: shard::kernels::unary of n f32 elements (tanh: oneDNN's eltwise).
// BM_Transpose/<n>: shard::kernels::transpose of an f32 [n, n], against BM_Copy/<n>, a copy of
// the same bytes (std::memcpy).
#include <benchmark/benchmark.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <cstring>
#include <vector>

#include "shard/kernels/data_movement.h"
#include "shard/kernels/elementwise.h"
#include "shard/kernels/matmul.h"
#include "shard/kernels/reduce.h"
#include "shard/random.h"

namespace {

namespace sk = shard::kernels;
using shard::DType;

void matmul_shapes(benchmark::internal::Benchmark* b) {
  b->Args({64, 64, 64, 64})->Args({256, 4096, 128, 256})->Args({1024, 512, 256, 256})->Args({1024, 4096, 256, 256})->Args({128, 512, 256, 256})->Args({8, 2048, 8192, 8192});
}

void set_flops(benchmark::State& state, std::int64_t m, std::int64_t k, std::int64_t n) {
  state.counters["flop/s"] = benchmark::Counter(2.0 * double(m) * double(n) * double(k) * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void BM_Matmul(benchmark::State& state) {
  const std::int64_t m = state.range(0), k = state.range(1), n = state.range(2), ldb = state.range(3);
  std::vector<float> a(static_cast<std::size_t>(m * k), 1.0f), b(static_cast<std::size_t>(k * ldb), 0.5f),
      c(static_cast<std::size_t>(m * n));
  sk::Context ctx;
  const sk::View av = sk::View::contiguous(a.data(), DType::f32, {m, k});
  const sk::View bv{b.data(), DType::f32, {k, n}, {ldb, 1}};
  const sk::MutView cv = sk::MutView::contiguous(c.data(), DType::f32, {m, n});
  for (auto _ : state) {
    sk::matmul(ctx, av, bv, cv);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, m, k, n);
}

// bf16 operands (computed in f32): matmul_square's shapes, a device's [2, 1024] @ [1024, 8192]
// and the whole [8, 2048] @ [2048, 8192]: memory-bound on b.
void BM_MatmulBf16(benchmark::State& state) {
  const std::int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const std::uint16_t one = 0x3f80, half = 0x3f00;  // 1.0 and 0.5 in bf16
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m * k), one), b(static_cast<std::size_t>(k * n), half),
      c(static_cast<std::size_t>(m * n));
  sk::Context ctx;
  const sk::View av = sk::View::contiguous(a.data(), DType::bf16, {m, k});
  const sk::View bv = sk::View::contiguous(b.data(), DType::bf16, {k, n});
  const sk::MutView cv = sk::MutView::contiguous(c.data(), DType::bf16, {m, n});
  for (auto _ : state) {
    sk::matmul(ctx, av, bv, cv);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, m, k, n);
  state.SetBytesProcessed(state.iterations() * k * n * 2);
}

void BM_BareOneDnn(benchmark::State& state) {
  const std::int64_t m = state.range(0), k = state.range(1), n = state.range(2), ldb = state.range(3);
  std::vector<float> a(static_cast<std::size_t>(m * k), 1.0f), b(static_cast<std::size_t>(k * ldb), 0.5f),
      c(static_cast<std::size_t>(m * n));
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  using dnnl::memory;
  const memory::desc a_md({m, k}, memory::data_type::f32, memory::dims{k, 1});
  const memory::desc b_md({k, n}, memory::data_type::f32, memory::dims{ldb, 1});
  const memory::desc c_md({m, n}, memory::data_type::f32, memory::dims{n, 1});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
  const dnnl::matmul matmul(pd);
  memory am(a_md, engine, a.data()), bm(b_md, engine, b.data()), cm(c_md, engine, c.data());
  for (auto _ : state) {
    matmul.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, m, k, n);
}

void BM_Normal(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<float> out(static_cast<std::size_t>(n));
  const auto key = shard::random::key(0);
  for (auto _ : state) {
    shard::random::normal(key, DType::f32, shard::random::Block::whole({n}), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_ReduceSum(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  const int axis = static_cast<int>(state.range(2));
  std::vector<float> x(static_cast<std::size_t>(rows * cols), 1.0f);
  std::vector<float> out(static_cast<std::size_t>(axis == 0 ? cols : rows));
  sk::Context ctx;
  for (auto _ : state) {
    sk::reduce(ctx, sk::ReduceOp::sum, sk::View::contiguous(x.data(), DType::f32, {rows, cols}), {axis},
               sk::MutView::contiguous(out.data(), DType::f32, {static_cast<std::int64_t>(out.size())}));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * 4);
}

void BM_PlainSum(benchmark::State& state) {
  const std::int64_t n = state.range(0) * state.range(1);
  std::vector<float> x(static_cast<std::size_t>(n), 1.0f);
  for (auto _ : state) {
    double total = 0;
    for (float v : x) total += v;
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * n * 4);
}

void BM_Iota(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (auto _ : state) {
    sk::iota(sk::MutView::contiguous(out.data(), DType::i64, {n}), 0);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 8);
}

void BM_PlainIota(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (auto _ : state) {
    for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = i;
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 8);
}

void BM_Softmax(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  const int axis = static_cast<int>(state.range(2));
  std::vector<float> x(static_cast<std::size_t>(rows * cols)), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) * 0.25f;
  sk::Context ctx;
  for (auto _ : state) {
    sk::softmax(ctx, sk::View::contiguous(x.data(), DType::f32, {rows, cols}), axis,
                sk::MutView::contiguous(y.data(), DType::f32, {rows, cols}));
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * 4);
}

void unary_rows(benchmark::State& state, sk::UnaryOp op) {
  const std::int64_t n = state.range(0);
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.0625f - 3.0f;
  sk::Context ctx;
  for (auto _ : state) {
    sk::unary(ctx, op, sk::View::contiguous(x.data(), DType::f32, {n}), sk::MutView::contiguous(y.data(), DType::f32, {n}));
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 4);
}
void BM_Gelu(benchmark::State& state) { unary_rows(state, sk::UnaryOp::gelu); }
void BM_Tanh(benchmark::State& state) { unary_rows(state, sk::UnaryOp::tanh); }

void BM_Transpose(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<float> x(static_cast<std::size_t>(n * n), 1.0f), y(x.size());
  for (auto _ : state) {
    sk::transpose(sk::View::contiguous(x.data(), DType::f32, {n, n}), {1, 0},
                  sk::MutView::contiguous(y.data(), DType::f32, {n, n}));
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * n * n * 4);
}

void BM_Copy(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<float> x(static_cast<std::size_t>(n * n), 1.0f), y(x.size());
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), x.size() * sizeof(float));
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * n * n * 4);
}

BENCHMARK(BM_Matmul)->Apply(matmul_shapes)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_MatmulBf16)->Args({2, 1024, 8192})->Args({8, 2048, 8192})->Args({256, 1024, 1024})->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_BareOneDnn)->Apply(matmul_shapes)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_Normal)->Arg(1 << 20);
BENCHMARK(BM_ReduceSum)->Args({1024, 1024, 0})->Args({1024, 1024, 1})->Args({65536, 4, 1})->Args({65536, 64, 0});
BENCHMARK(BM_PlainSum)->Args({1024, 1024})->Args({65536, 4})->Args({65536, 64});
BENCHMARK(BM_Iota)->Arg(1 << 20);
BENCHMARK(BM_PlainIota)->Arg(1 << 20);
BENCHMARK(BM_Softmax)->Args({1024, 1024, 0})->Args({1024, 1024, 1});
BENCHMARK(BM_Gelu)->Arg(1 << 18);
BENCHMARK(BM_Tanh)->Arg(1 << 18);
BENCHMARK(BM_Transpose)->Arg(1024)->Arg(2048);
BENCHMARK(BM_Copy)->Arg(1024)->Arg(2048);

}  // namespace

BENCHMARK_MAIN();
