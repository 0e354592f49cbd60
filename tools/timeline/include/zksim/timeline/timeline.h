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
//
// Memory: the write_ functions write as they go. The text never holds more
// than a row; what it keeps besides the run grows with the run's clients,
// sessions, distinct paths and recipe calls, not with its trace events. A
// page draws every mark only of a run of at most HtmlOptions::max_marks
// marks; a larger run's page is folded (it says so at its top): per lane,
// time buckets of what happened, with the violations exact.
#pragma once

#include "zksim/scenarios/lease_scenario.h"
#include "zksim/scenarios/scenario.h"

#include <cstddef>
#include <iosfwd>
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
// The same bytes, written to `out` row by row as they are made (zksim
// replay): a long run's text need not fit in memory.
void write_text(std::ostream& out, const scenarios::Scenario& s, const scenarios::ScenarioRun& run,
                const TextOptions& options = {});

// The most marks (trace events, and the beginnings and ends of recipe
// calls) a page draws one by one; a run with more gets a folded page. A
// page takes about 160 bytes a mark, and headless Chromium took 41 s to
// draw one of 78,000 marks and 155 s (770 MB) one of 200,000, on a loaded
// two-core machine (docs/timelines.md).
inline constexpr std::size_t kMaxPageMarks = 100'000;

struct HtmlOptions {
  std::size_t max_marks = kMaxPageMarks;
};
// html(s, run), written to `out`; with `options.max_marks` other than the default (tests).
void write_html(std::ostream& out, const scenarios::Scenario& s, const scenarios::ScenarioRun& run,
                const HtmlOptions& options = {});

// A lease lock's run (lease_scenario.h) as a text timeline: a column per
// process (its calls and replies, messages and watch events, faults; when
// it waited, held and was paused) and one for the servers.
std::string lease_text(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                       const TextOptions& options = {});
void write_lease_text(std::ostream& out, const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                      const TextOptions& options = {});
// ... and as an HTML page: a swimlane per process and one for the servers.
std::string lease_html(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run);
void write_lease_html(std::ostream& out, const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                      const HtmlOptions& options = {});

}  // namespace zksim::timeline
