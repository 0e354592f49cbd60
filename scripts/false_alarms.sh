#!/usr/bin/env bash
# The false-alarm check (docs/testing.md): every correct recipe explored
# with no option, as a user runs it (each run drawing its faults, servers,
# client libraries, hold, workload and schedule), RUNS runs in all split
# evenly between the recipes (default 3,000,000); then, given MATRIX_RUNS,
# the verdict matrix with that budget per cell (each fault class fixed in
# its column, the rest drawn). Prints one line per recipe and the matrix's
# summary; a violation of any correct recipe is a false alarm (exit 1),
# its shrunk scenario file written to false-alarms/ to replay.
# Usage: scripts/false_alarms.sh [BUILD_DIR] [RUNS] [MATRIX_RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-3000000}
matrix_runs=${3:-0}
jobs=$(nproc)
zksim="$build/tools/zksim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
recipes=$("$zksim" list --json | python3 -c 'import json, sys; print(" ".join(r["name"] for r in json.load(sys.stdin)["recipes"] if not r["flawed"]))')
read -r -a names <<<"$recipes"
per=$(((runs + ${#names[@]} - 1) / ${#names[@]}))
status=0
total=0
for r in "${names[@]}"; do
  start=$(date +%s)
  if "$zksim" explore --recipe "$r" --runs "$per" --jobs "$jobs" --json --out false-alarms >"$out/c.json"; then
    verdict="no violation"
  else
    verdict="VIOLATED: $(python3 -c 'import json, sys; print(", ".join(v["property"] for v in json.load(open(sys.argv[1])).get("violations", [])))' "$out/c.json" 2>/dev/null || echo "explore failed")"
    status=1
  fi
  total=$((total + per))
  echo "$r: $per default runs, $verdict ($(($(date +%s) - start)) s)"
done
echo "correct recipes: $total default runs, $([ "$status" = 0 ] && echo "no false alarm" || echo "FALSE ALARMS: see false-alarms/")"
if [ "$matrix_runs" -gt 0 ]; then
  "$zksim" matrix --recipes "${recipes// /,}" --budget "$matrix_runs" --jobs "$jobs" --out "$out/matrix" | tail -1 || status=1
fi
exit "$status"
