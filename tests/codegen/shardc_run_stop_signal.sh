#!/usr/bin/env bash
# `shardc run` stopped by SIGTERM while its driver runs (a cancelled CI job, `kill`): it exits
# with 128 + 15, removes its directory, and leaves no driver running (each step runs in a
# process group of its own, which shardc passes the signal on to).
# Usage: shardc_run_stop_signal.sh SHARDC FILE.shard
set -euo pipefail
shardc=$1
program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "PID COMMAND LINE" of each process whose command line names the run's directory (no pgrep:
# procps may be missing).
running_in_work() {
  local f line
  for f in /proc/[0-9]*/cmdline; do
    line=$({ tr '\0' ' ' <"$f"; } 2>/dev/null) || continue
    [[ $line == *"$work/shardc-run"* ]] && echo "$(basename "$(dirname "$f")") $line"
  done
  return 0
}

TMPDIR=$work "$shardc" run --repeat 1000000 "$program" >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do  # up to 120 s for the build, until the driver runs
  running_in_work | grep -q '/driver ' && break
  sleep 0.1
done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
sleep 0.5
cat "$work/log"
[[ $status -eq 143 ]] || { echo "FAIL: exit status $status, expected 143"; exit 1; }
left=$(running_in_work)
[[ -z $left ]] || { echo "FAIL: still running: $left"; exit 1; }
if compgen -G "$work/shardc-run-*" >/dev/null; then echo "FAIL: $work/shardc-run-* was not removed"; exit 1; fi
grep -q 'stopped by a signal' "$work/log" || { echo "FAIL: no 'stopped by a signal' line"; exit 1; }
echo "PASS"
