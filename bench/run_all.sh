#!/usr/bin/env bash
# Issue 3's runtime benchmarks in one go: builds runtime_bench, mpi_collectives_bench and
# bench_report, runs the in-process runtime and Open MPI (8 and 2 ranks) at the same sizes, and
# prints the table of target ratios with PASS/FAIL (also saved as report.txt).
#   bench/run_all.sh                      # build dir build-bench, 5 repetitions
#   BUILD_DIR=... OUT_DIR=... REPS=7 bench/run_all.sh
# Takes a few minutes on a quiet 2-core machine; on a loaded one the figures mean little.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
out=${OUT_DIR:-$build/bench-results}
reps=${REPS:-5}

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
nice cmake --build "$build" --target runtime_bench mpi_collectives_bench bench_report
mkdir -p "$out"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/machine.txt"

echo "== runtime_bench ($reps repetitions)"
"$build/bench/runtime_bench" --benchmark_repetitions="$reps" --benchmark_min_time=0.1 --benchmark_display_aggregates_only=true \
  --benchmark_out="$out/runtime.json" --benchmark_out_format=json | tee "$out/runtime.txt"

for n in 8 2; do
  echo "== Open MPI, $n ranks"
  mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader --mca mpi_yield_when_idle 1 \
    -np "$n" "$build/bench/mpi_collectives_bench" --reps "$reps" --out "$out/mpi_$n.json" | tee "$out/mpi_$n.txt"
done

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
"$build/bench/bench_report" "$out/runtime.json" "$out/mpi_8.json" "$out/mpi_2.json" | tee "$out/report.txt"

# Issue 4: the generated code of the seed matmuls against one oneDNN call, and shardc's compile
# time per example (see docs/performance.md, "Generated code and compile time"). About 5 minutes
# (the two i32 collective_matmul cases take half of it).
nice cmake --build "$build" --target generated_matmul_bench generated_compile_bench
echo "== generated code of the seed matmuls (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench/generated_matmul_bench" --benchmark_out="$out/generated_matmul.json" --benchmark_out_format=json \
  | tee "$out/generated_matmul.txt"
echo "== shardc compile time per example (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench/generated_compile_bench" --benchmark_out="$out/generated_compile.json" --benchmark_out_format=json \
  | tee "$out/generated_compile.txt"
echo "load after the generated-code benchmarks: $(cut -d' ' -f1-3 /proc/loadavg)"
