// zksim replay FILE: re-runs a scenario, prints its text timeline and the
// verdict. zksim timeline FILE --html OUT: the same run as an HTML page.
#include "campaign.h"
#include "commands.h"
#include "common.h"
#include "scenario_files.h"
#include "zksim/timeline/timeline.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <streambuf>

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

namespace {

// Writes what passes through it to stdout as the inside of a JSON string
// (no quotes), escaped as nlohmann::json escapes it, a line at a time.
// REQUIRES: valid UTF-8 (the text timeline is).
class JsonStringOut : public std::streambuf {
 public:
  ~JsonStringOut() override { flush_lines(/*all=*/true); }

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) pending_ += static_cast<char>(c);
    if (c == '\n') flush_lines(false);
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, static_cast<std::size_t>(n));
    flush_lines(false);
    return n;
  }

 private:
  // Up to the last line end (or everything): whole lines are whole code points.
  void flush_lines(bool all) {
    std::size_t end = pending_.size();
    if (!all) {
      const std::size_t line_end = pending_.rfind('\n');
      end = line_end == std::string::npos ? 0 : line_end + 1;
    }
    if (end == 0) return;
    const std::string quoted = nlohmann::json(std::string_view(pending_).substr(0, end)).dump();
    std::fwrite(quoted.data() + 1, 1, quoted.size() - 2, stdout);
    pending_.erase(0, end);
  }
  std::string pending_;
};

// `j` as print_json prints it, with the string `field` (empty in `j`)
// written by `write` into it as it is made.
void print_json_streaming(const nlohmann::json& j, const std::string& field, const TimelineWriter& write) {
  const std::string doc = j.dump(2);
  const std::string key = fmt::format("\n  \"{}\": \"\"", field);
  const std::size_t at = doc.find(key);
  std::fwrite(doc.data(), 1, at + key.size() - 1, stdout);
  {
    JsonStringOut escaped;
    std::ostream out(&escaped);
    write(out);
  }
  std::fputs(doc.c_str() + at + key.size() - 1, stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int replay_main(const Args& args) {
  const std::string& path = args.positional[0];
  // The text timeline is streamed as the run is drawn, never folded:
  // whoever replays a run wants every event of it (to page through or
  // grep), and its header gives the verdict and violations first. So a
  // run of millions of events costs no more memory to print than a short
  // one (docs/timelines.md).
  const AnyRun r = run_any(load_any_or_throw("replay", path), [&](const AnyRun& found, const TimelineWriter& timeline) {
    if (args.flag("--json")) {
      print_json_streaming({{"file", path},
                            {"verdict", found.verdict},
                            {"expected", found.expected},
                            {"as_expected", found.as_expected},
                            {"trace_hash", fmt::format("{:016x}", found.trace_hash)},
                            {"violations", found.violations},
                            {"timeline", ""}},
                           "timeline", timeline);
      return;
    }
    timeline(std::cout);
    std::cout.flush();
    std::string out = fmt::format("verdict: {} (expected {}{})\n", found.verdict, found.expected,
                                  found.as_expected ? "" : "; NOT as expected");
    for (const std::string& line : found.violation_lines) out += fmt::format("  {}\n", line);
    std::fputs(out.c_str(), stdout);
  });
  return r.as_expected ? 0 : 1;
}

int timeline_main(const Args& args) {
  if (!args.has("--html")) throw UsageError("zksim timeline: --html OUT is required (see 'zksim timeline --help')");
  const std::string out_path = args.text("--html", "");
  const AnyScenario any = load_any_or_throw("timeline", args.positional[0]);
  // Streamed to the file (a page may be large): checked before the run,
  // and the system's reason given if writing fails all the same.
  check_output_file("zksim timeline --html", out_path);
  const auto cannot = [&] {
    return UsageError(fmt::format("zksim timeline --html: cannot write {}: {}", out_path, std::strerror(errno)));
  };
  std::ofstream out(out_path, std::ios::binary);
  if (!out) throw cannot();
  std::string verdict;
  if (any.zookeeper) {
    const scenarios::ScenarioRun r = scenarios::run_scenario(*any.zookeeper);
    timeline::write_html(out, *any.zookeeper, r);
    verdict = r.verdict;
  } else {
    const scenarios::LeaseScenarioRun r = scenarios::run_lease_scenario(*any.lease);
    timeline::write_lease_html(out, *any.lease, r);
    verdict = r.verdict;
  }
  const std::streamoff bytes = out.tellp();
  out.close();
  if (!out) throw cannot();
  std::puts(fmt::format("wrote {} ({} bytes; verdict: {})", out_path, bytes, verdict).c_str());
  return 0;
}

}  // namespace zksim::cli
