#include "scenario_files.h"

#include "args.h"
#include "campaign.h"
#include "zksim/timeline/timeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace zksim::cli {

namespace fs = std::filesystem;

AnyScenario load_any_or_throw(const std::string& command, const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("zksim {}: {}: no such file", command, path));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("zksim {}: {}: is a directory, not a scenario file", command, path));
  std::ifstream f(path, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  if (!f) throw UsageError(fmt::format("zksim {}: {}: cannot read the file", command, path));
  AnyScenario out;
  scenarios::ParseError e;
  if (scenarios::is_lease_scenario(text.str())) {
    out.lease = scenarios::parse_lease_scenario(text.str(), path, &e);
  } else {
    out.zookeeper = scenarios::parse_scenario(text.str(), path, &e);
  }
  if (!out.lease && !out.zookeeper) {
    throw UsageError(e.line > 0 ? e.text() : fmt::format("zksim {}: {}: {}", command, path, e.message));
  }
  return out;
}

AnyRun run_any(const AnyScenario& s, const std::function<void(const AnyRun&, const TimelineWriter&)>& then) {
  AnyRun out;
  if (s.zookeeper) {
    // A verdict alone is made in a child process, where a recipe that
    // crashes gives the verdict "violation crashed".
    const scenarios::ScenarioRun r =
        then ? scenarios::run_scenario(*s.zookeeper) : scenarios::run_scenario_isolated(*s.zookeeper);
    out = {.verdict = r.verdict,
           .expected = expected_verdict(*s.zookeeper),
           .as_expected = r.as_expected,
           .trace_hash = r.result.trace_hash,
           .violations = violations_json(r.result.violations)};
    for (const scenarios::Violation& v : r.result.violations) {
      out.violation_lines.push_back(
          fmt::format("{} at t={} ms, clients {}: {}", v.property, v.time, client_names(v.clients), v.message));
    }
    if (then) then(out, [&](std::ostream& o) { timeline::write_text(o, *s.zookeeper, r); });
    return out;
  }
  const scenarios::LeaseScenarioRun r = scenarios::run_lease_scenario(*s.lease);
  out = {.verdict = r.verdict,
         .expected = s.lease->expect_violation ? fmt::format("violation {}", *s.lease->expect_violation)
                                               : std::string("pass"),
         .as_expected = r.as_expected,
         .trace_hash = r.run.trace_hash,
         .violations = nlohmann::json::array()};
  for (const Violation& v : r.run.violations) {
    out.violations.push_back(
        {{"property", v.property}, {"message", v.message}, {"clients", v.clients}, {"time_ms", v.time}});
    std::vector<std::string> who;
    for (int p : v.clients) who.push_back(fmt::format("p{}", p));
    out.violation_lines.push_back(fmt::format("{}{}{}: {}", v.property,
                                              v.time < 0 ? std::string(" of the whole run")
                                                         : fmt::format(" at t={} ms", v.time),
                                              who.empty() ? "" : fmt::format(", processes {}", fmt::join(who, ", ")),
                                              v.message));
  }
  if (then) then(out, [&](std::ostream& o) { timeline::write_lease_text(o, *s.lease, r); });
  return out;
}

std::vector<std::string> scenario_paths(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!fs::exists(a, ec)) throw UsageError(fmt::format("zksim {}: {}: no such file or directory", command, a));
    if (!fs::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(a, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".scn") found.push_back(e.path().string());
    }
    if (ec) throw UsageError(fmt::format("zksim {}: {}: {}", command, a, ec.message()));
    if (found.empty()) throw UsageError(fmt::format("zksim {}: {}: no .scn files in this directory", command, a));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string expected_verdict(const scenarios::Scenario& s) {
  return s.expect_violation ? fmt::format("violation {}", *s.expect_violation) : std::string("pass");
}

nlohmann::json violations_json(const std::vector<scenarios::Violation>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const scenarios::Violation& x : v) {
    out.push_back({{"property", x.property}, {"message", x.message}, {"clients", x.clients}, {"time_ms", x.time}});
  }
  return out;
}

}  // namespace zksim::cli
