// Reads runtime_bench's Google Benchmark JSON and mpi_collectives_bench's JSON (one file per
// device count) and prints issue 3's targets as a table of ratios with PASS/FAIL:
//   bench_report RUNTIME.json MPI_8.json MPI_2.json
// Times are medians: over the repetitions of each runtime benchmark (its iteration entries),
// over the samples of each MPI op (taken by mpi_collectives_bench). Exit status 0 when the
// inputs were read (whatever the verdicts), 1 when they could not be, or a benchmark failed
// its output check.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_model.h"

namespace {

using nlohmann::json;
using shard_bench::Op;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

json read_json(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  return json::parse(file);
}

double to_seconds(double value, const std::string& unit) {
  if (unit == "ns") return value * 1e-9;
  if (unit == "us") return value * 1e-6;
  if (unit == "ms") return value * 1e-3;
  return value;
}

// Per benchmark run_name: the per-repetition times (seconds) and counters.
struct Runs {
  std::vector<double> seconds;
  std::map<std::string, std::vector<double>> counters;
  std::string error;
};

// "coll/psum/8/4096/iterations:200/manual_time" -> "coll/psum/8/4096": Google Benchmark appends
// the fixed iteration count and the timing mode to the registered name.
std::string base_name(std::string name) {
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part.rfind("iterations:", 0) != 0 && part != "manual_time" && part != "real_time")
      out += (out.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return out;
}

std::map<std::string, Runs> read_runtime(const json& doc) {
  std::map<std::string, Runs> runs;
  for (const json& b : doc.at("benchmarks")) {
    if (b.value("run_type", "iteration") != "iteration") continue;
    Runs& r = runs[base_name(b.at("run_name").get<std::string>())];
    if (b.value("error_occurred", false)) {
      r.error = b.value("error_message", "error");
      continue;
    }
    r.seconds.push_back(to_seconds(b.at("real_time").get<double>(), b.at("time_unit").get<std::string>()));
    for (const char* c : {"ratio", "sharded_us", "single_us", "pairs"})
      if (b.contains(c)) r.counters[c].push_back(b.at(c).get<double>());
  }
  return runs;
}

struct Tally {
  int pass = 0, fail = 0;
  const char* operator()(bool ok) {
    ++(ok ? pass : fail);
    return ok ? "PASS" : "FAIL";
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_report RUNTIME.json MPI.json [MPI.json ...]\n");
    return 1;
  }
  std::map<std::string, Runs> runtime;
  std::map<std::tuple<std::string, int, std::int64_t>, double> mpi;  // (op, n, bytes) -> seconds
  bool failures = false;
  try {
    runtime = read_runtime(read_json(argv[1]));
    for (int i = 2; i < argc; ++i) {
      const json doc = read_json(argv[i]);  // kept: a range-for over a temporary's member dangles
      for (const json& r : doc.at("mpi_results")) {
        if (!r.at("correct").get<bool>()) {
          std::printf("MPI %s n=%d: wrong output\n", r.at("op").get<std::string>().c_str(), r.at("devices").get<int>());
          failures = true;
        }
        mpi[{r.at("op").get<std::string>(), r.at("devices").get<int>(), r.at("bytes").get<std::int64_t>()}] =
            r.at("seconds").get<double>();
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_report: %s\n", e.what());
    return 1;
  }
  auto runtime_seconds = [&](const std::string& name) -> double {
    auto it = runtime.find(name);
    if (it == runtime.end()) return 0;
    if (!it->second.error.empty()) {
      std::printf("%s: %s\n", name.c_str(), it->second.error.c_str());
      failures = true;
      return 0;
    }
    return median(it->second.seconds);
  };

  Tally tally;
  for (int n : shard_bench::kDeviceCounts) {
    std::printf("\n== %d devices (times: median per op; GB/s = 1e9 B/s)\n", n);
    std::printf("%-14s %9s %10s %9s %9s %7s %9s %9s %6s %6s  %s\n", "op", "bytes", "time us", "busbw", "mpi busbw",
                "vs mpi", "written", "memcpy", "w/cpy", "bound", "targets");
    for (Op op : shard_bench::kAllOps) {
      for (std::int64_t size : shard_bench::kSizes) {
        const std::string base = "coll/" + std::string(shard_bench::op_name(op)) + "/" + std::to_string(n) + "/";
        const double t = runtime_seconds(base + std::to_string(size));
        const double t_copy = runtime_seconds("coll/memcpy/" + std::to_string(n) + "/" + std::to_string(size));
        const double t_add = runtime_seconds("coll/add/" + std::to_string(n) + "/" + std::to_string(size));
        if (t <= 0) continue;
        const double busbw = static_cast<double>(size) / t * shard_bench::busbw_factor(op, n);
        const double written = shard_bench::bytes_written(op, n, size) / t;
        const double copy_written = t_copy > 0 ? shard_bench::bytes_written(Op::memcpy, n, size) / t_copy : 0;
        const bool collective = op != Op::memcpy && op != Op::add;
        const auto m = mpi.find({std::string(shard_bench::op_name(op)), n, size});
        const double mpi_busbw =
            m != mpi.end() ? static_cast<double>(size) / m->second * shard_bench::busbw_factor(op, n) : 0;
        const double vs_mpi = mpi_busbw > 0 ? busbw / mpi_busbw : 0;
        const double bound =
            t_copy > 0 && t_add > 0 ? shard_bench::bound_seconds(op, n, size, t_copy, t_add) / t : 0;
        std::string targets;
        if (collective && mpi_busbw <= 0) targets += "(no Open MPI figure) ";
        if (collective) {
          if (n == 8 && size <= (4 << 20)) {
            targets += std::string("3x mpi ") + tally(vs_mpi >= 3.0);
            targets += std::string(", written>=0.5 memcpy ") + tally(written >= 0.5 * copy_written);
          }
          if (n == 2 && size >= (256 << 10) && size <= (4 << 20)) targets += std::string("1.5x mpi ") + tally(vs_mpi >= 1.5);
          if (size == (64 << 20)) {
            targets += std::string(">=mpi ") + tally(vs_mpi >= 1.0);
            targets += std::string(", >=0.6 bound ") + tally(bound >= 0.6);
          }
        }
        std::printf("%-14s %9lld %10.2f %9.3f %9s %7s %9.3f %9.3f %6.2f %6.2f  %s\n",
                    std::string(shard_bench::op_name(op)).c_str(), static_cast<long long>(size), t * 1e6, busbw / 1e9,
                    mpi_busbw > 0 ? std::to_string(mpi_busbw / 1e9).substr(0, 7).c_str() : "-",
                    vs_mpi > 0 ? std::to_string(vs_mpi).substr(0, 5).c_str() : "-", written / 1e9, copy_written / 1e9,
                    copy_written > 0 ? written / copy_written : 0.0, bound, targets.c_str());
      }
    }
  }

  std::printf("\n== empty call: Runtime::run of an empty function vs std::thread + std::barrier loop\n");
  for (int n : shard_bench::kDeviceCounts) {
    const double rt = runtime_seconds("launch/runtime/" + std::to_string(n));
    const double plain = runtime_seconds("launch/threads/" + std::to_string(n));
    if (rt <= 0 || plain <= 0) continue;
    std::printf("%d devices: runtime %.2f us, plain threads %.2f us, ratio %.3f  <=0.7 %s\n", n, rt * 1e6, plain * 1e6,
                rt / plain, tally(rt / plain <= 0.7));
  }

  std::printf("\n== sharded matmul x[1024,4096] @ w[4096,256] on [dp:4,tp:2] vs one oneDNN matmul (paired samples)\n");
  for (const char* form : {"rows", "scatter"}) {
    const std::string name = std::string("matmul/") + form;
    auto it = runtime.find(name);
    if (it == runtime.end()) continue;
    if (!it->second.error.empty()) {
      std::printf("%s: %s\n", name.c_str(), it->second.error.c_str());
      failures = true;
      continue;
    }
    auto& c = it->second.counters;
    const double ratio = median(c["ratio"]);
    std::printf("%-8s sharded %.3f ms, single %.3f ms, median pair ratio %.3f (%g pairs x %zu reps)  <=1.05 %s\n", form,
                median(c["sharded_us"]) / 1e3, median(c["single_us"]) / 1e3, ratio, median(c["pairs"]),
                c["ratio"].size(), tally(ratio <= 1.05));
  }

  std::printf("\n%d targets PASS, %d FAIL%s\n", tally.pass, tally.fail, failures ? " (and some benchmarks FAILED their checks)" : "");
  return failures ? 1 : 0;
}
