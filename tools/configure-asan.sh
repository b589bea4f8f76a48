#!/usr/bin/env bash
# Configures (once) the AddressSanitizer + UndefinedBehaviorSanitizer tree that both
# tools/sanitize.sh (the unit, checker, front-end and diagnostics tests) and fuzz/run.sh (the
# libFuzzer target) build from, so the front end is compiled once for both.
# Usage: tools/configure-asan.sh [DIR]   (default build-asan)
#
# clang, because libFuzzer needs it, and because its ASan+UBSan build of this tree takes 947 s of
# CPU at -O1 against g++'s 1211 s (2026-11-25). -fopenmp=libgomp: the runtime then links GCC's
# OpenMP, as oneDNN and the Release build do (clang alone would bring LLVM's libomp into the
# same process). -O1 -g1: line tables are all a report needs; -O0 compiles in 40% less time
# but runs the tests three times slower. SHARDC_FUZZ adds libFuzzer's coverage instrumentation
# to the front end and code generator (cmake/ShardcCompileOptions.cmake). Unity build: the
# libraries' files are compiled eight to a translation unit, so that their shared headers are
# parsed and instrumented once per batch (the test binaries opt out in tests/CMakeLists.txt);
# a build of the sanitized tree in about 30% less time. The Release tree keeps one file per
# translation unit, which is where a missing #include shows.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-asan}
if [[ -f $dir/CMakeCache.txt ]]; then
  # A tree configured otherwise (g++, or without the fuzzer: shardc before 2026-11-25) would
  # fail later with an unknown target; say what to do instead.
  if ! grep -q '^SHARDC_FUZZ:BOOL=ON$' "$dir/CMakeCache.txt"; then
    echo "configure-asan.sh: $dir was configured without -DSHARDC_FUZZ=ON (an older layout); remove it and run again" >&2
    exit 1
  fi
  exit 0
fi
CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DSHARDC_SANITIZE=address,undefined -DSHARDC_FUZZ=ON \
  -DOpenMP_CXX_FLAGS=-fopenmp=libgomp -DOpenMP_CXX_LIB_NAMES=gomp \
  -DOpenMP_gomp_LIBRARY="$(gcc -print-file-name=libgomp.so)" \
  -DSHARDC_BUILD_TESTS=ON -DSHARDC_BUILD_BENCH=OFF -DSHARDC_BUILD_EXAMPLES=OFF \
  -DCMAKE_UNITY_BUILD=ON
