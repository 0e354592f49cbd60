// The search a campaign makes when no option narrows it: every run draws,
// from its own seed, everything that applies to its recipe: which fault
// classes strike and how often, one server or an ensemble of three, the
// client libraries, the hold time, varied operation sequences, reentrancy
// and timeouts, whether its schedule is random or pct, and where the
// sequence counters of the recipe's directories start. A dimension
// given a value (an option) is that value in every run instead.
//
//   Campaign c = default_campaign("flawed/forgetful-lock");   // everything drawn
//   c.search->flavours = {{Flavour::C}};                      // narrowed: C clients only
//
// The draw comes from a stream of its own (seed and a salt), apart from the
// run's decisions: a finding's scenario file writes what its run drew as
// plain directives (servers, nemesis lines, client, hold-ms, varied,
// strategy) and its decisions, so it reads as what had to go wrong and
// replays without the draw. The same seed draws the same run in every
// build, for any number of processes.
#pragma once

#include "zksim/scenarios/strategy.h"
#include "zksim/scenarios/workload.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::scenarios {

struct SearchSpace {
  // The fault classes runs draw from: none in a quarter of the runs, one in
  // half of them, two in a quarter; with draw_faults false, all of them in
  // every run.
  std::vector<int> faults;
  bool draw_faults = true;
  // Each empty: drawn per run. A value: that in every run.
  std::optional<std::uint32_t> rate;            // per mille, of each class on
  std::optional<int> servers;                   // drawn: 3 with a class of the ensemble on, else 1 or 3
  std::optional<std::vector<Flavour>> flavours;
  std::optional<TimeMs> hold_ms;
  std::optional<bool> varied;                   // drawn only where the recipe's traits allow
  std::optional<Strategy> strategy;             // drawn: random or pct
  std::optional<std::int32_t> sequence_start;   // drawn: 0, or in a quarter of the runs near the wrap
  // Reentrant acquires (reentrant recipes) and acquire timeouts, drawn as
  // swarm testing draws them; false: the workload's own.
  bool draw_features = true;
};

// What each drawn dimension takes, the first the most boring. A hold of
// 3,000 ms outlives the workloads' 2 s sessions.
inline constexpr std::uint32_t kSearchRates[] = {30, 100, 300};
inline constexpr TimeMs kSearchHolds[] = {5, 300, 600, 3000};
inline constexpr int kSearchServers = 3;

// Everything drawn: every fault class (those of the ensemble on three
// servers).
SearchSpace default_search();

// One run's draw: its workload and world, its strategy, and a line for
// people ("faults pause,burst at 100‰; 3 servers; clients curator; hold 600
// ms; varied; pct").
struct DrawnRun {
  Workload workload;
  WorldConfig config;
  Strategy strategy = Strategy::Random;
  std::size_t depth = 0;  // pct's d
  std::string summary;
};
// Draws run `seed`'s configuration from `space`, on top of `base` and
// `base_config` (what the campaign fixes: the recipe, clients, rounds, ...).
DrawnRun draw_run(const Workload& base, const WorldConfig& base_config, const SearchSpace& space, std::uint64_t seed);

// The space for people, one line: what is drawn and what is fixed.
std::string describe(const SearchSpace& space, const Workload& base);

}  // namespace zksim::scenarios
