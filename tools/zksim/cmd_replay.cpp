// zksim replay FILE: re-runs a scenario, prints its text timeline and the
// verdict. zksim timeline FILE --html OUT: the same run as an HTML page.
#include "campaign.h"
#include "commands.h"
#include "common.h"
#include "scenario_files.h"
#include "zksim/timeline/timeline.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace zksim::cli {

CommandSpec replay_spec() {
  return CommandSpec{
      .name = "replay",
      .summary = "re-run a scenario file and print its timeline and verdict",
      .positional = "FILE",
      .min_positional = 1,
      .max_positional = 1,
      .options = {{"--json", "", "print JSON: {file, verdict, expected, as_expected, trace_hash, violations, timeline}"}},
      .details = "The timeline has a column per client: requests, responses, watch events, session\n"
                 "states, faults, and when it held or waited. The last lines give the verdict.\n"
                 "Exit status: 0 when the verdict is the one the file expects, 1 otherwise."};
}

CommandSpec timeline_spec() {
  return CommandSpec{
      .name = "timeline",
      .summary = "draw a scenario's run as a self-contained HTML page",
      .positional = "FILE",
      .min_positional = 1,
      .max_positional = 1,
      .options = {{"--html", "OUT", "the page to write (required)"}},
      .details = "The page needs no network: a swimlane per client and per znode over simulated time\n"
                 "(a lease lock's scenario: per process, and one for the servers).\n"
                 "Exit status: 0 when the page was written, 2 on bad input."};
}

int replay_main(const Args& args) {
  const std::string& path = args.positional[0];
  const AnyRun r = run_any(load_any_or_throw("replay", path), /*with_timeline=*/true);
  if (args.flag("--json")) {
    print_json({{"file", path},
                {"verdict", r.verdict},
                {"expected", r.expected},
                {"as_expected", r.as_expected},
                {"trace_hash", fmt::format("{:016x}", r.trace_hash)},
                {"violations", r.violations},
                {"timeline", r.timeline}});
  } else {
    std::string out = r.timeline;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += fmt::format("verdict: {} (expected {}{})\n", r.verdict, r.expected, r.as_expected ? "" : "; NOT as expected");
    for (const std::string& line : r.violation_lines) out += fmt::format("  {}\n", line);
    std::fputs(out.c_str(), stdout);
  }
  return r.as_expected ? 0 : 1;
}

int timeline_main(const Args& args) {
  if (!args.has("--html")) throw UsageError("zksim timeline: --html OUT is required (see 'zksim timeline --help')");
  const std::string out_path = args.text("--html", "");
  const AnyScenario any = load_any_or_throw("timeline", args.positional[0]);
  std::string page, verdict;
  if (any.zookeeper) {
    const scenarios::ScenarioRun r = scenarios::run_scenario(*any.zookeeper);
    page = timeline::html(*any.zookeeper, r);
    verdict = r.verdict;
  } else {
    const scenarios::LeaseScenarioRun r = scenarios::run_lease_scenario(*any.lease);
    page = timeline::lease_html(*any.lease, r);
    verdict = r.verdict;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << page;
  out.close();
  if (!out) throw UsageError(fmt::format("zksim timeline: cannot write {}", out_path));
  std::puts(fmt::format("wrote {} ({} bytes; verdict: {})", out_path, page.size(), verdict).c_str());
  return 0;
}

}  // namespace zksim::cli
