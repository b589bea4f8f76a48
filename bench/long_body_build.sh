#!/usr/bin/env bash
# How long the C++ compiler takes on a long generated device body, cut into parts (shardc's
# default, --part-size 100: codegen/body_parts.h) and as one function (--part-size 1000000),
# built the same way in the same run. The body is an unrolled loop of two ops per iteration:
#   for i in 0..N { y = y * 1.0001 + 1.0; }
# Usage (from a build tree that has shardc):
#   bench/long_body_build.sh                        # N = 50 100 200, build dir build
#   BUILD_DIR=build-cg SIZES="100 200 400" bench/long_body_build.sh
# One function of N = 200 (875 lines) takes about a minute at -O2 on a 2-core VM; N = 400
# several minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
sizes=${SIZES:-50 100 200}
cxx=${CXX:-c++}
shardc="$build/tools/shardc/shardc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

milliseconds() {  # the wall time of a command
  local start
  start=$(date +%s%N)
  "$@"
  echo $(( ($(date +%s%N) - start) / 1000000 ))
}

printf '%6s %8s %10s %14s %8s\n' N lines "cut (s)" "one fn (s)" ratio
for n in $sizes; do
  cat > "$work/loop.shard" <<EOF
mesh m = [x: 2];
func f(a: f32[8@x]) -> f32[8@x] on m {
  var y = a;
  for i in 0..$n { y = y * 1.0001 + 1.0; }
  return y;
}
EOF
  declare -A took=()
  for variant in cut one; do
    size=100
    [ "$variant" = one ] && size=1000000
    mkdir -p "$work/$variant"
    "$shardc" "$work/loop.shard" --part-size "$size" -o "$work/$variant"
    took[$variant]=$(milliseconds "$cxx" -std=c++20 -O2 -fopenmp -w -I"$work/$variant" -I"$root/runtime/include" \
      -I"$root/templates" -c "$work/$variant/loop.shard.cpp" -o "$work/$variant/loop.o")
  done
  lines=$(wc -l < "$work/one/loop.shard.cpp")
  awk -v n="$n" -v lines="$lines" -v cut="${took[cut]}" -v one="${took[one]}" \
    'BEGIN { printf "%6s %8s %10.1f %14.1f %8.1f\n", n, lines, cut / 1000, one / 1000, one / cut }'
done
