#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite.
# Usage: scripts/test.sh [--sanitize]   (--sanitize: ASan + UBSan, Debug, own build dir)
#
# Every switch the tests depend on is given here, not taken from a cache
# another script (main.sh, bench.sh) or a person left in the build dir; and
# a run in which no test ran fails (ctest alone says "No tests were found"
# and exits 0).
set -euo pipefail
exclude=()
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--sanitize" ]; then
  build="$root/build-sanitize"
  # -g1: line tables only, enough for the sanitizers' reports to name file
  # and line, and a sixth quicker to compile than -g (measured).
  bash "$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DZKSIM_SANITIZE=ON \
    -DBUILD_TESTING=ON -DZKSIM_BENCHMARKS=OFF -DZKSIM_MUTANTS=OFF
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Release pass only: shrinking the flawed recipes' counterexamples takes
  # many minutes under ASan and runs no code the other tests do not; the
  # scripts and the installed package test shell scripts and CMake, and
  # build their own copies of the code; the documents' commands (label docs)
  # test documents and run only what other tests run; the browser tests
  # test the timeline page's script in Chromium; the memory tests measure
  # peak memory, which ASan's quarantine of freed memory would swamp; the
  # bug bank's sample measures how soon the search catches each bug, a
  # campaign's length, not a code path.
  exclude=(-LE 'shrink|scripts|install|docs|browser|memory|bug-bank')
else
  build="$root/build"
  # Benchmarks on: they are built (not run) so that CI notices when they break.
  # Mutants on, a sample of them (every sixth: each is a compile and a link
  # of its own): label mutants hunts each with a short budget (Release only;
  # the sanitizers would add nothing but time). scripts/mutants.sh builds
  # and hunts them all.
  bash "$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DBUILD_TESTING=ON \
    -DZKSIM_BENCHMARKS=ON -DZKSIM_MUTANTS=ON -DZKSIM_MUTANTS_SAMPLE=6
fi
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)" "${exclude[@]}"
