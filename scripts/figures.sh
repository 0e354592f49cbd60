#!/usr/bin/env bash
# Measures the project's figures and writes them to docs/figures.md, each
# under the command it comes from, after the machine, the date and the
# commit. Builds what they come from (scripts/bench.sh, the zksim program,
# and without --quick the test programs it runs); builds and the
# benchmarks' own consoles go to stderr.
# Usage: scripts/figures.sh [--quick] [--out FILE]
#   --quick  one repetition of each benchmark instead of 3 (5 for the
#            world), and the rapidcheck shrink test and the real-server
#            and conformance suites (about 45, 15 and 30 s) left out.
#   --out FILE  write there instead of docs/figures.md ('-': stdout).
# Exit status: 0 when every figure was measured; 1 when a program failed
# (its figure then reads "failed" or "not measured"); 2 bad usage.
#
# Benchmark figures vary with what else the machine runs: CPU time is given
# where the benchmark measures work (it counts this process only), wall
# clock where it measures waiting (the real server), and the load average
# before and after. Catch counts, shrunk sizes and instruction counts are
# deterministic.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"

quick=0
out_file="$root/docs/figures.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --out)
      if [ $# -lt 2 ]; then echo "figures.sh: --out needs a file (see --help)" >&2; exit 2; fi
      out_file="$2"
      shift 2
      ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "figures.sh: unknown option '$1' (see --help)" >&2
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

if [ "$out_file" != - ]; then
  case "$out_file" in /*) ;; *) out_file="$PWD/$out_file" ;; esac
fi

# The test programs behind the suites it times (probes; without --quick
# also the rapidcheck shrink test, the real server's and conformance).
targets=(--target zksim --target scenarios_probes_exploration_test)
if [ "$quick" = 0 ]; then
  targets+=(--target scenarios_flawed_properties_test --target real_recipes_test --target conformance_tree_test
    --target conformance_watch_session_test)
fi
bash "$root/scripts/bench.sh" >&2
bash "$root/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=Release -DZKSIM_SANITIZE=OFF -DZKSIM_BENCHMARKS=ON \
  -DBUILD_TESTING=ON "${targets[@]}" >&2

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
bench lease "${aggregates[@]}"
bench timeline "${aggregates[@]}"

# A lock scenario's instructions by layer, under callgrind (instructions
# are the same on every run of one binary, unlike times here).
layers_cmd=(valgrind --tool=callgrind --callgrind-out-file=cg.out '--toggle-collect=zksim::scenarios::run(*'
  build/tools/zksim-bench-harness --benchmark_filter=BM_LockScenario/0 --benchmark_min_time=1)
layers="$work/layers.md"
# The command as a shell reads it: words with shell syntax in them quoted.
shell_words() {
  local w out=()
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then out+=("$w"); else out+=("'$w'"); fi
  done
  echo "${out[*]}"
}
layers_text="$(shell_words "${layers_cmd[@]}")"
if command -v valgrind >/dev/null; then
  echo "figures.sh: $layers_text" >&2
  if (cd "$work" && "${layers_cmd[@]/#build\//$build/}" >&2) && python3 tools/measure/layers.py "$work/cg.out" > "$layers"; then
    :
  else
    echo "Failed (its output is above, on stderr)." > "$layers"
    status=1
  fi
else
  echo "Not measured: valgrind is not installed (Debian's \`valgrind\`)." > "$layers"
fi

jobs="$(nproc)"
if [ "$jobs" -gt 8 ]; then jobs=8; fi
echo "figures.sh: zksim matrix --jobs $jobs --json" >&2
t="$(now_ns)"
matrix_rc=0
build/tools/zksim matrix --jobs "$jobs" --out "$work/matrix" --json > "$work/matrix.json" || matrix_rc=$?
matrix_s="$(seconds_since "$t")"
if [ "$matrix_rc" != 0 ]; then status=1; fi

# Each flawed recipe explored under its own nemesis (what `zksim list
# --json` says exposes it, every run the same): 200 runs from seed 1,
# shrunk with up to 2,000 runs.
flawed=()
mapfile -t flawed < <(build/tools/zksim list --json | jq -r '.recipes[] | select(.flawed) | .name')
for r in "${flawed[@]}"; do
  read -r -a own < <(build/tools/zksim list --json | jq -r --arg r "$r" '.recipes[] | select(.name == $r) | .exposed_by
    | "--fixed --client \(.client) --hold-ms \(.hold_ms) --servers \(.servers) --faults \(.faults)"
      + (if .faults == "none" then "" else " --rate \(.per_mille)" end) + (if .varied then " --varied" else "" end)')
  echo "figures.sh: zksim explore --recipe $r ${own[*]} --runs 200 --json" >&2
  rc=0
  build/tools/zksim explore --recipe "$r" "${own[@]}" --runs 200 --out "$work/explore" --json > "$work/explore.${r//\//-}.json" || rc=$?
  if [ "$rc" != 1 ]; then status=1; fi   # 1: a violation found, as it must be
done

rapidcheck_json="$work/rapidcheck.json"
if [ "$quick" = 0 ]; then
  echo "figures.sh: scenarios_flawed_properties_test" >&2
  build/tests/scenarios_flawed_properties_test --gtest_output="json:$rapidcheck_json" >&2 || status=1
fi
if [ ! -s "$rapidcheck_json" ]; then echo '{"testsuites": []}' > "$rapidcheck_json"; fi

# The test suites whose run time docs/figures.md gives: "LABEL N s" lines.
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

# ---------------------------------------------------------------- the page
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
mem_gb="$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
compiler="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
exec 3>&1 >"$work/figures.md"

cat <<EOF
# Figures

Written by \`scripts/figures.sh$([ "$quick" = 1 ] && echo " --quick")\`: run it again rather than edit this
page. Each figure follows the command that measures it. Benchmark figures
vary with what else the machine runs: CPU time is given where the
benchmark measures work, wall clock where it measures waiting (the real
server), and the load average before and after; catch counts, shrunk
sizes, allocation and instruction counts are the same on every run.

| | |
| --- | --- |
| measured | $(date -u '+%Y-%m-%d %H:%M UTC'), $total_s s after the build |
| commit | $commit |
| CPU | $cpu, $(nproc) cores |
| memory | $mem_gb GB |
| OS | $(. /etc/os-release && echo "$PRETTY_NAME") |
| compiler | $("$compiler" --version | head -1), Release build |
| load average (1, 5, 15 min) | before: $load_before; after: $load_after |

## The server

Server op mix (create, getData, setData, getChildren of a 5-child parent,
delete; small nodes) through \`Server::apply\`, CPU time, $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-tree$(args_text "${aggregates[@]}")
\`\`\`

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
  + "(`BM_Memory`, same command): \(.rss_MB | fixed(0)) MB resident "
  + "(\(.rss_bytes_per_znode | fixed(0)) bytes per znode), heap in use \(.heap_MB | fixed(0)) MB.")' \
  "$work/tree.json"
echo

cat <<EOF
## The simulated world

End-to-end simulated client operations (create, getData, setData, exists,
delete through the client library, network, server and back; 1 ms
latency), the other sessions connected and idle, CPU time, $(median_of "$world_reps");
allocations are operator new calls over a batch, per operation:

\`\`\`sh
build/tools/zksim-bench-world$(args_text "${world_aggregates[@]}")
\`\`\`

| sessions | ops/s | ns/op | allocations an op |
| --- | --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_ClientOps/"))
  | "| \(.run_name | ltrimstr("BM_ClientOps/") | tonumber | commas) | \(measured(.items_per_second | rate)) | \(measured(1e9 / .items_per_second | sig3)) | \(measured(.allocs_per_op | fixed(2))) |"' \
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
## The harness

Complete lock scenarios (5 clients x 10 acquisitions, every checker on,
run as a campaign runs them, keeping verdicts and not the trace), with
each client library's semantics, CPU time, $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-harness$(args_text "${aggregates[@]}")
\`\`\`

| clients | scenarios/s | µs CPU each | allocations each |
| --- | --- | --- | --- |
EOF
report 'chosen | select(.run_name | test("^BM_LockScenario/[0-9]+$"))
  | "| \(.label) | \(measured(.items_per_second | commas)) | \(measured(.cpu_time | sig3)) | \(measured(.allocs | commas)) |"' \
  "$work/harness.json"
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
Where a lock scenario's instructions go, by layer (the self cost of each
layer's functions, under callgrind, per scenario):

\`\`\`sh
$layers_text
python3 tools/measure/layers.py cg.out
\`\`\`

EOF
cat "$layers"
echo

cat <<EOF
## The flawed recipes

Each flawed recipe against the property it breaks. *Caught in run*: the
first violating run of \`build/tools/zksim explore --recipe NAME --fixed ...
--runs 200 --json\` (from seed 1, under the recipe's own nemesis, as
\`zksim list --json\` gives it; the default search is the next section). *Time to catch*:
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
## The default search

What \`zksim explore --recipe NAME\` with no option does to each flawed
recipe (\`scripts/search_figures.sh build 2000\`: 2,000 runs from seed 1,
no shrinking, in one process; wall clock, so times grow with the load):

EOF
bash "$root/scripts/search_figures.sh" build 2000 || status=1
echo

cat <<EOF
## Coverage probes

Counting the coverage probes over a finished run, CPU time, $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-probes$(args_text "${aggregates[@]}")
\`\`\`

| runs | trace events a run | µs a run | ns an event |
| --- | --- | --- | --- |
EOF
report 'chosen | select(.run_name | startswith("BM_Probes"))
  | (if .run_name | startswith("BM_ProbesLockScenario") then "lock scenario above, no faults"
     else "lock under \(.label)" end) as $what
  | "| \($what) | \(measured(.events_per_run | fixed(0))) | \(measured(.cpu_time | sig3)) | \(measured(.cpu_time * 1000 / .events_per_run | sig3)) |"' \
  "$work/probes.json"
echo

cat <<EOF
## The lease locks

Complete lease-lock scenarios (3 clients x 3 rounds, every checker on),
without faults and under every lease fault class, CPU time; and the time
until each flawed lease lock is caught under the fault class that exposes
it (the median of 20 campaigns, wall clock); $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-lease$(args_text "${aggregates[@]}")
\`\`\`

| lease lock | scenarios/s, no faults | under every fault class | allocations a scenario, no faults |
| --- | --- | --- | --- |
EOF
report '[chosen | select(.run_name | startswith("BM_LeaseScenario/"))]
  | group_by(.run_name | split("/")[1] | tonumber)[]
  | (map(select(.run_name | endswith("/0")))[0]) as $plain
  | (map(select(.run_name | endswith("/1")))[0]) as $faults
  | "| \($plain.label) | \($plain | measured(.items_per_second | commas)) | \($faults | measured(.items_per_second | commas)) | \($plain | measured(.allocs | commas)) |"' \
  "$work/lease.json"
echo
echo "| flawed lease lock | median time to catch | median runs |"
echo "| --- | --- | --- |"
report 'chosen | select(.run_name | startswith("BM_LeaseTimeToCatch/"))
  | "| \(.label) | \(measured(.median_ms | sig3)) ms | \(measured(.median_runs | fixed(0))) |"' \
  "$work/lease.json"
echo

cat <<EOF
## The timelines

The text timeline (\`zksim replay\`) and the HTML page (\`zksim timeline
--html\`) of a 20-client lock scenario (seed 1, no faults), CPU time of the
picture alone, the run made beforehand, $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-timeline$(args_text "${aggregates[@]}")
\`\`\`

| rounds | trace events | text | µs an event | page | µs an event |
| --- | --- | --- | --- | --- | --- |
EOF
report '[chosen | select(.run_name | startswith("BM_Timeline"))]
  | group_by(.run_name | capture("rounds:(?<n>[0-9]+)").n | tonumber)[]
  | (map(select(.run_name | startswith("BM_TimelineText")))[0]) as $text
  | (map(select(.run_name | startswith("BM_TimelineHtml")))[0]) as $html
  | "| \($text.run_name | capture("rounds:(?<n>[0-9]+)").n) | \($text | measured(.events | commas)) | "
    + "\($text | measured((.cpu_time | sig3) + " ms")) | \($text | measured(.cpu_time * 1000 / .events | sig3)) | "
    + "\($html | measured((.cpu_time | sig3) + " ms")) | \($html | measured(.cpu_time * 1000 / .events | sig3)) |"' \
  "$work/timeline.json"
echo

cat <<EOF
## Test suites and the verdict matrix

EOF
echo "Wall clock: $(awk '{ label = $1; $1 = ""; printf "%s`ctest --test-dir build -L %s`%s", (NR > 1 ? ", " : ""), label, $0 }' "$work/suites.txt")."
echo
report '
"The verdict matrix (`build/tools/zksim matrix --jobs \($jobs)`, as `scripts/main.sh` runs it): "
+ "\(.runs | commas) runs in \($s) s wall clock; "
+ (if .ok then "every correct recipe holds, every flawed one caught (OK)." else "NOT OK." end)' \
  --arg s "$matrix_s" --arg jobs "$jobs" "$work/matrix.json" || echo "The verdict matrix: failed (exit $matrix_rc)."
echo

cat <<EOF
## Side by side with a real ZooKeeper server

Debian's ZooKeeper 3.8, started as the tests start it; wall clock for
both, $(median_of "$reps"):

\`\`\`sh
build/tools/zksim-bench-side-by-side$(args_text "${aggregates[@]}")
\`\`\`

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
echo

cat <<'EOF'
## Measured by other commands

These take minutes each, so this script leaves them out; each prints its
own figures:

```sh
build/tools/zksim-bench-strategies       # runs and time until each strategy catches each flawed recipe
scripts/flavour_figures.sh               # the flawed recipes of the client flavours: runs to the first catch, shrunk sizes
scripts/flaw_figures.sh build flawed/unsynced-barrier flawed/unsynced-protected-lock   # any flawed recipes, the same way
scripts/false_alarms.sh                  # 3,000,000 default runs of the correct recipes: violations must be none
scripts/mutants.sh                       # the mutation benchmark: kill rate per search strategy
scripts/serve_figures.py                 # zksim serve beside the real server, through the socket
scripts/fuzz.sh                          # the wire decoders' long fuzz run
```
EOF

exec 1>&3 3>&-
if [ "$out_file" = - ]; then
  cat "$work/figures.md"
else
  cp "$work/figures.md" "$out_file"
  echo "figures.sh: wrote $out_file" >&2
fi
exit "$status"
