#!/usr/bin/env bash
# The main job: installs what is missing, builds the zksim program, and
# prints the verdict matrix (every recipe x every property, under no faults
# and each fault class). Arguments go on to `zksim matrix` (e.g. --budget
# 1000, --json); --jobs and --out given there replace this script's
# defaults (min(nproc, 8) workers; build/failures).
# Exit status: zksim matrix's (0 every correct recipe holds and every flawed
# one is caught; 1 otherwise; 2 bad input).
#
# It shares build/ with scripts/test.sh (so CI, which runs both, compiles
# the libraries once) and so states the switches it depends on and builds
# only the program: it leaves BUILD_TESTING and ZKSIM_BENCHMARKS as they
# are, and test.sh and bench.sh set those themselves.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF --target zksim

# Whether the user's arguments set option $1 ("--jobs N" or "--jobs=N").
given() {
  local option="$1" a
  shift
  for a in "$@"; do
    if [ "$a" = "$option" ] || [[ "$a" == "$option="* ]]; then return 0; fi
  done
  return 1
}
defaults=()
if ! given --jobs "$@"; then
  jobs="$(nproc)"
  if [ "$jobs" -gt 8 ]; then jobs=8; fi
  defaults+=(--jobs "$jobs")
fi
if ! given --out "$@"; then defaults+=(--out build/failures); fi
cd "$root"
exec build/tools/zksim matrix "${defaults[@]}" "$@"
