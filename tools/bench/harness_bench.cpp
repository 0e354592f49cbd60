// The harness's speed: complete lock scenarios per second, run as a campaign
// runs them (verdicts kept, not the trace: KeepTrace::No) (5 clients x 10
// acquisitions, every checker on; per flavour, and on 1, 3 and 5 servers),
// and how long until each flawed recipe is
// caught (random seeds with its nemesis, median over 20 campaigns).
#include "alloc_count.h"
#include "zksim/scenarios/workload.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace zksim;
using namespace zksim::scenarios;

// Runs `w` from seed 1 on, one scenario an iteration, as a campaign runs
// them, and counts its heap allocations per scenario (operator new), all
// of it: world, client library, recipes, trace and checkers.
void run_scenarios(benchmark::State& state, const Workload& w, const WorldConfig& c = {}) {
  std::uint64_t seed = 1;
  const std::uint64_t allocations_before = bench::allocations();
  for (auto _ : state) {
    SeededDecisions d(seed++);
    RunResult r = run(w, d, {}, c, KeepTrace::No);
    if (!r.violations.empty()) state.SkipWithError("the correct lock failed a check");
    benchmark::DoNotOptimize(r.trace_hash);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs"] = benchmark::Counter(static_cast<double>(bench::allocations() - allocations_before),
                                                benchmark::Counter::kAvgIterations);
}

// Argument: the clients' flavour (0 c, 1 curator, 2 kazoo): what the
// library threads of curator and kazoo cost per scenario.
void BM_LockScenario(benchmark::State& state) {
  const auto flavour = static_cast<Flavour>(state.range(0));
  state.SetLabel(std::string(flavour_name(flavour)));
  run_scenarios(state, Workload{.recipe = "lock", .clients = 5, .rounds = 10, .flavours = {flavour}});
}
BENCHMARK(BM_LockScenario)->DenseRange(0, kFlavours - 1)->Unit(benchmark::kMicrosecond);

// Longer runs of the same scenario (5 clients x 10, 20 or 40 rounds): the
// cost of a run should grow with its rounds, no faster (a trace grown from
// empty each run made 20 rounds cost 3x 10 rounds).
void BM_LockScenarioRounds(benchmark::State& state) {
  run_scenarios(state, Workload{.recipe = "lock", .clients = 5, .rounds = static_cast<int>(state.range(0))});
}
BENCHMARK(BM_LockScenarioRounds)->ArgName("rounds")->Arg(10)->Arg(20)->Arg(40)->Unit(benchmark::kMicrosecond);

// The same scenario (C clients) on an ensemble of 1, 3 or 5 servers, the
// clients spread over them by their shuffled connect strings: what the
// followers' queues and lags cost per scenario.
void BM_LockScenarioOnServers(benchmark::State& state) {
  WorldConfig c;
  c.servers = static_cast<int>(state.range(0));
  run_scenarios(state, Workload{.recipe = "lock", .clients = 5, .rounds = 10}, c);
}
BENCHMARK(BM_LockScenarioOnServers)->ArgName("servers")->Arg(1)->Arg(3)->Arg(5)->Unit(benchmark::kMicrosecond);

// Each iteration is one campaign: seeds from a fresh start until a run
// shows the flaw. Reports the median campaign's runs and milliseconds.
void BM_TimeToCatch(benchmark::State& state) {
  const FlawedRecipe& f = flawed_recipes().at(static_cast<std::size_t>(state.range(0)));
  state.SetLabel(f.recipe);
  Workload w{.recipe = f.recipe, .clients = 4, .rounds = 4, .hold_ms = f.hold_ms, .flavours = {f.flavour}, .varied = f.varied};
  const WorldConfig c = f.config();
  std::vector<double> ms, runs;
  std::uint64_t campaign = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    int n = 0;
    for (bool caught = false; !caught && n < 100'000;) {
      SeededDecisions d(campaign * 1'000'003 + static_cast<std::uint64_t>(++n));
      for (const Violation& v : run(w, d, {}, c, KeepTrace::No).violations) caught |= v.property == f.property;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    runs.push_back(n);
    ++campaign;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  state.counters["median_ms"] = median(ms);
  state.counters["median_runs"] = median(runs);
}
// Every flawed recipe (the list is known only at run time, so the range is
// registered from it).
const int kFlawedRegistered = [] {
  benchmark::RegisterBenchmark("BM_TimeToCatch", BM_TimeToCatch)
      ->DenseRange(0, static_cast<int>(flawed_recipes().size()) - 1)
      ->Iterations(20)
      ->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
