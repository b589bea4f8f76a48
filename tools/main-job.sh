#!/usr/bin/env bash
# The main job on the embedded default example (seed 002's explicit matmul with its reshards):
# its types and layouts, then `shardc run`, which generates C++, builds it against the runtime,
# runs it on 8 device threads and checks every result against the reference evaluator.
# Last, the multi-axis ring shift prints the values the seed prints.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shardc=$build/tools/shardc/shardc
example=examples/explicit_matmul.shard
"$shardc" --check --emit=types "$example"
"$shardc" --check --emit=layout "$example"
"$shardc" run "$example" --repeat 5
"$shardc" run examples/ring_shift.shard --func ring_shift_demo_multi_run --print
