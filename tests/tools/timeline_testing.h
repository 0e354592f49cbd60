// Shared by the timeline tests: library scenarios and their runs, and a
// table row of the text timeline split into cells.
#pragma once

#include "zksim/scenarios/scenario.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zksim::timeline::testing {

struct Loaded {
  scenarios::Scenario scenario;
  scenarios::ScenarioRun run;
};

// Loads and runs scenarios/library/<name>.scn.
inline Loaded library_run(const std::string& name) {
  scenarios::ParseError e;
  auto s = scenarios::load_scenario(std::string(ZKSIM_LIBRARY_DIR) + "/" + name + ".scn", &e);
  if (!s) {
    ADD_FAILURE() << e.text();
    return {};
  }
  Loaded out{*s, scenarios::run_scenario(*s)};
  return out;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

inline int count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace zksim::timeline::testing
