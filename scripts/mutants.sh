#!/usr/bin/env bash
# Installs what is missing, builds the mutants of the recipes (Release,
# ZKSIM_MUTANTS=ON) and runs the mutation benchmark: every mutant of
# tests/mutants/mutants.txt hunted by each search strategy on its own with
# the verdict matrix's campaigns (no faults and each fault class; --budget
# runs each, default 300 as the matrix), and the control (the recipes
# unchanged), which must show no violation. Prints a line per mutant and
# strategy, the survivors, and the kill-rate table per strategy: mutants
# killed of those not marked equivalent, the median and largest wall time
# to the kill, and the median runs and shrunk decisions of the kills.
# Usage: scripts/mutants.sh [--budget RUNS] [--jobs N] [--client FLAVOURS]
#   jobs: mutants run at once (default 1, so times are not shared); client: the
#   campaigns' client libraries, as zksim matrix --client takes them (default any, as the matrix)
# Exit status: 0, or 1 when the control showed a violation or a mutant expected killed survived.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
budget=300
jobs=1
client=any
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget="${2:?--budget needs RUNS}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs N}"; shift 2 ;;
    --client) client="${2:?--client needs FLAVOURS}"; shift 2 ;;
    *) echo "mutants.sh: unknown option '$1' (known: --budget RUNS, --jobs N, --client FLAVOURS)" >&2; exit 2 ;;
  esac
done
bash "$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DZKSIM_MUTANTS=ON -DZKSIM_MUTANTS_SAMPLE=1 \
  --target zksim-mutants
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
ids="$(sed -n 's/^mutant \([a-z0-9-]*\).*/\1/p' "$root/tests/mutants/mutants.txt")"
# Each mutant's lines go to a file of its own; its exit status (1: an
# expected kill missing) is judged from the lines below.
printf '%s\n' none $ids | xargs -P "$jobs" -I{} sh -c \
  '"$1/build/tools/mutants/zksim-mutant-$2" --every-strategy --tsv --budget "$3" --client "$5" > "$4/$2.txt" || true' \
  sh "$root" {} "$budget" "$out" "$client"
results="$(cat "$out"/*.txt | grep '^result' || true)"
grep -hv '^result' "$out"/*.txt | grep -v '^  ' || true
echo
# median: the middle of the numbers on stdin (the lower of the two middle ones); "-" for none.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }
status=0
if awk -F'\t' '$2 == "none" && $5 == "killed"' <<<"$results" | grep -q .; then
  echo "CONTROL FAILED: the unchanged recipes showed a violation" >&2
  status=1
fi
counted="$(awk -F'\t' '$2 != "none" && $11 != "equivalent"' <<<"$results")"
n="$(cut -f2 <<<"$counted" | sort -u | grep -c . || true)"
echo "Mutants: $(grep -c . <<<"$ids"), of which $n not marked equivalent; budget $budget runs per campaign"
printf '%-14s %8s %10s %16s %13s %12s %14s\n' strategy killed "kill rate" "median time (s)" "max time (s)" "median runs" "median shrunk"
for s in default random fixed-latency dfs pct any; do
  if [ "$s" = any ]; then
    # A mutant counts once, by its fastest kill.
    kills="$(awk -F'\t' '$5 == "killed"' <<<"$counted" | sort -t$'\t' -k2,2 -k9,9g | awk -F'\t' '!seen[$2]++')"
  else
    kills="$(awk -F'\t' -v s="$s" '$4 == s && $5 == "killed"' <<<"$counted")"
  fi
  k="$(grep -c . <<<"$kills" || true)"
  printf '%-14s %8s %9s%% %16s %13s %12s %14s\n' "$s" "$k/$n" "$(awk -v k="$k" -v n="$n" 'BEGIN { printf "%.1f", n ? 100 * k / n : 0 }')" \
    "$(cut -f9 <<<"$kills" | grep . | median)" "$(cut -f9 <<<"$kills" | grep . | sort -g | tail -1)" \
    "$(cut -f8 <<<"$kills" | grep . | median)" \
    "$(cut -f10 <<<"$kills" | grep . | median)"
done
echo
echo "Survivors (every strategy):"
for id in $ids; do
  if ! awk -F'\t' -v id="$id" '$2 == id && $5 == "killed"' <<<"$results" | grep -q .; then
    expect="$(awk -F'\t' -v id="$id" '$2 == id { print $11; exit }' <<<"$results")"
    echo "  $id ($expect)"
    [ "$expect" = killed ] && status=1
  fi
done
exit "$status"
