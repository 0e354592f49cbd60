// The text timeline (`zksim replay`) and the HTML page (`zksim timeline
// --html`) of 20-client lock scenarios at 50, 100, 200 and 300 rounds (about
// the most one run's step budget takes), on runs made beforehand: only the pictures are timed. Reports the time per
// trace event, which stays flat when the pictures cost linear time.
#include "zksim/timeline/timeline.h"

#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <string>

namespace {

using namespace zksim;

struct Recorded {
  std::optional<scenarios::Scenario> scenario;  // none: the file was refused
  scenarios::ScenarioRun run;
  std::string refused;  // why
};

// The 20-client lock scenario of `rounds` rounds, seed 1, no faults, as a
// scenario file writes it (zksim replay of such a file draws the same).
const Recorded& lock_run(int rounds) {
  static std::map<int, Recorded> recorded;
  auto it = recorded.find(rounds);
  if (it == recorded.end()) {
    const std::string file =
        "zksim-scenario 1\nrecipe lock\nclients 20\nrounds " + std::to_string(rounds) + "\nseed 1\nexpect pass\n";
    scenarios::ParseError error;
    Recorded r;
    r.scenario = scenarios::parse_scenario(file, "bench.scn", &error);
    if (r.scenario) {
      r.run = scenarios::run_scenario(*r.scenario);
    } else {
      r.refused = error.text();
    }
    it = recorded.emplace(rounds, std::move(r)).first;
  }
  return it->second;
}

template <typename Draw>
void draw(benchmark::State& state, Draw picture) {
  const Recorded& r = lock_run(static_cast<int>(state.range(0)));
  if (!r.scenario) {
    state.SkipWithError(r.refused.c_str());
    return;
  }
  const std::size_t events = r.run.result.trace.size();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string out = picture(*r.scenario, r.run);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["bytes"] = static_cast<double>(bytes);
  // Seconds per trace event (printed with an SI prefix: "2.5u" is 2.5 µs).
  state.counters["time_per_event"] = benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TimelineText(benchmark::State& state) {
  draw(state, [](const scenarios::Scenario& s, const scenarios::ScenarioRun& run) { return timeline::text(s, run); });
}
BENCHMARK(BM_TimelineText)->ArgName("rounds")->Arg(50)->Arg(100)->Arg(200)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_TimelineHtml(benchmark::State& state) {
  draw(state, [](const scenarios::Scenario& s, const scenarios::ScenarioRun& run) { return timeline::html(s, run); });
}
BENCHMARK(BM_TimelineHtml)->ArgName("rounds")->Arg(50)->Arg(100)->Arg(200)->Arg(300)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
