#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demonstration.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" "$root/build" -DBUILD_TESTING=OFF -DZKSIM_BENCHMARKS=OFF
"$root/build/tools/zksim-demo"
