#include "scenario_files.h"

#include "args.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace zksim::cli {

namespace fs = std::filesystem;

scenarios::Scenario load_or_throw(const std::string& command, const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("zksim {}: {}: no such file", command, path));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("zksim {}: {}: is a directory, not a scenario file", command, path));
  scenarios::ParseError e;
  auto s = scenarios::load_scenario(path, &e);
  if (!s) throw UsageError(e.line > 0 ? e.text() : fmt::format("zksim {}: {}: {}", command, path, e.message));
  return *s;
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
