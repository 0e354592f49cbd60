#!/usr/bin/env bash
# The scripts in scripts/, as a user runs them, on a model of the project
# (tests/scripts/model: the same switches, built in seconds) with the real
# cmake, ninja and ctest; apt-get and dpkg-query are stubs.
# Usage: scripts_test.sh SOURCE_DIR RULE   (RULE: one of the functions below)
set -euo pipefail
src="$1"
rule="$2"

sandbox="$(mktemp -d)"
trap 'rm -rf "$sandbox"' EXIT
mkdir -p "$sandbox/scripts" "$sandbox/stubs"
cp "$src"/scripts/*.sh "$sandbox/scripts/"
cp -r "$src/tests/scripts/model/." "$sandbox/"
log="$sandbox/stubs.log"
# stub NAME BODY: a command NAME on PATH that logs "NAME ARGS" and runs BODY.
stub() {
  printf '#!/usr/bin/env bash\necho "%s $*" >> %q\n%s\n' "$1" "$log" "$2" > "$sandbox/stubs/$1"
  chmod +x "$sandbox/stubs/$1"
}
stub dpkg-query 'echo "install ok installed"'   # every package installed
stub sudo 'exec "$@"'
export PATH="$sandbox/stubs:$PATH"
unset ZKSIM_MODEL_NO_TESTS

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
# The value the build dir's cache holds for $1.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$sandbox/build/CMakeCache.txt"; }

# The README's two commands, in order, in one clone: the tests run.
test_sh_after_main_sh_runs_the_tests() {
  bash "$sandbox/scripts/main.sh" >/dev/null
  out="$(bash "$sandbox/scripts/test.sh" 2>&1)" || fail "test.sh after main.sh: $out"
  grep -q "tests passed, 0 tests failed out of 1" <<<"$out" || fail "test.sh after main.sh ran no test: $out"
}

# test.sh states every switch the tests depend on, whatever the build dir cached.
test_sh_configures_what_it_needs_whatever_was_cached() {
  cmake -S "$sandbox" -B "$sandbox/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=OFF \
    -DZKSIM_SANITIZE=ON -DZKSIM_BENCHMARKS=OFF -DZKSIM_MUTANTS=OFF >/dev/null
  out="$(bash "$sandbox/scripts/test.sh" 2>&1)" || fail "test.sh: $out"
  grep -q "tests passed, 0 tests failed out of 1" <<<"$out" || fail "test.sh ran no test: $out"
  for want in CMAKE_BUILD_TYPE=Release BUILD_TESTING=ON ZKSIM_SANITIZE=OFF ZKSIM_BENCHMARKS=ON ZKSIM_MUTANTS=ON \
    ZKSIM_MUTANTS_SAMPLE=6; do
    [ "$(cached "${want%%=*}")" = "${want#*=}" ] || fail "test.sh left ${want%%=*}=$(cached "${want%%=*}")"
  done
}

# A test run in which no test ran is a failure, not "No tests were found" and 0.
test_sh_fails_when_no_test_ran() {
  if out="$(ZKSIM_MODEL_NO_TESTS=1 bash "$sandbox/scripts/test.sh" 2>&1)"; then
    fail "test.sh passed with no tests: $out"
  fi
  grep -q "No tests were found" <<<"$out" || fail "test.sh failed for another reason: $out"
}

# The user's --jobs and --out replace main.sh's, in both spellings.
main_sh_arguments_replace_its_defaults() {
  args() { bash "$sandbox/scripts/main.sh" "$@" | sed -n 's/^arg //p' | tr '\n' ' '; }
  local jobs
  jobs="$(nproc)"
  if [ "$jobs" -gt 8 ]; then jobs=8; fi
  [ "$(args)" = "matrix --jobs $jobs --out build/failures " ] || fail "defaults: $(args)"
  [ "$(args --jobs 1)" = "matrix --out build/failures --jobs 1 " ] || fail "--jobs 1: $(args --jobs 1)"
  [ "$(args --out /tmp/x --budget 9)" = "matrix --jobs $jobs --out /tmp/x --budget 9 " ] || fail "--out: $(args --out /tmp/x --budget 9)"
  [ "$(args --jobs=3 --out=d)" = "matrix --jobs=3 --out=d " ] || fail "--jobs=3 --out=d: $(args --jobs=3 --out=d)"
}

# main.sh builds the program only and leaves the switches of the tests and
# benchmarks as they were.
main_sh_leaves_the_test_switches_alone() {
  cmake -S "$sandbox" -B "$sandbox/build" -G Ninja -DBUILD_TESTING=ON -DZKSIM_BENCHMARKS=ON >/dev/null
  bash "$sandbox/scripts/main.sh" >/dev/null
  [ "$(cached BUILD_TESTING)" = ON ] || fail "main.sh set BUILD_TESTING=$(cached BUILD_TESTING)"
  [ "$(cached ZKSIM_BENCHMARKS)" = ON ] || fail "main.sh set ZKSIM_BENCHMARKS=$(cached ZKSIM_BENCHMARKS)"
  [ ! -e "$sandbox/build/tools/zksim-bench-model" ] || fail "main.sh built the benchmarks"
}

# The benchmarks the README quotes are built by scripts/bench.sh.
bench_sh_builds_the_benchmarks() {
  cmake -S "$sandbox" -B "$sandbox/build" -G Ninja -DZKSIM_BENCHMARKS=OFF >/dev/null
  bash "$sandbox/scripts/bench.sh" >/dev/null
  [ -x "$sandbox/build/tools/zksim-bench-model" ] || fail "no benchmark built"
  [ "$(cached CMAKE_BUILD_TYPE)" = Release ] || fail "benchmarks built as $(cached CMAKE_BUILD_TYPE)"
}

# figures.sh refuses an option it does not know, as bad usage (2), before it
# builds or measures anything.
figures_sh_refuses_unknown_options() {
  rc=0
  out="$(bash "$sandbox/scripts/figures.sh" --quick --bogus 2>&1)" || rc=$?
  [ "$rc" = 2 ] || fail "figures.sh --bogus exited $rc: $out"
  grep -q "unknown option '--bogus'" <<<"$out" || fail "figures.sh --bogus said: $out"
  [ ! -e "$sandbox/build" ] || fail "figures.sh built before refusing"
}

# figures.sh refuses --out without a file, as bad usage (2), before it
# builds or measures anything.
figures_sh_refuses_out_without_a_file() {
  rc=0
  out="$(bash "$sandbox/scripts/figures.sh" --quick --out 2>&1)" || rc=$?
  [ "$rc" = 2 ] || fail "figures.sh --out exited $rc: $out"
  grep -q -- "--out needs a file" <<<"$out" || fail "figures.sh --out said: $out"
  [ ! -e "$sandbox/build" ] || fail "figures.sh built before refusing"
}

# mutants.sh refuses an option it does not know, as bad usage (2), before it
# builds or runs anything.
mutants_sh_refuses_unknown_options() {
  rc=0
  out="$(bash "$sandbox/scripts/mutants.sh" --bogus 2>&1)" || rc=$?
  [ "$rc" = 2 ] || fail "mutants.sh --bogus exited $rc: $out"
  grep -q "unknown option '--bogus'" <<<"$out" || fail "mutants.sh --bogus said: $out"
  [ ! -e "$sandbox/build" ] || fail "mutants.sh built before refusing"
}

# load_check.sh runs the wall-clock labels again and again and counts each run.
load_check_sh_counts_each_run() {
  out="$(ZKSIM_MODEL_WIRE=1 bash "$sandbox/scripts/load_check.sh" --runs 2 --hogs 1 --jobs 1 2>&1)" ||
    fail "load_check.sh: $out"
  grep -q "^run 1/2: 1 passed, 0 failed in" <<<"$out" || fail "no count of run 1: $out"
  grep -q "^run 2/2: 1 passed, 0 failed in" <<<"$out" || fail "no count of run 2: $out"
  grep -q "^load check: 2 of 2 runs passed beside 1 CPU hogs (ctest -j 1)$" <<<"$out" || fail "no summary: $out"
  grep -q "^2 passed, 0 failed$" <<<"$out" || fail "no closing line: $out"
}

# One failed run fails the load check, and names the test.
load_check_sh_fails_when_a_run_fails() {
  rc=0
  out="$(ZKSIM_MODEL_WIRE=1 ZKSIM_MODEL_WIRE_FAILS=1 bash "$sandbox/scripts/load_check.sh" --runs 1 --hogs 0 2>&1)" ||
    rc=$?
  [ "$rc" = 1 ] || fail "load_check.sh with a failing test exited $rc: $out"
  grep -q "model_wire_test (Failed)" <<<"$out" || fail "the failed test not named: $out"
  grep -q "^load check: 0 of 1 runs passed" <<<"$out" || fail "no summary: $out"
}

# load_check.sh refuses an option it does not know, as bad usage (2),
# before it builds or runs anything.
load_check_sh_refuses_unknown_options() {
  rc=0
  out="$(bash "$sandbox/scripts/load_check.sh" --bogus 2>&1)" || rc=$?
  [ "$rc" = 2 ] || fail "load_check.sh --bogus exited $rc: $out"
  grep -q "unknown option '--bogus'" <<<"$out" || fail "load_check.sh --bogus said: $out"
  [ ! -e "$sandbox/build" ] || fail "load_check.sh built before refusing"
}

# install-deps.sh waits while another apt-get holds apt's locks.
install_deps_waits_for_apt_locks() {
  stub dpkg-query 'exit 1'   # nothing installed
  stub sleep ''
  # update finds the lists lock held twice, then gets it.
  stub apt-get "
    if [[ \" \$* \" == *' update '* ]]; then
      n=\$(grep -c '^apt-get .*update' $(printf %q "$log"))
      if [ \"\$n\" -le 2 ]; then
        echo 'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)' >&2
        exit 100
      fi
    fi"
  bash "$sandbox/scripts/install-deps.sh" 2>/dev/null || fail "install-deps.sh gave up: $(cat "$log")"
  [ "$(grep -c '^apt-get .*update' "$log")" = 3 ] || fail "update not retried: $(cat "$log")"
  [ "$(grep -c '^sleep ' "$log")" = 2 ] || fail "no wait between tries: $(cat "$log")"
  grep -q '^apt-get -o DPkg::Lock::Timeout=600 install ' "$log" || fail "install does not wait: $(cat "$log")"
  # Any other failure of update is not retried.
  : > "$log"
  stub apt-get "echo 'E: The repository is broken' >&2; exit 100"
  if bash "$sandbox/scripts/install-deps.sh" 2>/dev/null; then fail "install-deps.sh passed a failed update"; fi
  [ "$(grep -c '^apt-get ' "$log")" = 1 ] || fail "a failure other than a lock was retried: $(cat "$log")"
}

"$rule"
echo "ok: $rule"
