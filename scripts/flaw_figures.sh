#!/usr/bin/env bash
# Time to catch flawed recipes: for each RECIPE, 20 campaigns (seeds 1,
# 1001, 2001, ...) of 300 runs each under its own nemesis, flavour and
# ensemble (`zksim list --json`: exposed_by): the median number of runs to
# the first catch of the property it breaks and the median shrunk size;
# then one campaign of 1,000 runs without shrinking for the runs per
# second, which turn runs into time.
# Usage: scripts/flaw_figures.sh [BUILD_DIR] RECIPE...
set -euo pipefail
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1; shift; fi
zksim="$build/tools/zksim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
"$zksim" list --json >"$out/list.json"
for recipe in "$@"; do
  breaks=$(python3 -c 'import json,sys; print([r["breaks"] for r in json.load(open(sys.argv[1]))["recipes"] if r["name"] == sys.argv[2]][0])' "$out/list.json" "$recipe")
  : >"$out/runs"; : >"$out/size"
  for i in $(seq 0 19); do
    "$zksim" explore --recipe "$recipe" --seed $((i * 1000 + 1)) --runs 300 \
      --out "$out/f$i" --json >"$out/c.json" 2>/dev/null || true
    python3 - "$out/c.json" "$breaks" >>"$out/line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hit = [v for v in d.get("violations", []) if v["property"] == sys.argv[2]]
print(hit[0]["first_run"] + 1 if hit else -1, hit[0]["shrunk_decisions"] if hit else -1)
PY
    read -r runs size < <(tail -1 "$out/line")
    echo "$runs" >>"$out/runs"; echo "$size" >>"$out/size"
  done
  start=$(date +%s.%N)
  "$zksim" explore --recipe "$recipe" --runs 1000 --shrink-runs 0 --out "$out/rate" >/dev/null 2>&1 || true
  rate=$(python3 -c 'import sys; print(round(1000 / (float(sys.argv[2]) - float(sys.argv[1]))))' "$start" "$(date +%s.%N)")
  echo "$recipe ($breaks): $(median <"$out/runs") runs to the first catch; shrunk to $(median <"$out/size") decisions (medians of 20; -1: not caught); $rate runs/s"
done
