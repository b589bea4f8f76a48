#!/usr/bin/env bash
# shardc run --keep leaves a directory that rebuilds (build.sh, the driver's source) and runs
# without shardc. Usage: shardc_run_keep.sh SHARDC FILE.shard FUNCTION; prints PASS.
set -u
shardc=$1 file=$2 function=$3
out=$("$shardc" run "$file" --repeat 1 --keep --func "$function") || { echo "$out"; exit 1; }
dir=$(printf '%s\n' "$out" | sed -n 's/^generated code and driver kept in \([^ ]*\) .*/\1/p')
[[ -n $dir && -d $dir ]] || { echo "no kept directory in: $out"; exit 1; }
trap 'rm -rf "$dir"' EXIT
rm "$dir/driver" "$dir/out.txt"
sh "$dir/build.sh" && "$dir/driver" "$dir" "$function" 1 && grep -q '^time_ms ' "$dir/out.txt" && echo PASS
