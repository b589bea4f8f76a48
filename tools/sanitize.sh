#!/usr/bin/env bash
# Sanitizer builds (issue 2, 3, 4): AddressSanitizer + UndefinedBehaviorSanitizer on the tests
# labelled unit, checker, frontend or diagnostics (build-asan/, clang, configured by
# tools/configure-asan.sh and shared with fuzz/run.sh: the front end, checker, evaluator and
# runtime unit tests; codegen's tests compile and run whole examples), ThreadSanitizer on the
# runtime tests (build-tsan/, g++). Tests labelled slow or examples are left out. Only the test
# folders each tree runs are built. Prints the time each part took.
#
# Usage: tools/sanitize.sh [asan|tsan|all]     (default all; exit status 1 if any test fails)
# Environment: SANITIZE_JOBS (build and ctest parallelism, default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=${SANITIZE_JOBS:-$(nproc)}

# -O1 -g1: line tables are all a sanitizer report needs for file:line stacks, and against
# RelWithDebInfo's -O2 -g this halves the build (475 s -> 229 s for ASan on 2 idle cores).
configure() {  # DIR SANITIZERS
  if [[ $2 == address,undefined ]]; then
    tools/configure-asan.sh "$1"
  elif [[ ! -f $1/CMakeCache.txt ]]; then
    cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDC_SANITIZE="$2" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DSHARDC_BUILD_TESTS=ON -DSHARDC_BUILD_BENCH=OFF -DSHARDC_BUILD_EXAMPLES=OFF
  fi
}

# The Ninja "DIR/all" target of each existing test folder (only that folder's targets), plus
# shardc itself, which the diagnostics tests run. Every folder whose tests carry a selected
# label must be listed: an unbuilt gtest binary still registers a failing "X_NOT_BUILT" test
# with its labels.
targets_for() {  # FOLDER...
  local folder
  for folder in "$@"; do
    [[ -f tests/$folder/CMakeLists.txt ]] && echo "tests/$folder/all"
  done
  [[ $* == *diagnostics* && -f tools/shardc/CMakeLists.txt ]] && echo shardc
  return 0
}

run_part() {  # NAME DIR SANITIZERS LABEL_REGEX FOLDER...
  local name=$1 dir=$2 sanitizers=$3 labels=$4
  shift 4
  local start=$SECONDS
  configure "$dir" "$sanitizers"
  mapfile -t targets < <(targets_for "$@")
  nice cmake --build "$dir" --parallel "$jobs" --target "${targets[@]}"
  local built=$SECONDS
  local status=0
  ctest --test-dir "$dir" --output-on-failure --parallel "$jobs" -L "$labels" -LE 'slow|examples' || status=$?
  echo "sanitize.sh: $name: build $((built - start)) s, tests $((SECONDS - built)) s, status $status"
  return $status
}

# Leaks count as failures; UBSan prints a stack. libgomp and oneDNN are not built with TSan:
# tools/tsan.supp silences reports whose racing frames lie only inside them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tools/tsan.supp}

failed=0
if [[ $what == all || $what == asan ]]; then
  run_part "asan+ubsan (unit, checker, frontend, diagnostics)" build-asan address,undefined \
    'unit|checker|frontend|diagnostics' checker frontend diagnostics runtime evaluator || failed=1
fi
if [[ $what == all || $what == tsan ]]; then
  run_part "tsan (runtime)" build-tsan thread runtime runtime || failed=1
fi
exit $failed
