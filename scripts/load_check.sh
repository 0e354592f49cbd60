#!/usr/bin/env bash
# The tests that wait on the wall clock, run again and again on a loaded
# machine: builds what they need, starts CPU-bound hogs, runs the labels
# below RUNS times, prints each run's pass and fail counts and a summary
# line, and exits 1 if any run had a failure. A benchmark, not a CI step
# (five runs take about half an hour on 2 cores).
#
# Usage: scripts/load_check.sh [--build DIR] [--runs N] [--hogs N] [--jobs N]
#   --build DIR  build directory (default build; configured as scripts/test.sh does)
#   --runs N     runs of the labels (default 5)
#   --hogs N     CPU-bound processes beside them (default 2)
#   --jobs N     tests run in parallel (ctest -j, default the machine's cores)
# A failed run's output stays in DIR/load-check/run-N.log.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
runs=5
hogs=2
jobs="$(nproc)"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) echo "load_check.sh: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
for n in "$runs" "$hogs" "$jobs"; do
  case "$n" in ''|*[!0-9]*) echo "load_check.sh: not a number: $n" >&2; exit 2 ;; esac
done

# Every label whose tests wait on the wall clock: zksim serve and the real
# clients on it (wire, its fuzzer aside: that one only burns CPU), Debian's
# ZooKeeper (real, real-server, conformance, ensemble-real), redis-server
# and etcd (lease-real).
labels='^(wire|real|real-server|conformance|ensemble-real|lease-real)$'
# The programs those labels run; the ones whose libraries or servers are
# missing are not targets, and are left out.
wanted=(zksim wire_check_history wire_codec_test wire_frontend_test wire_serve_test wire_robustness_test
        wire_control_http_test wire_four_letter_real_test conformance_tree_test conformance_watch_session_test
        real_client_test real_recipes_test ensemble_real_test redis_real_test etcd_real_test lease_real_test)
bash "$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DBUILD_TESTING=ON \
  --target zksim
known="$(cmake --build "$build" --target help 2>/dev/null | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p')"
targets=()
for t in "${wanted[@]}"; do
  if grep -qx "$t" <<<"$known"; then targets+=("$t"); fi
done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$hogs"); do
  sh -c 'while :; do :; done' &
  hog_pids+=($!)
done

logs="$build/load-check"
mkdir -p "$logs"
failed_runs=0
total_passed=0
total_failed=0
for run in $(seq "$runs"); do
  log="$logs/run-$run.log"
  start=$(date +%s)
  set +e
  ctest --test-dir "$build" -L "$labels" -LE fuzz -j "$jobs" --no-tests=error --output-on-failure >"$log" 2>&1
  status=$?
  set -e
  seconds=$(( $(date +%s) - start ))
  # ctest's summary: "97% tests passed, 1 tests failed out of 40".
  summary="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)"
  if [ -z "$summary" ]; then
    echo "run $run/$runs: ctest printed no summary (exit $status); see $log"
    failed_runs=$((failed_runs + 1))
    continue
  fi
  failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
  all=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$summary")
  passed=$((all - failed))
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$status" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "run $run/$runs: $passed passed, $failed failed in ${seconds} s (load average $load)"
    rm -f "$log"
  else
    failed_runs=$((failed_runs + 1))
    echo "run $run/$runs: $passed passed, $failed failed in ${seconds} s (load average $load); see $log:"
    sed -n '/The following tests FAILED/,$p' "$log" | grep -E '^\s+[0-9]+ - ' || true
  fi
done
echo "load check: $((runs - failed_runs)) of $runs runs passed beside $hogs CPU hogs (ctest -j $jobs)"
echo "$total_passed passed, $total_failed failed"
[ "$failed_runs" -eq 0 ]
