#!/usr/bin/env bash
# The client-flavour figures of the README: for each flawed recipe that a
# flavour exposes, 20 campaigns (seeds 1, 1001, 2001, ...) under its own
# nemesis and flavour of 300 runs each: the median number of runs to the
# first catch, and the median shrunk size. Usage: scripts/flavour_figures.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
zksim="$build/tools/zksim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
for recipe in flawed/stale-node-election flawed/node-events-only-lock flawed/session-event-barrier \
              flawed/unsynchronized-wait-lock; do
  : >"$out/runs"; : >"$out/size"
  for i in $(seq 0 19); do
    "$zksim" explore --recipe "$recipe" --seed $((i * 1000 + 1)) --runs 300 \
      --out "$out/f$i" --json >"$out/c.json" 2>/dev/null || true
    python3 - "$out/c.json" "$recipe" >>"$out/line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
breaks = {r: p for r, p in [("flawed/stale-node-election", "one-leader"),
                            ("flawed/node-events-only-lock", "liveness"),
                            ("flawed/session-event-barrier", "barrier-wait"),
                            ("flawed/unsynchronized-wait-lock", "liveness")]}[sys.argv[2]]
hit = [v for v in d.get("violations", []) if v["property"] == breaks]
print(hit[0]["first_run"] + 1 if hit else -1, hit[0]["shrunk_decisions"] if hit else -1)
PY
    read -r runs size < <(tail -1 "$out/line")
    echo "$runs" >>"$out/runs"; echo "$size" >>"$out/size"
  done
  echo "$recipe: $(median <"$out/runs") runs to the first catch; shrunk to $(median <"$out/size") decisions (medians of 20; -1: not caught)"
done
