#!/usr/bin/env bash
# The default search against the flawed recipes: each explored with no
# option but --runs (RUNS from seed 1, each drawing its faults, servers,
# clients, hold, workload and schedule; no shrinking), timed in one
# process. Prints a markdown table: the runs that broke the property the
# recipe is known to break, what the first of them drew, and the median
# time to a first catch: with p the share of runs that broke it, half of
# all campaigns catch it within ceil(ln 2 / -ln(1 - p)) runs, times the
# time a run takes (wall clock). Then the slowest of those medians.
# Usage: scripts/search_figures.sh [BUILD_DIR] [RUNS]   (default: build 2000)
# Exit status: 1 when a flawed recipe was not caught.
set -euo pipefail
build=${1:-build}
runs=${2:-2000}
zksim="$build/tools/zksim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$zksim" list --json >"$out/list.json"
mapfile -t flawed < <(jq -r '.recipes[] | select(.flawed) | .name' "$out/list.json")
echo "| flawed recipe | breaks | caught | first caught, which drew | median runs to first catch | ms a run | median time to first catch |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
status=0
: >"$out/medians"
for r in "${flawed[@]}"; do
  breaks=$(jq -r --arg r "$r" '.recipes[] | select(.name == $r) | .breaks' "$out/list.json")
  start=$(date +%s%N)
  "$zksim" explore --recipe "$r" --runs "$runs" --shrink-runs 0 --out "$out/found" --json >"$out/c.json" || true
  ns=$(($(date +%s%N) - start))
  jq -r --arg r "$r" --arg p "$breaks" --argjson ns "$ns" '
    (.violations | map(select(.property == $p))[0]) as $e
    | ($ns / 1e6 / .runs) as $ms
    | (if $e then $e.runs / .runs else 0 end) as $share
    | (if $share == 0 then null elif $share == 1 then 1 else 0.6931471805599453 / (-(1 - $share | log)) | ceil end) as $median
    | def f($d): (. * pow(10; $d) | round) / pow(10; $d);
      "| \($r) | \($p) | "
      + (if $e then "\($e.runs) of \(.runs) | run \($e.first_run + 1): \($e.drawn)" else "not in \(.runs) | —" end)
      + " | " + (if $median then "\($median)" else "—" end)
      + " | \($ms | f(2)) | "
      + (if $median then "\($median * $ms / 1000 | f(3)) s" else "not caught" end) + " |"' "$out/c.json"
  jq -r --arg p "$breaks" --argjson ns "$ns" '
    (.violations | map(select(.property == $p))[0]) as $e
    | if $e then (($e.runs / .runs) as $s | (if $s == 1 then 1 else 0.6931471805599453 / (-(1 - $s | log)) | ceil end) * $ns / 1e9 / .runs)
      else "inf" end' "$out/c.json" >>"$out/medians"
done
worst=$(sort -g "$out/medians" | tail -1)
if [ "$worst" = inf ]; then status=1; fi
echo
echo "The slowest median time to a first catch: $(printf '%.3f' "$worst" 2>/dev/null || echo "$worst") s."
exit "$status"
