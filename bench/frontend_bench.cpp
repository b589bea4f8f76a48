// Front-end speed: parse + check of the largest example, and of a generated 2,000-line
// program (targets: under 50 ms and under 1 s). Run:
//   build/bench/frontend_bench --benchmark_filter=Check
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "frontend/check/check.h"
#include "frontend/parse.h"

namespace {

namespace fs = std::filesystem;

struct Source {
  std::string name;
  std::string text;
};

Source largest_example() {
  Source best;
  for (const auto& e : fs::directory_iterator(SHARDC_EXAMPLES_DIR)) {
    if (e.path().extension() != ".shard") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().size() > best.text.size()) best = {e.path().filename().string(), ss.str()};
  }
  if (best.text.empty()) throw std::runtime_error("no examples in " SHARDC_EXAMPLES_DIR);
  return best;
}

// A program of about `lines` lines mixing explicit funcs (matmuls, elementwise chains,
// reductions, reshards) and shard_maps (unrolled ring loops, collectives).
std::string generated_program(int lines) {
  std::ostringstream o;
  o << "mesh grid = [X: 4, Y: 2];\nconst B = 256;\nconst D = 512;\nconst F = 1024;\n";
  int written = 4, k = 0;
  while (written < lines) {
    o << "func layer" << k << "(x: f32[B@X, D], w: f32[D, F@Y]) -> f32[B@X] on grid {\n"
      << "  let h0 = x @ w;\n";
    for (int i = 1; i <= 12; ++i) o << "  let h" << i << " = relu(h" << i - 1 << " * 0.5 + 1.0) - h" << i - 1 << " / 3.0;\n";
    o << "  let r = reshard(h12, [X, None]);\n  let s = sum(r, axis=1);\n  return s;\n}\n";
    o << "shard_map ring" << k << "(x: f32[B@X, D@Y], w: f32[D, F]) -> f32[B@X, F] on grid {\n"
      << "  let n = axis_size(Y);\n  let i0 = axis_index(Y);\n"
      << "  var acc = pvary(zeros(f32[B // 4, F]), (X, Y));\n  var l = x;\n"
      << "  for i in 0..n {\n"
      << "    acc += l @ dynamic_slice(w, ((i0 + i) % n) * (D // n), D // n, axis=0);\n"
      << "    if i < n - 1 { l = ppermute(l, Y, shift=-1); }\n  }\n"
      << "  let g = all_gather(acc, Y, axis=0, tiled=true);\n"
      << "  return psum(acc, Y);\n}\n";
    ++k;
    const std::string so_far = o.str();
    written = static_cast<int>(std::count(so_far.begin(), so_far.end(), '\n'));
  }
  return o.str();
}

void parse_and_check(benchmark::State& state, const Source& src) {
  for (auto _ : state) {
    shardc::Diagnostics diags;
    auto module = shardc::parse(src.text, src.name, diags);
    if (!module) {
      state.SkipWithError(("parse failed: " + diags.render()).c_str());
      return;
    }
    auto result = shardc::check::check(*module, {}, diags);
    if (diags.has_errors() || !result.module) {
      state.SkipWithError(("check failed: " + diags.render()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result.module.get());
  }
  state.counters["lines"] = static_cast<double>(std::count(src.text.begin(), src.text.end(), '\n'));
  state.counters["bytes"] = static_cast<double>(src.text.size());
}

// Parsing alone, to see how the total splits between parser and checker.
void BM_ParseOnlyGenerated2000Lines(benchmark::State& state) {
  static const Source src{"generated.shard", generated_program(2000)};
  for (auto _ : state) {
    shardc::Diagnostics diags;
    auto module = shardc::parse(src.text, src.name, diags);
    if (!module) {
      state.SkipWithError("parse failed");
      return;
    }
    benchmark::DoNotOptimize(module.get());
  }
}
BENCHMARK(BM_ParseOnlyGenerated2000Lines)->Unit(benchmark::kMillisecond);

void BM_CheckLargestExample(benchmark::State& state) {
  static const Source src = largest_example();
  state.SetLabel(src.name);
  parse_and_check(state, src);
}
BENCHMARK(BM_CheckLargestExample)->Unit(benchmark::kMillisecond);

void BM_CheckGenerated2000Lines(benchmark::State& state) {
  static const Source src{"generated.shard", generated_program(2000)};
  parse_and_check(state, src);
}
BENCHMARK(BM_CheckGenerated2000Lines)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
