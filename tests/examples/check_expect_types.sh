#!/usr/bin/env bash
# Checks one example port against its `// expect-type: FUNC.NAME TYPE` lines: each must appear
# as a `FUNC.NAME: TYPE` line of `shardc --emit=types` (examples/README.md describes the format).
# Usage: check_expect_types.sh SHARDC FILE.shard
set -euo pipefail
shardc=$1 file=$2
types=$("$shardc" --emit=types "$file")
expected=$(sed -n 's|^[[:space:]]*// expect-type: \([^ ]*\) \(.*\)$|\1: \2|p' "$file")
if [[ -z $expected ]]; then
  echo "$file: no expect-type lines" >&2
  exit 1
fi
missing=0
while IFS= read -r line; do
  if ! grep -Fxq -- "$line" <<<"$types"; then
    name=${line%%:*}
    echo "$file: expected '$line', shardc printed: $(grep -F -- "$name:" <<<"$types" || echo nothing)" >&2
    missing=1
  fi
done <<<"$expected"
exit $missing
