// How soon each search strategy catches each flawed recipe: runs and time
// until a run violates the property the recipe breaks, with its own nemesis,
// 3 clients x 4 rounds (dfs takes at most 3), its own client flavour.
// Random, fixed-latency and pct (depth 3): the median of 20 campaigns of
// fresh seeds, each of at most 10,000 runs.
// Dfs: one search, depth 12, at most 100,000 schedules (explore's
// defaults); it is the same search every time, so only its time varies.
#include "zksim/scenarios/strategy.h"
#include "zksim/scenarios/workload.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace {

using namespace zksim;
using namespace zksim::scenarios;

constexpr int kSeededLimit = 10'000;
constexpr int kDfsLimit = 100'000;
constexpr std::size_t kDfsDepth = 12;

struct Campaign {
  int runs = 0;
  bool caught = false;
};

// Runs until one shows the flaw, or the limit, or (dfs) the last schedule.
Campaign catch_flaw(Strategy s, const FlawedRecipe& f, std::uint64_t campaign) {
  const Workload w{.recipe = f.recipe, .clients = 3, .rounds = 4, .hold_ms = f.hold_ms, .flavours = {f.flavour}, .varied = f.varied};
  const WorldConfig c = strategy_config(s, f.config());
  auto shows = [&](DecisionSource& d) {
    const RunResult r = run(w, d, {}, c);
    return std::any_of(r.violations.begin(), r.violations.end(), [&](const Violation& v) { return v.property == f.property; });
  };
  if (s == Strategy::Dfs) {
    DfsSchedules dfs(kDfsDepth, c.nemesis);
    for (int n = 1; n <= kDfsLimit; ++n) {
      if (shows(dfs)) return {n, true};
      if (!dfs.advance()) return {n, false};
    }
    return {kDfsLimit, false};
  }
  for (int n = 1; n <= kSeededLimit; ++n) {
    const auto d = seeded_decisions(s, campaign * 1'000'003 + static_cast<std::uint64_t>(n), kDefaultPctDepth);
    if (shows(*d)) return {n, true};
  }
  return {kSeededLimit, false};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void BM_RunsToCatch(benchmark::State& state, Strategy s, std::size_t recipe) {
  const FlawedRecipe& f = flawed_recipes().at(recipe);
  std::vector<double> ms, runs;
  int caught = 0;
  std::uint64_t campaign = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const Campaign c = catch_flaw(s, f, campaign++);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    runs.push_back(c.runs);
    caught += c.caught;
  }
  state.counters["median_ms"] = median(ms);
  state.counters["median_runs"] = median(runs);
  state.counters["caught"] = static_cast<double>(caught) / static_cast<double>(ms.size());
}

const bool registered = [] {
  for (const std::string& name : strategy_names()) {
    const Strategy s = *strategy_named(name);
    for (std::size_t r = 0; r < flawed_recipes().size(); ++r) {
      benchmark::RegisterBenchmark(fmt::format("BM_RunsToCatch/{}/{}", name, flawed_recipes()[r].recipe).c_str(),
                                   BM_RunsToCatch, s, r)
          ->Iterations(s == Strategy::Dfs ? 3 : 20)
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
