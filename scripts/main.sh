#!/usr/bin/env bash
# The main job: installs what is missing, builds, and prints the verdict
# matrix (every recipe x every property, under no faults and each fault
# class). Arguments go on to `zksim matrix` (e.g. --budget 1000, --json).
# Exit status: zksim matrix's (0 every correct recipe holds and every flawed
# one is caught; 1 otherwise; 2 bad input).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" "$root/build" -DBUILD_TESTING=OFF -DZKSIM_BENCHMARKS=OFF
jobs="$(nproc)"
if [ "$jobs" -gt 8 ]; then jobs=8; fi
cd "$root"
exec build/tools/zksim matrix --jobs "$jobs" --out build/failures "$@"
