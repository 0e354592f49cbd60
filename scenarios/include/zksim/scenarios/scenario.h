// Scenario files (*.scn): a run written down so it replays exactly. Plain
// text, one directive per line, '#' starts a comment, versioned:
//
//   zksim-scenario 2                # version 1 files are read too
//   plugin libmy_recipes.so         # loaded first (plugin.h); relative to this file
//   recipe lock                     # see recipe_names()
//   clients 5
//   rounds 10
//   hold-ms 5                       # also: think-ms timeout-ms session-timeout-ms leases
//   producers 2                     # queues: how many clients put (at most clients)
//   reentrant no
//   varied yes                      # operation sequences drawn per run (Workload::varied)
//   client curator                  # the client library (flavour.h); several: client i
//                                   # takes the (i mod n)th; default c; any: each run
//                                   # draws them (Workload::draw_flavours)
//   nemesis pause 30                # per-mille rate of a fault class (repeatable)
//   nemesis-pause-ms 3000           # also: nemesis-delay-ms
//   nemesis-window-ms 50            # time-triggered classes: a window's length
//                                   # (default: timed_window_of the workload; in a
//                                   # version 1 file 1000) and the first's start,
//   nemesis-first-window-ms 0       # (default 0; in a version 1 file 1000)
//   delay-choices 3                 # message delay spread (1: none)
//   fault expire-session client 1 at 1200
//   fault drop-after-apply client 0 on create nth 3
//   strategy fixed-latency          # how it was found (strategy.h); default random
//   seed 42                         # or: decisions 0 0 3 1 ... (repeatable)
//   expect pass                     # or: expect violation mutual-exclusion (see property_names())
//
// A seed alone runs seeded; otherwise the decision list replays (past its
// end, and if empty, every decision is 0: nothing more goes wrong; a seed
// next to a list only says where the list came from). The strategy changes
// nothing in the run, but must be how the file runs: fixed-latency needs
// delay-choices 1, and a dfs schedule has no seed. Each directive is
// given at most once, but for fault and decisions lines (they add up) and
// nemesis (once per fault class). Errors are "file:line:col: message", with
// control bytes of the file shown as \xNN.
#pragma once

#include "zksim/result.h"
#include "zksim/scenarios/strategy.h"
#include "zksim/scenarios/workload.h"

#include <optional>
#include <string>
#include <vector>

namespace zksim::scenarios {

struct Scenario {
  std::vector<std::string> plugins;  // the plugin files it loaded (absolute); written back with its recipe's
  Workload workload;
  WorldConfig config;
  std::vector<ScriptedFault> faults;
  std::optional<std::uint64_t> seed;
  std::vector<std::uint32_t> decisions;
  Strategy strategy = Strategy::Random;          // how the run was found; written unless random
  std::optional<std::string> expect_violation;  // nullopt: expect pass
  std::vector<std::string> comments;             // written at the top
};

// A parse error: where, and what.
struct ParseError {
  std::string file;
  int line = 0, col = 0;
  std::string message;
  std::string text() const;  // "file:line:col: message"
};

// Parses `text` (named `file` in errors).
std::optional<Scenario> parse_scenario(const std::string& text, const std::string& file,
                                       ParseError* error);
// Reads and parses a file; a missing file is a ParseError at 0:0.
std::optional<Scenario> load_scenario(const std::string& path, ParseError* error);
// The file text for `s`; parse_scenario(write_scenario(s)) gives `s` back.
std::string write_scenario(const Scenario& s);

struct ScenarioRun {
  RunResult result;
  bool as_expected = false;
  std::string verdict;  // "pass" or "violation <property>"
};

// Runs a scenario with its seed or decision list (`keep` as in run()).
ScenarioRun run_scenario(const Scenario& s, KeepTrace keep = KeepTrace::Yes);
// The same run made in a child process (keeping no trace; the result's
// violations and trace hash set): a recipe that crashes gives a "crashed"
// violation, the verdict "violation crashed", instead of ending this one.
ScenarioRun run_scenario_isolated(const Scenario& s);

}  // namespace zksim::scenarios
