#!/usr/bin/env bash
# Builds decode_fuzzer with clang (its own build directory) and runs it for
# a bounded number of executions, seeded from the stored captures and the
# inputs that once failed (regressions/).
# Usage: smoke.sh SOURCE_DIR BUILD_DIR [RUNS [SECONDS]]
#   RUNS defaults to 200000; SECONDS, the most it may take, to 60 (0: no limit).
set -euo pipefail
src="$1"
build="$2"
runs="${3:-200000}"
seconds="${4:-60}"
cmake -S "$src/tests/wire/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j1 >/dev/null
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
/usr/bin/python3 "$src/tests/wire/fuzz/make_corpus.py" "$src/tests/wire/data" "$corpus"
"$build/decode_fuzzer" -runs="$runs" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$build/" "$corpus" "$src/tests/wire/fuzz/regressions"
