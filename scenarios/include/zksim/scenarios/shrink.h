// Shrinking a failing run's decision list to a small one that fails the
// same way, so a scenario file reads as "what had to go wrong".
//
//   Shrunk s = shrink_scenario(found, "mutual-exclusion");
//   if (s.reproduced) std::ofstream(path) << write_scenario(s.scenario);
//
// Deterministic: the same input and predicate give the same result, and the
// effort is bounded by a count of runs, never by time.
#pragma once

#include "zksim/scenarios/scenario.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace zksim::scenarios {

using DecisionList = std::vector<std::uint32_t>;

struct ShrunkList {
  DecisionList decisions;
  int runs = 0;  // calls of the predicate
};

// Delta debugging on a list, in rounds until a round changes nothing or
// `max_runs` predicate calls were made: the shortest failing prefix (by
// bisection); chunk removal (halves, quarters, ... single decisions);
// chunks set to 0; then each value lowered toward 0 (to 0, to half, to one
// less). Every list kept made `fails` true, and every call that returned
// true kept its list. Trailing zeros are dropped without a call, since a
// replay reads 0 past the end of a list. Returns the last list kept: the
// last one `fails` returned true for (`start` trimmed, if none did).
// REQUIRES: fails(start), for the result to mean anything.
ShrunkList shrink_list(DecisionList start, const std::function<bool(const DecisionList&)>& fails,
                       int max_runs);

struct Shrunk {
  Scenario scenario;    // `s` replaying from the shrunk list (no seed), expecting the violation
  Violation violation;  // the first violation of the property in the shrunk run
  int runs = 0;         // scenario runs spent, the first replay included: at most max_runs
  // false: `s` did not violate `property` at all, or max_runs was 0 (nothing ran).
  bool reproduced = false;
};

// Shrinks the decision list of `s`, which replays from its list (a seed in
// `s` is dropped: an empty list must not fall back to seeded choices),
// keeping a violation of `property`, in at most `max_runs` scenario runs
// (the first replays `s` as it is). Everything else stays, but for the
// expectation, which becomes "violation <property>" when it reproduced.
Shrunk shrink_scenario(Scenario s, const std::string& property, int max_runs = 2000);

}  // namespace zksim::scenarios
