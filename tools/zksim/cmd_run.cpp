// zksim run FILE|DIR...: runs scenario files and compares each verdict with
// the file's expectation.
#include "commands.h"
#include "common.h"
#include "scenario_files.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zksim::cli {

CommandSpec run_spec() {
  return CommandSpec{
      .name = "run",
      .summary = "run scenario files and check each verdict against its expectation",
      .positional = "FILE|DIR...",
      .min_positional = 1,
      .max_positional = -1,
      .options = {{"--json", "", "print JSON: {files: [{file, verdict, expected, as_expected, ...}], ...}"}},
      .details = "A directory stands for every .scn file under it; a file is a ZooKeeper recipe's scenario\n"
                 "or a lease lock's ('zksim lease --save'). Every file is read before any runs,\n"
                 "so a malformed one stops the command (exit 2) with 'file:line:col: message'.\n"
                 "Exit status: 0 when every file behaves as it expects, 1 otherwise."};
}

int run_main(const Args& args) {
  const std::vector<std::string> paths = scenario_paths("run", args.positional);
  std::vector<AnyScenario> loaded;
  for (const std::string& p : paths) loaded.push_back(load_any_or_throw("run", p));
  nlohmann::json files = nlohmann::json::array();
  int unexpected = 0;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const AnyRun r = run_any(loaded[i]);
    if (!r.as_expected) ++unexpected;
    if (args.flag("--json")) {
      files.push_back({{"file", paths[i]},
                       {"verdict", r.verdict},
                       {"expected", r.expected},
                       {"as_expected", r.as_expected},
                       {"trace_hash", fmt::format("{:016x}", r.trace_hash)},
                       {"violations", r.violations}});
    } else {
      std::string line = fmt::format("{:<5} {}: {}", r.as_expected ? "ok" : "FAIL", paths[i], r.verdict);
      if (!r.as_expected) line += fmt::format(" (expected {})", r.expected);
      std::puts(line.c_str());
    }
  }
  const int ok = static_cast<int>(paths.size()) - unexpected;
  if (args.flag("--json")) {
    print_json({{"files", files}, {"as_expected", ok}, {"unexpected", unexpected}});
  } else {
    std::puts(fmt::format("{} scenario file{}: {} as expected, {} not", paths.size(), paths.size() == 1 ? "" : "s",
                          ok, unexpected).c_str());
  }
  return unexpected == 0 ? 0 : 1;
}

}  // namespace zksim::cli
