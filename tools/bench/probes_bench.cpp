// What counting the coverage probes adds to every harness run: the pass
// over a finished run's trace and history, on runs recorded beforehand
// (the lock scenario of zksim-bench-harness, and the probe explorations'
// runs under each fault class). Reports the time per run and per trace event.
#include "zksim/scenarios/probes.h"

#include <benchmark/benchmark.h>

#include <map>
#include <vector>

namespace {

using namespace zksim;
using namespace zksim::scenarios;

std::vector<RunResult> record(const Workload& w, const WorldConfig& c) {
  std::vector<RunResult> runs;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    SeededDecisions d(seed);
    runs.push_back(run(w, d, {}, c));
  }
  return runs;
}

void count(benchmark::State& state, const std::vector<RunResult>& runs) {
  std::size_t i = 0, events = 0;
  for (auto _ : state) {
    const RunResult& r = runs[i++ % runs.size()];
    events += r.trace.size();
    benchmark::DoNotOptimize(count_probes(r.trace, r.history));
  }
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  // Seconds per event (printed with an SI prefix: "2.5n" is 2.5 ns).
  state.counters["time_per_event"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// 5 clients x 10 acquisitions, no faults: the harness benchmark's scenario.
void BM_ProbesLockScenario(benchmark::State& state) {
  static const auto runs = record(Workload{.recipe = "lock", .clients = 5, .rounds = 10}, {});
  count(state, runs);
}
BENCHMARK(BM_ProbesLockScenario)->Unit(benchmark::kMicrosecond);

// The probe explorations' lock runs under a fault class.
void BM_ProbesUnderFault(benchmark::State& state) {
  const auto fault = static_cast<FaultKind>(state.range(0));
  state.SetLabel(std::string(fault_kind_name(static_cast<std::int32_t>(fault))));
  static std::map<FaultKind, std::vector<RunResult>> recorded;
  auto it = recorded.find(fault);
  if (it == recorded.end()) it = recorded.emplace(fault, record(probe_workload("lock"), probe_world(fault))).first;
  count(state, it->second);
}
BENCHMARK(BM_ProbesUnderFault)->DenseRange(0, kFaultKinds - 1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
