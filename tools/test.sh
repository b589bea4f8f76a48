#!/usr/bin/env bash
# The README's second command: build and run every test suite, then the sanitizer builds and
# 60 s of fuzzing (docs/testing.md). Prints the time of each stage.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() {  # NAME COMMAND...
  local name=$1 start=$SECONDS
  shift
  echo "=== test.sh: $name"
  "$@"
  echo "=== test.sh: $name took $((SECONDS - start)) s"
}

stage "build" tools/build.sh build
stage "ctest" ctest --test-dir build --output-on-failure --parallel "$(nproc)"
stage "sanitizers" tools/sanitize.sh all
stage "fuzz" fuzz/run.sh 60
