// Reading scenario files for run, replay and timeline: every problem (a
// missing file, an empty directory, a malformed file) is a UsageError with
// the parser's "file:line:col: message".
#pragma once

#include "zksim/scenarios/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace zksim::cli {

// `path` parsed, or UsageError.
scenarios::Scenario load_or_throw(const std::string& command, const std::string& path);

// The .scn files the arguments name: files as given, directories searched
// (recursively, sorted). UsageError for a path that does not exist or a
// directory without scenario files.
std::vector<std::string> scenario_paths(const std::string& command, const std::vector<std::string>& args);

// "pass" or "violation <property>".
std::string expected_verdict(const scenarios::Scenario& s);

// A run's violations as JSON objects {property, message, clients, time_ms}.
nlohmann::json violations_json(const std::vector<scenarios::Violation>& v);

}  // namespace zksim::cli
