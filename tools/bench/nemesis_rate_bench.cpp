// What one harness run costs as the nemesis rate grows: the lock workload of
// `zksim explore` (4 clients x 4 acquisitions, 2 s sessions, pauses of 3 s,
// delays of 50 ms) under one fault class, or all of them, at 30, 400 and
// 1000 per mille. Reports the time per run and, per run, the trace events,
// the faults struck and the simulated time at which the run ended: the cost
// should follow the useful work and the faults, not the run's time limit.
#include "zksim/scenarios/workload.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace zksim;
using namespace zksim::scenarios;

// kFaultKinds: every class at once.
WorldConfig nemesis(int kind, std::uint32_t per_mille) {
  WorldConfig c;
  for (int k = 0; k < kFaultKinds; ++k) {
    if (kind == kFaultKinds || kind == k) c.nemesis.per_mille[k] = per_mille;
  }
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

void BM_RunAtRate(benchmark::State& state) {
  const auto kind = static_cast<int>(state.range(0));
  const auto per_mille = static_cast<std::uint32_t>(state.range(1));
  state.SetLabel(kind == kFaultKinds ? std::string("all") : std::string(fault_kind_name(kind)));
  const Workload w{.recipe = "lock", .clients = 4, .rounds = 4};
  const WorldConfig c = nemesis(kind, per_mille);
  std::uint64_t seed = 1;
  double events = 0, faults = 0, end_ms = 0;
  for (auto _ : state) {
    SeededDecisions d(seed++);
    RunResult r = run(w, d, {}, c);
    events += static_cast<double>(r.trace_events);
    end_ms += static_cast<double>(r.end_time);
    for (const TraceEvent& e : r.trace) faults += e.kind == TraceKind::Fault;
  }
  const auto runs = static_cast<double>(state.iterations());
  state.counters["events_per_run"] = events / runs;
  state.counters["faults_per_run"] = faults / runs;
  state.counters["sim_ms_per_run"] = end_ms / runs;
}
BENCHMARK(BM_RunAtRate)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, kFaultKinds}, {30, 400, 1000}})
    ->ArgNames({"class", "rate"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
