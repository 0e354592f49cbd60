// Reading scenario files for run, replay and timeline: every problem (a
// missing file, an empty directory, a malformed file) is a UsageError with
// the parser's "file:line:col: message".
#pragma once

#include "zksim/scenarios/lease_scenario.h"
#include "zksim/scenarios/scenario.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace zksim::cli {

// A scenario file of either kind (a ZooKeeper recipe's, a lease lock's:
// its version line tells), for the commands that run both.
struct AnyScenario {
  std::optional<scenarios::Scenario> zookeeper;
  std::optional<scenarios::LeaseScenario> lease;
};
// `path` parsed as the kind its version line names, or UsageError.
AnyScenario load_any_or_throw(const std::string& command, const std::string& path);

// What run and replay print of a run of either kind.
struct AnyRun {
  std::string verdict;
  std::string expected;   // in the verdict's words
  bool as_expected = false;
  std::uint64_t trace_hash = 0;
  nlohmann::json violations;  // [{property, message, clients, time_ms}]
  std::vector<std::string> violation_lines;  // for people: "mutual-exclusion at t=12 ms, clients c0, c1: ..."
};
// Runs `s`. Given `then`, calls it with what was found and a function that
// writes the run's text timeline to a stream as it is made (valid during
// the call only: the run, whose trace it reads, ends with it).
using TimelineWriter = std::function<void(std::ostream&)>;
AnyRun run_any(const AnyScenario& s, const std::function<void(const AnyRun&, const TimelineWriter&)>& then = {});

// The .scn files the arguments name: files as given, directories searched
// (recursively, sorted). UsageError for a path that does not exist or a
// directory without scenario files.
std::vector<std::string> scenario_paths(const std::string& command, const std::vector<std::string>& args);

// "pass" or "violation <property>".
std::string expected_verdict(const scenarios::Scenario& s);

// A run's violations as JSON objects {property, message, clients, time_ms}.
nlohmann::json violations_json(const std::vector<scenarios::Violation>& v);

}  // namespace zksim::cli
