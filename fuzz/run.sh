#!/usr/bin/env bash
# Builds the front-end fuzzer in the clang ASan tree and runs it for SECONDS (default 60), split
# over one process per core, reproducibly: fixed seeds, fixed input size limit, a per-input
# timeout (a hang is a failure) and a memory limit. Usage: fuzz/run.sh [SECONDS] [BUILD_DIR]
#   The checked-in corpus (fuzz/corpus/), examples/ and tests/diagnostics/ seed the run;
#   new inputs go to BUILD_DIR/corpus (never into the source tree). A crash, hang, leak or
#   sanitizer report stops the run with exit status 1 and leaves the input in
#   BUILD_DIR/artifacts/: copy it to fuzz/regressions/ and report it (fuzz/README.md).
# Environment: FUZZ_SEED (first worker's seed, default 1), FUZZ_WORKERS (processes, default nproc), FUZZ_TIMEOUT (seconds per input, default 20), FUZZ_EXTRA (more libFuzzer flags, e.g. -runs=100000).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-asan}

# The tree tools/sanitize.sh runs the ASan tests in: after it, only the fuzzer's own file and
# link are left to build.
tools/configure-asan.sh "$build"
nice cmake --build "$build" --target shardc_frontend_fuzzer

fuzzer=$build/fuzz/shardc_frontend_fuzzer
mkdir -p "$build/corpus" "$build/artifacts"
seeds=(fuzz/corpus fuzz/regressions examples)
[[ -d tests/diagnostics ]] && seeds+=(tests/diagnostics)

# First the regressions alone: each must now pass (a fixed bug stays fixed).
shopt -s nullglob
regressions=(fuzz/regressions/*.shard)
shopt -u nullglob
if (( ${#regressions[@]} )); then
  echo "fuzz/run.sh: replaying ${#regressions[@]} regression input(s)"
  ASAN_OPTIONS=detect_leaks=1 "$fuzzer" -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 "${regressions[@]}" || {
    echo "fuzz/run.sh: a regression input fails again"; exit 1; }
fi

# SECONDS of fuzzing are split over FUZZ_WORKERS processes (default: one per core), each with
# its own seed (FUZZ_SEED + i) and all sharing BUILD_DIR/corpus, so that each finds what the
# others add: the same fuzzing time in 1/workers of the wall time (each worker first replays
# the seed corpus, so fewer new inputs are tried in all than by one process in one long run).
workers=${FUZZ_WORKERS:-$(nproc)}
(( workers >= 1 )) || workers=1
per_worker=$(( (seconds + workers - 1) / workers ))
first_seed=${FUZZ_SEED:-1}
echo "fuzz/run.sh: fuzzing for ${seconds}s: $workers process(es) of ${per_worker}s, seeds $first_seed.. (logs: $build/fuzz-worker-*.log)"
# -timeout: one input running longer than FUZZ_TIMEOUT (20 s; the slowest seed takes ~1 s
# under ASan on an idle core) is a hang; -rss_limit_mb: 2 GiB is a leak or an unbounded
# allocation; -max_len: larger than every example, so seeds are not truncated.
pids=()
for (( i = 0; i < workers; i++ )); do
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
  nice "$fuzzer" \
    -seed=$(( first_seed + i )) -max_len=16384 -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 \
    -max_total_time="$per_worker" \
    -dict=fuzz/shard.dict -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/" ${FUZZ_EXTRA:-} \
    "$build/corpus" "${seeds[@]}" >"$build/fuzz-worker-$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "fuzz/run.sh: worker $i (seed $(( first_seed + i ))): $(grep -E '^stat::number_of_executed_units' "$build/fuzz-worker-$i.log" | cut -d: -f4- | xargs) inputs run, no failure"
  else
    failed=1
    echo "fuzz/run.sh: worker $i (seed $(( first_seed + i ))) failed; the end of its log:"
    tail -n 80 "$build/fuzz-worker-$i.log"
  fi
done
exit $failed
