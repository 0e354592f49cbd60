#!/usr/bin/env bash
# What zksim's default search finds of the bug bank (tools/bug_bank/: real
# recipe bugs of ZooKeeper, Curator and kazoo, one flawed recipe each).
# For every flawed recipe of the bank it runs
#   zksim explore --plugin <bank> --recipe <bug> --runs N --json [EXTRA]
# with no other option (EXTRA: what --extra gives, for comparisons), in a
# scratch directory (the scenario files go to its failures/), and reports:
# whether the run caught the property the bug breaks, another one, or
# nothing; the runs to the first catch (the JSON's first_run + 1: the same
# on every machine); and the wall time to it, measured by running the
# campaign again with --runs set to that count (shrinking included: the
# time a user waits for the finding). Then the totals, as a markdown table.
# Not part of CI (minutes per bug); the `bug-bank` ctest label samples it.
#
# Usage: scripts/bug_bank.sh [--build DIR] [--runs N] [--extra "OPTIONS"]
#                            [--only REGEX] [--markdown FILE]
#   --build DIR     where zksim and the bank were built (default: build)
#   --runs N        runs per bug (default 1000)
#   --extra OPTS    options added to every explore (e.g. "--client any --swarm")
#   --only REGEX    only the bugs whose name matches (grep -E)
#   --markdown FILE also write the table to FILE
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
runs=1000
extra=""
only=""
markdown=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --extra) extra="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --markdown) markdown="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bug_bank.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "bug_bank.sh: --runs needs a positive number, not '$runs'" >&2; exit 2 ;; esac
zksim="$build/tools/zksim"
bank="$build/tools/bug_bank/libzksim_bug_bank.so"
for f in "$zksim" "$bank"; do
  if [ ! -e "$f" ]; then
    echo "bug_bank.sh: $f is missing; build it: cmake --build $build --target zksim zksim_bug_bank" >&2
    exit 2
  fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
read -r -a extra_args <<<"$extra"

"$zksim" list --plugin "$bank" --json >"$scratch/list.json"
# name <TAB> property it breaks, for the bank's flawed recipes.
python3 - "$scratch/list.json" "$only" >"$scratch/bugs" <<'PY'
import json, re, sys
only = sys.argv[2]
for r in json.load(open(sys.argv[1]))["recipes"]:
    if r["name"].startswith("bank/") and r["flawed"] and (not only or re.search(only, r["name"])):
        print(r["name"], r["breaks"], sep="\t")
PY
if [ ! -s "$scratch/bugs" ]; then echo "bug_bank.sh: no bug matches '$only'" >&2; exit 2; fi

# explore NAME RUNS OUT: one campaign in its own scratch directory; prints
# its wall time in seconds.
explore() {
  local dir="$scratch/run.$RANDOM$RANDOM"
  mkdir -p "$dir"
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && "$zksim" explore --plugin "$bank" --recipe "$1" --runs "$2" --json "${extra_args[@]}" >"$3" 2>/dev/null) || true
  end=$(date +%s.%N)
  rm -rf "$dir"
  python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' "$start" "$end"
}

: >"$scratch/rows"
while IFS=$'\t' read -r name breaks; do
  echo "bug_bank.sh: $name ..." >&2
  total=$(explore "$name" "$runs" "$scratch/c.json")
  # verdict <TAB> runs to the first catch <TAB> the properties found, first first
  IFS=$'\t' read -r verdict first found < <(python3 - "$scratch/c.json" "$breaks" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("error", "-", "(no report)", sep="\t"); sys.exit()
vs = sorted(d.get("violations", []), key=lambda v: (v["first_run"], v["property"]))
hit = [v for v in vs if v["property"] == sys.argv[2]]
found = ", ".join(f'{v["property"]}@{v["first_run"] + 1}' for v in vs) or "-"
if hit:
    print("expected", hit[0]["first_run"] + 1, found, sep="\t")
elif vs:
    print("other", vs[0]["first_run"] + 1, found, sep="\t")
else:
    print("no", "-", found, sep="\t")
PY
)
  wall="-"
  if [ "$first" != "-" ]; then wall=$(explore "$name" "$first" "$scratch/w.json"); fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$breaks" "$verdict" "$first" "$wall" "$total" "$found" >>"$scratch/rows"
done <"$scratch/bugs"

python3 - "$scratch/rows" "$runs" "$extra" >"$scratch/table.md" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
runs, extra = sys.argv[2], sys.argv[3]
options = f"--runs {runs}" + (f" {extra}" if extra else "")
print(f"zksim explore --plugin <bank> --recipe <bug> {options} --json\n")
print("| bug | breaks | caught | runs to first catch | wall s to first catch | wall s, all runs | found (property@runs) |")
print("|---|---|---|---:|---:|---:|---|")
for name, breaks, verdict, first, wall, total, found in rows:
    caught = {"expected": "yes", "other": "other only", "no": "no", "error": "error"}[verdict]
    print(f"| {name} | {breaks} | {caught} | {first} | {wall} | {total} | {found} |")
expected = sum(r[2] == "expected" for r in rows)
other = sum(r[2] == "other" for r in rows)
print(f"\nFound {expected} of {len(rows)} by their own property ({options}); "
      f"{other} more by another property only; {len(rows) - expected - other} not at all.")
PY
cat "$scratch/table.md"
if [ -n "$markdown" ]; then cp "$scratch/table.md" "$markdown"; fi
