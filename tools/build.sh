#!/usr/bin/env bash
# Configures (once) and builds one build tree. Usage: tools/build.sh DIR [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
if [[ ! -f $dir/CMakeCache.txt ]]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$dir" --parallel "$(nproc)"
