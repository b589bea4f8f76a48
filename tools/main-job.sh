#!/usr/bin/env bash
# The main job on the embedded default example: check it, print every type and the layouts.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
example=examples/explicit_matmul.shard
"$build/tools/shardc/shardc" --check --emit=types "$example"
"$build/tools/shardc/shardc" --check --emit=layout "$example"
