#!/usr/bin/env bash
# The wire decoders' long fuzz run, the benchmark job behind docs/wire.md's
# figure (CI runs the short one, WireFuzz.Smoke): builds decode_fuzzer with
# clang in build/wire-fuzz, seeds it from the captures and from the inputs
# that once failed, and runs it for RUNS executions with no time limit.
# Usage: scripts/fuzz.sh [RUNS]   (default 10000000, about 3 to 6 minutes on 2 cores)
# Exit status: 0 when no input failed; otherwise the fuzzer's, with the
# failing input written to build/wire-fuzz/ (keep it in
# tests/wire/fuzz/regressions/ once fixed). Needs clang and
# libclang-rt-14-dev (scripts/install-deps.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-10000000}"
case "$runs" in
  '' | *[!0-9]*)
    echo "fuzz.sh: RUNS must be a number, not '$runs'" >&2
    exit 2
    ;;
esac
exec bash "$root/tests/wire/fuzz/smoke.sh" "$root" "$root/build/wire-fuzz" "$runs" 0
