// The collectives of runtime_bench through Open MPI, for comparison on the same machine:
//   mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader
//          --mca mpi_yield_when_idle 1 -np N mpi_collectives_bench [--reps R] [--out FILE.json]
// Same sizes, data, per-call op counts and formulas as runtime_bench (bench_model.h):
// all_reduce = MPI_Allreduce, all_gather = MPI_Allgather, reduce_scatter =
// MPI_Reduce_scatter_block, all_to_all = MPI_Alltoall, permute = MPI_Sendrecv to rank+1 from
// rank-1. One call: MPI_Barrier, K back-to-back ops, time = (last rank's end - first rank's
// start) / K, as runtime_bench times its device threads; one sample is the
// mean of calls_per_sample calls, as a runtime_bench repetition. Each op has one untimed
// warm-up sample; the reported time is the median of R samples. Outputs are checked
// after timing. Rank 0 prints a line per result and writes them as JSON.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_model.h"

namespace {

using shard_bench::Op;

void run_op(Op op, int n, int rank, const std::vector<float>& in, std::vector<float>& out) {
  const int out_count = static_cast<int>(out.size());
  switch (op) {
    case Op::all_reduce:
      MPI_Allreduce(in.data(), out.data(), out_count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case Op::all_gather:
      MPI_Allgather(in.data(), static_cast<int>(in.size()), MPI_FLOAT, out.data(), static_cast<int>(in.size()),
                    MPI_FLOAT, MPI_COMM_WORLD);
      break;
    case Op::reduce_scatter:
      MPI_Reduce_scatter_block(in.data(), out.data(), out_count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case Op::all_to_all:
      MPI_Alltoall(in.data(), out_count / n, MPI_FLOAT, out.data(), out_count / n, MPI_FLOAT, MPI_COMM_WORLD);
      break;
    case Op::permute:
      MPI_Sendrecv(in.data(), out_count, MPI_FLOAT, (rank + 1) % n, 0, out.data(), out_count, MPI_FLOAT,
                   (rank + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      break;
    default: break;
  }
}

// CLOCK_MONOTONIC (libstdc++'s steady_clock) is one clock for every process of the machine, so
// starts and ends of different ranks compare, as runtime_bench's device threads do.
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int reps = 5;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--out" && i + 1 < argc) {
      out_path = argv[++i];
    } else {
      if (rank == 0) std::fprintf(stderr, "usage: mpi_collectives_bench [--reps R] [--out FILE.json]\n");
      MPI_Finalize();
      return 2;
    }
  }

  nlohmann::json results = nlohmann::json::array();
  bool all_correct = true;
  for (Op op : shard_bench::kCollectives) {
    for (std::int64_t size : shard_bench::kSizes) {
      const auto counts = shard_bench::element_counts(op, n, size);
      const int k = shard_bench::ops_per_call(size);
      std::vector<float> in(counts.in), out(counts.out, 0.0f);
      for (std::int64_t i = 0; i < counts.in; ++i) in[i] = shard_bench::input_value(rank, i);
      std::vector<double> samples;
      const int calls = shard_bench::calls_per_sample(size);
      for (int rep = 0; rep <= reps; ++rep) {  // rep 0 is the warm-up
        double sum = 0;
        for (int call = 0; call < calls; ++call) {
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = now_seconds();
          for (int i = 0; i < k; ++i) run_op(op, n, rank, in, out);
          const double t1 = now_seconds();
          double first_start = 0, last_end = 0;
          MPI_Allreduce(&t0, &first_start, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
          MPI_Allreduce(&t1, &last_end, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          sum += (last_end - first_start) / k;
        }
        if (rep > 0) samples.push_back(sum / calls);
      }
      int correct = 1;
      for (std::int64_t i = 0; i < counts.out; ++i)
        if (out[i] != shard_bench::expected_value(op, n, rank, counts.out, i)) {
          correct = 0;
          break;
        }
      int all = 0;
      MPI_Allreduce(&correct, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      all_correct = all_correct && all == 1;
      const double seconds = median(samples);
      const double busbw = static_cast<double>(size) / seconds * shard_bench::busbw_factor(op, n);
      if (rank == 0) {
        std::printf("mpi %-14s n=%d %9lld B  %10.2f us  busbw %8.3f GB/s%s\n", std::string(shard_bench::op_name(op)).c_str(),
                    n, static_cast<long long>(size), seconds * 1e6, busbw / 1e9, all == 1 ? "" : "  WRONG OUTPUT");
        std::fflush(stdout);
        results.push_back({{"op", shard_bench::op_name(op)},
                           {"devices", n},
                           {"bytes", size},
                           {"seconds", seconds},
                           {"busbw", busbw},
                           {"correct", all == 1},
                           {"reps", reps},
                           {"ops_per_call", k}});
      }
    }
  }
  if (rank == 0 && !out_path.empty()) {
    std::ofstream file(out_path);
    file << nlohmann::json{{"mpi_results", results}}.dump(1) << "\n";
    if (!file) std::fprintf(stderr, "mpi_collectives_bench: cannot write %s\n", out_path.c_str());
  }
  MPI_Finalize();
  return all_correct ? 0 : 1;
}
