#!/usr/bin/env bash
# The README's first command: install the Debian packages, build everything (with the
# examples and the benchmark programs, which `all` leaves out), run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh build
cmake --build build --target shard_examples shard_bench --parallel "$(nproc)"
tools/main-job.sh build
