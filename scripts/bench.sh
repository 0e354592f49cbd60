#!/usr/bin/env bash
# Installs what is missing and builds the benchmark programs the figures
# come from (build/tools/zksim-bench-*; Release, Google Benchmark).
# It builds them only; docs/figures.md gives the command that measures each.
# Usage: scripts/bench.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DZKSIM_BENCHMARKS=ON \
  --target zksim-benchmarks
ls "$root"/build/tools/zksim-bench-*
