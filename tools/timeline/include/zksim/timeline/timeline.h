// Pictures of one scenario run, for people: a text timeline for a terminal
// (`zksim replay`) and a self-contained HTML page (`zksim timeline --html`).
//
//   auto s = zksim::scenarios::load_scenario("scenarios/library/flawed-herd-lock.scn", &err);
//   auto run = zksim::scenarios::run_scenario(*s);
//   std::cout << zksim::timeline::text(*s, run);
//
// Both read only `s` and `run` (its history, violations and trace) and are
// deterministic: the same input gives the same bytes. Strings from the trace
// (paths, details) are shown safely: control characters and invalid UTF-8
// cannot break the text layout, and nothing in them can inject markup or
// script into the page.
//
// A run with an empty verdict is a trace from outside the harness (`zksim
// serve`'s control interface draws its trace so): the header then shows
// only the scenario's comments, and no verdict.
//
// What the trace does not say is inferred, and the page's tooltips say so:
// the name a sequential create got (from the paths later events use), which
// nodes a session's end removed (its leaves, unless later events show them
// alive), and when a fired watch was set (the client's latest read of that
// path before the event).
#pragma once

#include "zksim/scenarios/lease_scenario.h"
#include "zksim/scenarios/scenario.h"

#include <string>

namespace zksim::timeline {

// A text timeline of a run: a column per client (requests, responses, watch events, state changes, faults, holding/waiting).
std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run);

// A self-contained HTML page (no network fetches): swimlanes per client and per znode over simulated time.
std::string html(const scenarios::Scenario& s, const scenarios::ScenarioRun& run);

struct TextOptions {
  // Characters per client column, its two marker characters included;
  // at least 12 (smaller values are raised to 12).
  int column_width = 30;
  // Lines one cell may take in a row before the rest is cut with an ellipsis.
  int max_cell_lines = 3;
};

// text(s, run) with other column widths.
std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run, const TextOptions& options);

// A lease lock's run (lease_scenario.h) as a text timeline: a column per
// process (its calls and replies, messages and watch events, faults; when
// it waited, held and was paused) and one for the servers.
std::string lease_text(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                       const TextOptions& options = {});
// ... and as an HTML page: a swimlane per process and one for the servers.
std::string lease_html(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run);

}  // namespace zksim::timeline
