// The lease locks' speed: complete scenarios per second (3 clients x 3
// rounds, every checker on), without faults and under every lease fault
// class at 150 per 1000 strike points; and how long until each flawed lease
// lock is caught under the fault class that exposes it (median over 20
// campaigns of consecutive seeds).
#include "alloc_count.h"
#include "zksim/lease/harness.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <vector>

namespace {

using namespace zksim;
using namespace zksim::lease;

const LeaseRecipe& recipe_at(std::int64_t i) { return lease_recipes().at(static_cast<std::size_t>(i)); }

// Arguments: the recipe's index in lease_recipes(), and 1 for every fault class.
void BM_LeaseScenario(benchmark::State& state) {
  const LeaseRecipe& r = recipe_at(state.range(0));
  LeaseWorkload w{.recipe = r.name};
  if (state.range(1)) {
    w.faults.assign(std::begin(kLeaseFaults), std::end(kLeaseFaults));
    w.fault_per_mille = 150;
  }
  state.SetLabel(r.name + (state.range(1) ? " under every fault" : ""));
  std::uint64_t seed = 1;
  const std::uint64_t allocations_before = bench::allocations();
  for (auto _ : state) {
    SeededDecisions d(seed++);
    LeaseRun run = run_lease(w, d);
    benchmark::DoNotOptimize(run.trace_hash);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs"] = benchmark::Counter(static_cast<double>(bench::allocations() - allocations_before),
                                                benchmark::Counter::kAvgIterations);
}

void BM_LeaseTimeToCatch(benchmark::State& state) {
  const LeaseRecipe& r = recipe_at(state.range(0));
  state.SetLabel(r.name);
  const LeaseWorkload w{.recipe = r.name, .faults = {r.exposed_by}, .fault_per_mille = 150};
  std::vector<double> ms, runs;
  std::uint64_t campaign = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    int n = 0;
    for (bool caught = false; !caught && n < 100'000;) {
      SeededDecisions d(campaign * 1'000'003 + static_cast<std::uint64_t>(++n));
      for (const Violation& v : run_lease(w, d).violations) caught |= v.property == r.breaks;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    runs.push_back(n);
    ++campaign;
  }
  const auto median = [](std::vector<double> v) {
    std::ranges::sort(v);
    return v[v.size() / 2];
  };
  state.counters["median_ms"] = median(ms);
  state.counters["median_runs"] = median(runs);
}

const int kRegistered = [] {
  for (std::size_t i = 0; i < lease_recipes().size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    if (lease_recipes()[i].breaks.empty()) {
      benchmark::RegisterBenchmark("BM_LeaseScenario", BM_LeaseScenario)
          ->Args({index, 0})
          ->Args({index, 1})
          ->Unit(benchmark::kMicrosecond);
    } else {
      benchmark::RegisterBenchmark("BM_LeaseTimeToCatch", BM_LeaseTimeToCatch)
          ->Arg(index)
          ->Iterations(20)
          ->Unit(benchmark::kMillisecond);
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
