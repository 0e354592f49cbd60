// Lease scenario files: a run of a lease lock (zksim/lease/harness.h)
// written down so it replays exactly, in the grammar of scenario.h's files
// under its own version line:
//
//   # zksim lease --recipe flawed/redis-del-unlock --faults lost-reply --seed 3
//   zksim-lease-scenario 1
//   recipe flawed/redis-del-unlock  # see lease_recipes()
//   clients 3
//   rounds 3
//   hold-ms 0                       # 0: the recipe's own; also think-ms, limit-ms
//   faults lost-reply               # the nemesis's classes; 'faults none' for none
//   fault-per-mille 150
//   seed 3                          # or: decisions 0 0 3 1 ... (repeatable)
//   expect violation belief-exclusion  # or: expect pass
//
// As in scenario.h: a seed alone runs seeded, otherwise the decision list
// replays (0 past its end); each directive at most once but decisions;
// errors are "file:line:col: message".
#pragma once

#include "zksim/lease/harness.h"
#include "zksim/scenarios/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::scenarios {

struct LeaseScenario {
  lease::LeaseWorkload workload;
  std::optional<std::uint64_t> seed;
  std::vector<std::uint32_t> decisions;
  std::optional<std::string> expect_violation;  // nullopt: expect pass
  std::vector<std::string> comments;            // written at the top
};

// Whether `text`'s first directive is a lease scenario's version line (how
// `zksim replay` tells the two kinds of file apart).
bool is_lease_scenario(const std::string& text);

std::optional<LeaseScenario> parse_lease_scenario(const std::string& text, const std::string& file, ParseError* error);
// Reads and parses a file; a missing file is a ParseError at 0:0.
std::optional<LeaseScenario> load_lease_scenario(const std::string& path, ParseError* error);
// parse_lease_scenario(write_lease_scenario(s)) gives `s` back.
std::string write_lease_scenario(const LeaseScenario& s);

struct LeaseScenarioRun {
  lease::LeaseRun run;  // with its trace, events and holds
  bool as_expected = false;
  std::string verdict;  // "pass", or "violation <property>": the expected one if it showed, else the first
};

LeaseScenarioRun run_lease_scenario(const LeaseScenario& s);

struct ShrunkLease {
  LeaseScenario scenario;           // replaying from the shrunk list (no seed), expecting the violation
  Violation violation;  // the shrunk run's violation of the property
  int runs = 0;                     // runs spent, the first replay included: at most max_runs
  bool reproduced = false;          // false: `s` did not violate `property`, or max_runs was 0
};

// Shrinks the decisions of `s` (shrink.h's shrink_list), keeping a
// violation of `property`, in at most `max_runs` runs.
ShrunkLease shrink_lease_scenario(LeaseScenario s, const std::string& property, int max_runs = 2000);

}  // namespace zksim::scenarios
