#!/usr/bin/env bash
# Regenerates the figures of the README's "Figures" section. Builds what
# they come from (scripts/bench.sh, the zksim program, the test programs it
# runs), runs every benchmark and command the section quotes, and prints the
# figures as markdown tables on stdout, each under the command it comes
# from; builds and the benchmarks' own consoles go to stderr.
# Usage: scripts/figures.sh [--quick]
#   --quick  one repetition of each benchmark instead of 3 (5 for the
#            world), and the rapidcheck shrink test and the real-server
#            and conformance suites (about 45, 15 and 30 s) left out: for
#            a look, not for the README.
# Exit status: 0 when every figure was measured; 1 when a program failed
# (its figure then reads "failed" or "not measured"); 2 bad usage.
#
# Benchmark figures vary with what else the machine runs: CPU time is given
# where the benchmark measures work (it counts this process only), wall
# clock where it measures waiting (the real server), and the load average
# before and after. Catch counts and shrunk sizes are deterministic.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"

quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "figures.sh: unknown option '$a' (see --help)" >&2
      exit 2
      ;;
  esac
done
reps=3
world_reps=5
if [ "$quick" = 1 ]; then
  reps=1
  world_reps=1
fi

bash "$root/scripts/bench.sh" >&2
bash "$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DZKSIM_BENCHMARKS=ON \
  -DBUILD_TESTING=ON --target zksim --target scenarios_flawed_properties_test \
  --target scenarios_probes_exploration_test --target real_recipes_test --target conformance_tree_test \
  --target conformance_watch_session_test >&2

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
cd "$root"

# Number formats, and the one entry per benchmark the tables read: the
# median of the repetitions, or the only run when there is one.
jq_defs='
def fixed($d): (. * pow(10; $d) | round | tostring) as $s
  | if $d == 0 then $s
    else ((("0" * ($d + 1 - ($s | length))) // "") + $s) | .[0:length - $d] + "." + .[length - $d:] end;
def commas: (round | tostring) as $s | ($s | length) as $l
  | [range(0; $l) as $i | (if $i > 0 and (($l - $i) % 3 == 0) then "," else "" end) + $s[$i:$i + 1]] | join("");
def sig3: if . >= 100 then fixed(0) elif . >= 10 then fixed(1) else fixed(2) end;
def rate: if . >= 1e6 then (. / 1e6 | fixed(2)) + " M" elif . >= 1e4 then (. / 1e3 | fixed(0)) + " k"
  else commas end;
def chosen: .benchmarks[] | select(.run_type == "iteration" or .aggregate_name == "median");
def named($prefix): first(chosen | select(.run_name | startswith($prefix))) // null;
def measured(f): if . == null then "not measured"
  elif .error_occurred then "failed: " + .error_message else f end;
'
# report FILTER [jq options and files...]
report() { jq -r "$jq_defs $1" "${@:2}"; }
now_ns() { date +%s%N; }
seconds_since() { echo "$(( ($(now_ns) - $1) / 1000000 ))" | awk '{ printf "%.1f", $1 / 1000 }'; }

# bench NAME ARGS...: build/tools/zksim-bench-NAME, its report in $work/NAME.json.
bench() {
  local name="$1"
  shift
  echo "figures.sh: zksim-bench-$name $*" >&2
  if ! "build/tools/zksim-bench-$name" "$@" --benchmark_out="$work/$name.json" --benchmark_out_format=json >&2; then
    echo "figures.sh: zksim-bench-$name failed" >&2
    status=1
  fi
  if [ ! -s "$work/$name.json" ]; then echo '{"benchmarks": []}' > "$work/$name.json"; fi
  # A benchmark that skipped with an error (the real server did not start).
  if ! jq -e 'all(.benchmarks[]; .error_occurred != true)' "$work/$name.json" >/dev/null; then status=1; fi
}
aggregates=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true)
if [ "$reps" = 1 ]; then aggregates=(); fi
world_aggregates=(--benchmark_repetitions="$world_reps" --benchmark_report_aggregates_only=true)
if [ "$world_reps" = 1 ]; then world_aggregates=(); fi
median_of() { if [ "$1" = 1 ]; then echo "one run"; else echo "median of $1 repetitions"; fi; }
# The arguments as they follow a command in the text: " A B", or nothing.
args_text() { if [ $# -gt 0 ]; then printf ' %s' "$@"; fi; }

# What was measured: taken before the runs, which take minutes.
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit with local changes"; fi
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(now_ns)"

bench tree "${aggregates[@]}"
bench world "${world_aggregates[@]}"
bench harness "${aggregates[@]}"
bench probes "${aggregates[@]}"
bench side-by-side "${aggregates[@]}"

jobs="$(nproc)"
if [ "$jobs" -gt 8 ]; then jobs=8; fi
echo "figures.sh: zksim matrix --jobs $jobs --json" >&2
t="$(now_ns)"
matrix_rc=0
build/tools/zksim matrix --jobs "$jobs" --out "$work/matrix" --json > "$work/matrix.json" || matrix_rc=$?
matrix_s="$(seconds_since "$t")"
if [ "$matrix_rc" != 0 ]; then status=1; fi

# Each flawed recipe explored as the README's example does: 200 runs from
# seed 1, its own nemesis, shrunk with up to 2,000 runs.
flawed=()
mapfile -t flawed < <(build/tools/zksim list --json | jq -r '.recipes[] | select(.flawed) | .name')
for r in "${flawed[@]}"; do
  echo "figures.sh: zksim explore --recipe $r --json" >&2
  rc=0
  build/tools/zksim explore --recipe "$r" --out "$work/explore" --json > "$work/explore.${r//\//-}.json" || rc=$?
  if [ "$rc" != 1 ]; then status=1; fi   # 1: a violation found, as it must be
done

rapidcheck_json="$work/rapidcheck.json"
if [ "$quick" = 0 ]; then
  echo "figures.sh: scenarios_flawed_properties_test" >&2
  build/tests/scenarios_flawed_properties_test --gtest_output="json:$rapidcheck_json" >&2 || status=1
fi
if [ ! -s "$rapidcheck_json" ]; then echo '{"testsuites": []}' > "$rapidcheck_json"; fi

# The test suites whose run time the README gives: "LABEL N s" lines.
suites=(probes)
if [ "$quick" = 0 ]; then suites+=(real-server conformance); fi
for label in "${suites[@]}"; do
  echo "figures.sh: ctest -L $label" >&2
  t="$(now_ns)"
  rc=0
  ctest --test-dir "$build" -L "$label" --no-tests=error >&2 || rc=$?
  if [ "$rc" = 0 ]; then echo "$label $(seconds_since "$t") s"; else echo "$label FAILED"; status=1; fi
done > "$work/suites.txt"

total_s="$(seconds_since "$started")"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- the tables
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
mem_gb="$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
compiler="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
cat <<EOF
Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/figures.sh$([ "$quick" = 1 ] && echo " --quick")\` ($total_s s after the build) at commit $commit:
$cpu, $(nproc) CPUs, $mem_gb GB, $(. /etc/os-release && echo "$PRETTY_NAME"), $("$compiler" --version | head -1);
Release build. Load average (1, 5, 15 min) before: $load_before; after: $load_after.

EOF

cat <<EOF
Server op mix through \`Server::apply\`, CPU time, $(median_of "$reps")
(\`build/tools/zksim-bench-tree$(args_text "${aggregates[@]}")\`):

| background | ops/s | ns/op |
| --- | --- | --- |
EOF
report '
def count($n; $what): if $n >= 1000000 then "\($n / 1000000 | fixed(0)) million \($what)"
  elif $n >= 1000 and $n % 1000 == 0 and $n < 100000 then "\($n / 1000 | fixed(0)) thousand \($what)"
  else "\($n | commas) \($what)" end;
chosen | select(.run_name | startswith("BM_OpMix/"))
| (.run_name | capture("nodes:(?<n>[0-9]+)/idle_sessions:(?<s>[0-9]+)/watches:(?<w>[0-9]+)")
   | map_values(tonumber)) as $bg
| ([count($bg.n; "nodes")]
   + (if $bg.s > 0 then [count($bg.s; "idle sessions")] else [] end)
   + (if $bg.w > 0 then [count($bg.w; "watches on other paths")] else [] end) | join(" + ")) as $what
| "| \($what) | \(measured(.items_per_second | rate)) | \(measured(1e9 / .items_per_second | sig3)) |"' \
  "$work/tree.json"
echo
report '
named("BM_Memory/") | measured(
  "Memory, \(.run_name | capture("BM_Memory/(?<n>[0-9]+)").n | tonumber | commas) znodes with 16-byte data "
  + "(`BM_Memory`): \(.rss_MB | fixed(0)) MB resident "
  + "(\(.rss_bytes_per_znode | fixed(0)) bytes per znode), heap in use \(.heap_MB | fixed(0)) MB.")' \
  "$work/tree.json"
echo

cat <<EOF
End-to-end simulated client operations (client library, network, server and
back), the other sessions connected and idle, CPU time, $(median_of "$world_reps")
(\`build/tools/zksim-bench-world$(args_text "${world_aggregates[@]}")\`):

| sessions | ops/s | ns/op |
| --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_ClientOps/"))
  | "| \(.run_name | ltrimstr("BM_ClientOps/") | tonumber | commas) | \(measured(.items_per_second | rate)) | \(measured(1e9 / .items_per_second | sig3)) |"' \
  "$work/world.json"
echo

cat <<EOF
The same operations on an ensemble, the client on the last server (a
follower, but on one server), CPU time (\`BM_ClientOpsOnServers\`, same command):

| servers | ops/s | ns/op |
| --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_ClientOpsOnServers/"))
  | "| \(.run_name | capture("servers:(?<n>[0-9]+)").n) | \(measured(.items_per_second | rate)) | \(measured(1e9 / .items_per_second | sig3)) |"' \
  "$work/world.json"
echo

cat <<EOF
The harness, CPU time, $(median_of "$reps") (\`build/tools/zksim-bench-harness$(args_text "${aggregates[@]}")\`):

EOF
report 'named("BM_LockScenario") | measured(
  "Complete lock scenarios (5 clients x 10 acquisitions, every checker on): \(.items_per_second | commas) per second, "
  + "\(.cpu_time | sig3) µs CPU each.")' "$work/harness.json"
echo

cat <<EOF
The same scenario (C clients) on an ensemble (\`BM_LockScenarioOnServers\`, same command):

| servers | scenarios/s | µs CPU each |
| --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_LockScenarioOnServers/"))
  | "| \(.run_name | capture("servers:(?<n>[0-9]+)").n) | \(measured(.items_per_second | commas)) | \(measured(.cpu_time | sig3)) |"' \
  "$work/harness.json"
echo

cat <<EOF
Each flawed recipe against the property it breaks. *Caught in run*: the
first violating run of \`build/tools/zksim explore --recipe NAME --json\`
(200 runs from seed 1, under the recipe's own nemesis). *Time to catch*:
\`zksim-bench-harness\`'s \`BM_TimeToCatch\`, the median of 20 campaigns of
fresh seeds (wall clock, so it grows with the machine's load; $(median_of "$reps")). *Shrunk* (decisions left):
by the project's shrinker in \`zksim explore\` (up to 2,000 runs) and in
\`zksim matrix --json\` (up to 500 runs; the matrix reports the first fault
configuration that showed the violation), and by rapidcheck in
\`build/tests/scenarios_flawed_properties_test\` (\`ctest -L shrink\`;
3 clients x 3 rounds).

| flawed recipe | breaks | nemesis | caught in run | time to catch | shrunk: explore | shrunk: matrix | shrunk: rapidcheck |
| --- | --- | --- | --- | --- | --- | --- | --- |
EOF
for r in "${flawed[@]}"; do
  report '
    ($matrix[0].recipes // [] | map(select(.name == $r))[0]) as $m
    | ($m.breaks // "?") as $p
    | (.violations | map(select(.property == $p))[0]) as $e
    | (.campaign.nemesis_per_mille | to_entries | map("\(.key) \(.value)/1000") | join(", ")
       | if . == "" then "none" else . end) as $nemesis
    | ($harness[0] | first(chosen | select(.label == $r)) // null) as $h
    | ($m.properties[$p] // {}) as $cell
    | ([$rc[0].testsuites[]?.testsuite[]? | .["shrunk_decisions_" + $r] // empty][0]) as $rapid
    | "| \($r) | \($p) | \($nemesis) | "
      + (if $e then "\($e.first_run + 1) of \(.runs)" else "not caught in \(.runs)" end) + " | "
      + ($h | if . == null then "not measured (not in BM_TimeToCatch)"
              else measured("\(.median_ms | sig3) ms, \(.median_runs | fixed(0)) run\(if .median_runs == 1 then "" else "s" end)") end) + " | "
      + (if $e then "\($e.decisions | commas) → \($e.shrunk_decisions | commas)" else "—" end) + " | "
      + (if $cell.verdict == "violated" then "\($cell.decisions | commas) (\($cell.faults | if . == "none" then "no faults" else . end))" else "not caught" end) + " | "
      + ($rapid // "not run") + " |"' \
    --arg r "$r" --slurpfile matrix "$work/matrix.json" --slurpfile harness "$work/harness.json" \
    --slurpfile rc "$rapidcheck_json" "$work/explore.${r//\//-}.json"
done
echo

cat <<EOF
Counting the coverage probes over a finished run, CPU time, $(median_of "$reps")
(\`build/tools/zksim-bench-probes$(args_text "${aggregates[@]}")\`):

| runs | trace events a run | µs a run | ns an event |
| --- | --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_Probes"))
  | (if .run_name | startswith("BM_ProbesLockScenario") then "lock scenario above, no faults"
     else "lock under \(.label)" end) as $what
  | "| \($what) | \(measured(.events_per_run | fixed(0))) | \(measured(.cpu_time | sig3)) | \(measured(.cpu_time * 1000 / .events_per_run | sig3)) |"' \
  "$work/probes.json"
echo

echo "Test suites, wall clock: $(awk '{ label = $1; $1 = ""; printf "%s`ctest --test-dir build -L %s`%s", (NR > 1 ? ", " : ""), label, $0 }' "$work/suites.txt")."
echo

report '
"The verdict matrix (`build/tools/zksim matrix --jobs \($jobs)`, as `scripts/main.sh` runs it): "
+ "\(.runs | commas) runs in \($s) s wall clock; "
+ (if .ok then "every correct recipe holds, every flawed one caught (OK)." else "NOT OK." end)' \
  --arg s "$matrix_s" --arg jobs "$jobs" "$work/matrix.json" || echo "The verdict matrix: failed (exit $matrix_rc)."
echo

cat <<EOF
Side by side with a real ZooKeeper 3.8 server (started as the tests start
it), wall clock for both, $(median_of "$reps")
(\`build/tools/zksim-bench-side-by-side$(args_text "${aggregates[@]}")\`):

| workload | simulator | real server | sim / real |
| --- | --- | --- | --- |
EOF
report '
def row($what; $bm):
  named("BM_\($bm)_Sim/") as $sim | named("BM_\($bm)_Real/") as $real
  | "| \($what) | \($sim | measured(.items_per_second | rate + "/s")) | \($real | measured(.items_per_second | rate + "/s")) | "
    + (if ($sim.items_per_second // 0) > 0 and ($real.items_per_second // 0) > 0
       then "\($sim.items_per_second / $real.items_per_second | commas)×" else "—" end) + " |";
row("lock handoffs, 5 clients on one `recipes::Lock`, no hold"; "LockHandoffs"),
row("create+delete pairs, one client"; "CreateDelete")' "$work/side-by-side.json"

exit "$status"
