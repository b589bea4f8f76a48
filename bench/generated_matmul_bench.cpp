// The code shardc generates for the seed matmul programs (examples/*.shard at their own const
// sizes, built by shardc_add_library) against ONE oneDNN matmul of the whole problem on the
// same cores: issue 4's target is a median pair ratio within 1.05.
//
// A case is one entry point of a generated module whose core is a matmul of its first two
// arguments (lhs [.., K] @ rhs [K, N]). The sharded side is the generated entry point called on a
// Runtime with as many devices as the program's mesh (4 or 8), as a user would make it, so that
// its device threads share all the cores between them; Arrays are made once (argument checks,
// result allocation and the launch included: what a user pays per call). The single side is
// shard::kernels::matmul of the global operands on the caller's thread and its OpenMP team (all
// the cores), into a preallocated result, plus the elementwise work the program does besides the matmul, done once globally
// (matmul_square: square of lhs; sigmoid_layer: + bias, sigmoid). Reshards of the result
// (explicit_matmul's replicated and [tp,dp] outputs) have no single-device counterpart: there
// the baseline covers the matmul only, and the summary says so.
//
// Paired samples as in runtime_matmul_bench.cpp: each pair times one sharded call and one
// single call, alternating which goes first; the ratio is the median of the per-pair ratios.
// One benchmark iteration runs all of a case's pairs (at least kMinPairs, more until about
// kBudgetSeconds have passed, at most kMaxPairs; at least kMinSlowPairs when a pair takes
// seconds, as the i32 cases' 15 s pairs do), so that the seconds-long cases and the
// microsecond ones get comparable statistics; its manual time is the median sharded time.
// After timing, every result of the generated call is compared with the single call's by the
// project's rule (evaluator/compare.h); a mismatch fails the benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allreduce_collective_matmul.shard.h"
#include "collective_matmul.shard.h"
#include "collective_matmul_lhs_non_contracting.shard.h"
#include "evaluator/compare.h"
#include "evaluator/host_tensor.h"
#include "explicit_matmul.shard.h"
#include "fsdp_matmul.shard.h"
#include "keep_sharded_matmul.shard.h"
#include "manual_matmul.shard.h"
#include "matmul_psum_scatter.shard.h"
#include "matmul_square.shard.h"
#include "passive_openmp.h"
#include "psum_scatter_matmul_overlapped.shard.h"
#include "reducescatter_collective_matmul.shard.h"
#include "shard/kernels/elementwise.h"
#include "shard/kernels/matmul.h"
#include "shard/shard.h"
#include "sigmoid_layer.shard.h"

namespace {

namespace sk = shard::kernels;
using shardc::eval::HostTensor;
using Clock = std::chrono::steady_clock;

constexpr int kMinPairs = 9;
constexpr int kMinSlowPairs = 5;         // when one pair takes longer than kSlowPairSeconds
constexpr double kSlowPairSeconds = 2.0;  // (the i32 cases: about 15 s a pair)
constexpr int kMaxPairs = 41;
constexpr double kBudgetSeconds = 3.0;
constexpr double kTarget = 1.05;

// What the single call does besides lhs @ rhs.
enum class Extra {
  none,
  square_lhs,    // square(lhs) @ rhs                      (matmul_square)
  bias_sigmoid,  // sigmoid(lhs @ rhs + bias), bias = arg 2 (sigmoid_layer)
};

// One generated entry point, whatever module it comes from (each module declares its own
// FunctionInfo with these two members).
struct EntryPoint {
  std::vector<shard::ArrayType> (*param_types)();
  std::vector<shard::Array> (*call)(shard::Runtime&, const std::vector<shard::Array>&);
};

template <class Infos>
std::optional<EntryPoint> find_entry(const Infos& infos, std::string_view name) {
  for (const auto& info : infos)
    if (info.name == name) return EntryPoint{info.param_types, info.call};
  return std::nullopt;
}

struct Case {
  std::string program;   // examples/PROGRAM.shard
  std::string function;  // the entry point timed
  std::optional<EntryPoint> entry;
  Extra extra = Extra::none;
  std::string baseline_note;  // what the single call leaves out, if anything
};

#define SHARDC_SEED_CASE(MODULE, FUNCTION, ...) \
  Case{#MODULE, FUNCTION, find_entry(shardgen::MODULE::all_functions(), FUNCTION), __VA_ARGS__}

std::vector<Case> seed_cases() {
  const std::string reshards_left_out = "baseline is the matmul only; the two reshards of y are not in it";
  return {
      SHARDC_SEED_CASE(explicit_matmul, "f", Extra::none, reshards_left_out),
      SHARDC_SEED_CASE(manual_matmul, "matmul_manual", Extra::none, ""),
      SHARDC_SEED_CASE(matmul_psum_scatter, "matmul_psumscatter", Extra::none, ""),
      SHARDC_SEED_CASE(matmul_psum_scatter, "matmul_psumscatter_overlapped", Extra::none, ""),
      SHARDC_SEED_CASE(matmul_psum_scatter, "matmul_psumscatter_overlapped_bidi", Extra::none, ""),
      SHARDC_SEED_CASE(psum_scatter_matmul_overlapped, "matmul_psumscatter", Extra::none, ""),
      SHARDC_SEED_CASE(psum_scatter_matmul_overlapped, "matmul_psumscatter_overlapped", Extra::none, ""),
      SHARDC_SEED_CASE(fsdp_matmul, "matmul_fsdp", Extra::none, ""),
      SHARDC_SEED_CASE(fsdp_matmul, "matmul_fsdp_allgather_overlapped", Extra::none, ""),
      SHARDC_SEED_CASE(fsdp_matmul, "matmul_fsdp_allgather_overlapped_bidi", Extra::none, ""),
      SHARDC_SEED_CASE(collective_matmul, "matmul_jit", Extra::none,
                       "i32: no oneDNN primitive; both sides run the kernels' integer loop"),
      SHARDC_SEED_CASE(collective_matmul, "collective_matmul_allgather_lhs_contracting", Extra::none,
                       "i32: no oneDNN primitive; both sides run the kernels' integer loop"),
      SHARDC_SEED_CASE(collective_matmul_lhs_non_contracting, "reference", Extra::none,
                       "baseline is the matmul only; the reshard to replicated is not in it"),
      SHARDC_SEED_CASE(collective_matmul_lhs_non_contracting, "collective_matmul_allgather_lhs_non_contracting",
                       Extra::none, ""),
      SHARDC_SEED_CASE(collective_matmul_lhs_non_contracting, "collective_matmul_allgather_lhs_non_contracting_bidi",
                       Extra::none, ""),
      SHARDC_SEED_CASE(allreduce_collective_matmul, "matmul_allreduce", Extra::none, ""),
      SHARDC_SEED_CASE(allreduce_collective_matmul, "matmul_allreduce_naive", Extra::none, ""),
      SHARDC_SEED_CASE(allreduce_collective_matmul, "matmul_allreduce_overlapped", Extra::none, ""),
      SHARDC_SEED_CASE(allreduce_collective_matmul, "matmul_allreduce_bidi", Extra::none, ""),
      SHARDC_SEED_CASE(reducescatter_collective_matmul, "matmul_reducescatter", Extra::none, ""),
      SHARDC_SEED_CASE(reducescatter_collective_matmul, "matmul_reducescatter_naive", Extra::none, ""),
      SHARDC_SEED_CASE(reducescatter_collective_matmul, "matmul_reducescatter_overlapped", Extra::none, ""),
      SHARDC_SEED_CASE(reducescatter_collective_matmul, "matmul_reducescatter_bidi", Extra::none, ""),
      SHARDC_SEED_CASE(keep_sharded_matmul, "matmul_keep_sharded", Extra::none, ""),
      SHARDC_SEED_CASE(keep_sharded_matmul, "matmul_keep_sharded_x", Extra::none, ""),
      SHARDC_SEED_CASE(keep_sharded_matmul, "matmul_keep_sharded_y", Extra::none, ""),
      SHARDC_SEED_CASE(matmul_square, "matmul_square_allreduce", Extra::square_lhs, ""),
      SHARDC_SEED_CASE(matmul_square, "matmul_square", Extra::square_lhs, ""),
      SHARDC_SEED_CASE(sigmoid_layer, "layer_explicit", Extra::bias_sigmoid, ""),
      SHARDC_SEED_CASE(sigmoid_layer, "layer_sharded", Extra::bias_sigmoid, ""),
  };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// Deterministic operands whose products the sharded and the single call must agree on.
// f32: small dyadic values; integers: small values (sums wrap identically in any order);
// bf16/f16: integers with every sum exactly representable, so that the rounding of partial
// sums to 16 bits (the sharded side rounds each device's partial product) loses nothing:
// the first operand is sparse (one element in 29, +-1), the others dense in {-1, 0, 1}.
HostTensor make_operand(const shard::ArrayType& type, int arg_index) {
  const std::int64_t n = shard::shape_numel(type.shape);
  const std::int64_t salt = 3 * arg_index + 1;
  if (shard::is_integer(type.dtype)) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[i] = (i * 5 + salt) % 7 - 3;
    return HostTensor::from_ints(type.dtype, type.shape, v);
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if (type.dtype == shard::DType::f32) v[i] = static_cast<double>((i * 7 + salt) % 17 - 8) / 8.0;
    else if (arg_index == 0) v[i] = i % 29 == 0 ? ((i / 29) % 2 ? 1.0 : -1.0) : 0.0;
    else v[i] = static_cast<double>((i * 7 + salt) % 3 - 1);
  }
  return HostTensor::from_floats(type.dtype, type.shape, v);
}

shard::Tensor to_tensor(const HostTensor& h) {
  const std::vector<unsigned char> bytes = h.to_bytes();
  return shard::Tensor::from_bytes(h.dtype, h.shape, bytes.data());
}

// A rank-1 vector is a one-row (lhs) or one-column (rhs) matrix, as in numpy's matmul.
sk::View matrix_view(const shard::Tensor& t, bool is_lhs) {
  shard::Shape s = t.shape();
  if (s.size() == 1) s = is_lhs ? shard::Shape{1, s[0]} : shard::Shape{s[0], 1};
  return sk::View::contiguous(t.data(), t.dtype(), s);
}
sk::View tensor_view(const shard::Tensor& t) { return sk::View::contiguous(t.data(), t.dtype(), t.shape()); }
sk::MutView tensor_mut_view(shard::Tensor& t) { return sk::MutView::contiguous(t.data(), t.dtype(), t.shape()); }

// The single call of one case: operands and results allocated once, run() does the math.
class SingleCall {
 public:
  SingleCall(const Case& c, const std::vector<shard::Tensor>& args) : case_(c), args_(args) {
    const shard::Tensor& lhs = args_.at(0);
    const shard::Tensor& rhs = args_.at(1);
    const std::int64_t m = lhs.rank() == 1 ? 1 : lhs.dim(0);
    const std::int64_t n = rhs.rank() == 1 ? 1 : rhs.dim(rhs.rank() - 1);
    if (c.extra == Extra::square_lhs) squared_ = shard::Tensor::uninitialized(lhs.dtype(), lhs.shape());
    product_ = shard::Tensor::uninitialized(lhs.dtype(), {m, n});
    if (c.extra == Extra::bias_sigmoid) {
      biased_ = shard::Tensor::uninitialized(lhs.dtype(), {m, n});
      activated_ = shard::Tensor::uninitialized(lhs.dtype(), {m, n});
    }
  }

  std::int64_t flops_of_one_run() {
    const std::int64_t before = ctx_.matmul_flops();
    run();
    return ctx_.matmul_flops() - before;
  }

  void run() {
    const shard::Tensor* lhs = &args_[0];
    if (case_.extra == Extra::square_lhs) {
      sk::unary(ctx_, sk::UnaryOp::square, tensor_view(*lhs), tensor_mut_view(squared_));
      lhs = &squared_;
    }
    sk::matmul(ctx_, matrix_view(*lhs, true), matrix_view(args_[1], false), tensor_mut_view(product_));
    if (case_.extra == Extra::bias_sigmoid) {
      sk::binary(ctx_, sk::BinaryOp::add, tensor_view(product_), tensor_view(args_.at(2)), tensor_mut_view(biased_));
      sk::unary(ctx_, sk::UnaryOp::sigmoid, tensor_view(biased_), tensor_mut_view(activated_));
    }
  }

  // The global result, in the layout of a generated result of `shape` (same element count).
  HostTensor result(const shard::Shape& shape) const {
    const shard::Tensor& r = case_.extra == Extra::bias_sigmoid ? activated_ : product_;
    if (shard::shape_numel(shape) != r.numel()) return HostTensor::zeros(r.dtype(), r.shape());
    return HostTensor::from_bytes(r.dtype(), shape, r.data());
  }

 private:
  const Case& case_;
  const std::vector<shard::Tensor>& args_;
  sk::Context ctx_;
  shard::Tensor squared_, product_, biased_, activated_;
};

struct Row {
  std::string name;
  double sharded_ms = 0, single_ms = 0, ratio = 0;
  double work = 0;  // matmul FLOPs of the generated call on all devices / the single call's
  int pairs = 0;
  int devices = 0;  // of the Runtime (the program's mesh)
  std::string note;
  bool checked = false;
};
std::vector<Row>& rows() {
  static std::vector<Row> all;
  return all;
}

// One Runtime per device count, made when first needed and kept: a Runtime of the mesh's size
// gives each device cores / devices OpenMP threads, where an 8-device Runtime running a 4-device
// program would leave half the cores idle (on 2 cores both give one thread per device).
shard::Runtime& runtime_for(int devices) {
  static std::map<int, std::unique_ptr<shard::Runtime>> runtimes;
  auto& rt = runtimes[devices];
  if (!rt) rt = std::make_unique<shard::Runtime>(devices);
  return *rt;
}

// The matmul FLOPs that `call` runs on all the runtime's devices together.
template <class Call>
double matmul_flops(shard::Runtime& rt, Call&& call) {
  const shard::Mesh every({{"d", rt.num_devices()}});
  auto total = [&] {
    std::vector<std::int64_t> per_device(static_cast<std::size_t>(rt.num_devices()));
    rt.run(every, [&](shard::Device& dev) { per_device[dev.id()] = dev.kernels().matmul_flops(); });
    double sum = 0;
    for (std::int64_t f : per_device) sum += static_cast<double>(f);
    return sum;
  };
  const double before = total();
  call();
  return total() - before;
}

void BM_Generated(benchmark::State& state, const Case& c) {
  if (!c.entry) {
    state.SkipWithError(("examples/" + c.program + ".shard has no entry point " + c.function).c_str());
    return;
  }
  const std::vector<shard::ArrayType> types = c.entry->param_types();
  shard::Runtime& rt = runtime_for(types.at(0).sharding.mesh().end_device());
  std::vector<HostTensor> host;
  std::vector<shard::Array> arrays;
  std::vector<shard::Tensor> globals;
  for (std::size_t i = 0; i < types.size(); ++i) {
    host.push_back(make_operand(types[i], static_cast<int>(i)));
    const std::vector<unsigned char> bytes = host.back().to_bytes();
    arrays.push_back(shard::Array::from_host(rt, types[i], bytes.data()));
    globals.push_back(to_tensor(host.back()));
  }
  SingleCall single(c, globals);
  std::vector<shard::Array> results;
  auto sharded = [&] { results = c.entry->call(rt, arrays); };
  auto timed = [](auto&& fn) {
    const auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };

  sharded();  // warm-up: primitives created, pages touched
  single.run();
  // Work: the matmul FLOPs of one generated call on all devices against the single call's.
  const double work = matmul_flops(rt, sharded) / static_cast<double>(single.flops_of_one_run());
  std::vector<double> ratios, sharded_s, single_s;
  for (auto _ : state) {
    double elapsed = 0;
    int min_pairs = kMinPairs;
    bool sharded_first = true;
    while (static_cast<int>(ratios.size()) < kMaxPairs &&
           (static_cast<int>(ratios.size()) < min_pairs || elapsed < kBudgetSeconds)) {
      double a, b;
      if (sharded_first) {
        a = timed(sharded);
        b = timed([&] { single.run(); });
      } else {
        b = timed([&] { single.run(); });
        a = timed(sharded);
      }
      sharded_first = !sharded_first;
      ratios.push_back(a / b);
      sharded_s.push_back(a);
      single_s.push_back(b);
      elapsed += a + b;
      if (a + b > kSlowPairSeconds) min_pairs = kMinSlowPairs;
    }
    state.SetIterationTime(median(sharded_s));
  }

  // Every result of the last generated call must equal the single call's.
  for (std::size_t r = 0; r < results.size(); ++r) {
    const shard::ArrayType& type = results[r].type();
    std::vector<unsigned char> bytes(static_cast<std::size_t>(shard::shape_numel(type.shape)) *
                                     shard::dtype_size(type.dtype));
    results[r].to_host(bytes.data());
    const HostTensor got = HostTensor::from_bytes(type.dtype, type.shape, bytes.data());
    const shardc::eval::Comparison cmp = shardc::eval::compare_to_reference(got, single.result(type.shape));
    if (!cmp.ok) {
      state.SkipWithError(("result " + std::to_string(r) + " differs from the single matmul: " + cmp.problem).c_str());
      return;
    }
  }
  Row row{c.program + "/" + c.function, median(sharded_s) * 1e3, median(single_s) * 1e3, median(ratios), work,
          static_cast<int>(ratios.size()), rt.num_devices(), c.baseline_note, true};
  state.counters["ratio"] = row.ratio;
  state.counters["sharded_ms"] = row.sharded_ms;
  state.counters["single_ms"] = row.single_ms;
  state.counters["pairs"] = row.pairs;
  state.counters["work"] = row.work;
  rows().push_back(row);
}

void print_summary() {
  if (rows().empty()) return;
  std::printf("\nGenerated code of the seed matmuls vs one oneDNN call of the whole problem "
              "(median of paired samples, target <= %.2fx)\n",
              kTarget);
  // work: matmul FLOPs of the generated call on all devices over the single call's (more than 1
  // when the program's algorithm repeats work, e.g. on replicas); ratio/work: the time per unit
  // of matmul work against the single call's.
  std::printf("%-88s %3s %11s %10s %7s %5s %9s %5s %s\n", "program/function", "dev", "sharded ms", "single ms", "ratio",
              "work", "ratio/work", "pairs", "verdict");
  int pass = 0;
  for (const Row& r : rows()) {
    const bool ok = r.ratio <= kTarget;
    pass += ok;
    std::printf("%-88s %3d %11.3f %10.3f %7.3f %5.2f %9.3f %5d %s%s%s\n", r.name.c_str(), r.devices, r.sharded_ms, r.single_ms,
                r.ratio, r.work, r.work > 0 ? r.ratio / r.work : 0.0, r.pairs, ok ? "PASS" : "FAIL",
                r.note.empty() ? "" : "  (", r.note.empty() ? "" : (r.note + ")").c_str());
  }
  std::printf("%d PASS / %zu FAIL\n", pass, rows().size() - pass);
}

}  // namespace

int main(int argc, char** argv) {
  shard_bench::use_passive_openmp(argv);
  std::printf("OMP_WAIT_POLICY: %s\n", shard_bench::openmp_wait_policy());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  static const std::vector<Case> cases = seed_cases();
  for (const Case& c : cases)
    benchmark::RegisterBenchmark(("generated/" + c.program + "/" + c.function).c_str(), BM_Generated, c)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
