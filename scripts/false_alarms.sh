#!/usr/bin/env bash
# The false-alarm check (docs/testing.md): every correct recipe under no
# faults and under each fault class, 12,500 seeded runs each (100,000 runs
# per fault class), three times: as the matrix runs them (each run drawing
# its clients' libraries), with C clients only, and with c, curator and
# kazoo clients mixed in varied workloads. Prints each matrix's summary
# line; a violation of any correct recipe is a false alarm (exit 1).
# Usage: scripts/false_alarms.sh [BUILD_DIR] [RUNS_PER_CAMPAIGN]
set -euo pipefail
build=${1:-build}
runs=${2:-12500}
zksim="$build/tools/zksim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
recipes=$("$zksim" list --json | python3 -c 'import json, sys; print(",".join(r["name"] for r in json.load(sys.stdin)["recipes"] if not r["flawed"]))')
status=0
for config in "drawn:--client any" "c:--client c" "mixed:--client c,curator,kazoo --varied"; do
  name=${config%%:*}
  read -r -a opts <<<"${config#*:}"
  echo "== $name clients (${opts[*]})"
  "$zksim" matrix --recipes "$recipes" --budget "$runs" --jobs 2 "${opts[@]}" --out "$out/$name" | tail -1 || status=1
done
exit "$status"
