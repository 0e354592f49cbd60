#!/usr/bin/env bash
# Installs what is missing, configures and builds zksim.
# Usage: scripts/build.sh [build-dir] [cmake args...] [--target NAME...]
#   cmake args (-DNAME=VALUE) go to the configure step; --target NAME (repeatable)
#   builds only those targets, and without one everything is built.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
configure=()
targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--target" ]; then
    if [ $# -lt 2 ]; then echo "build.sh: --target needs a name" >&2; exit 2; fi
    targets+=("$2")
    shift 2
  else
    configure+=("$1")
    shift
  fi
done
bash "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja "${configure[@]}" >/dev/null
if [ ${#targets[@]} -eq 0 ]; then
  cmake --build "$build" -j "$(nproc)"
else
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
fi
