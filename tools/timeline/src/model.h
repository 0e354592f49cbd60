// What both pictures show, computed once from a scenario and its run:
// marks (things that happened at an instant, on a client's or the server's
// lane), spans (stretches of time: holding, waiting, paused, ...) and the
// lifetime of every znode. The renderers only lay this out.
//
// Memory: a run's trace is the run's own (its checkers read it whole); a
// model of every mark costs about half as much again (about 300 bytes a
// mark), so only the page of a run of at most kMaxPageMarks marks keeps one
// (Keep::Everything).
// The text timeline and the folded page keep the frame (Keep::Frame), whose
// size grows with the run's clients, sessions, distinct paths and recipe
// calls but not with its trace events, and stream the marks (each_mark).
#pragma once

#include "zksim/scenarios/lease_scenario.h"
#include "zksim/scenarios/scenario.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace zksim::timeline::detail {

inline constexpr int kServerLane = -1;

enum class MarkKind : std::uint8_t {
  Invoke,     // a recipe call began (history)
  Ok,         // ... and ended well
  Fail,       // ... failed: it did not happen
  Info,       // ... ended unknown (connection loss)
  Note,       // the client was told something outside a call (suspended, lost)
  Request,
  Response,   // ok
  Error,      // a response with an error
  Watch,      // a watch event reached the client
  State,      // the client's session state changed
  Fault,
  Server,     // the server acted on its own (session opened, expired, ...)
  Annotation,
};
const char* mark_kind_name(MarkKind k);

struct Mark {
  TimeMs t = 0;
  int lane = kServerLane;  // a client id, or kServerLane
  MarkKind kind = MarkKind::Annotation;
  bool alert = false;      // worth a second look: one change woke several clients
  std::string label;       // short, paths shortened (text cells)
  std::string detail;      // everything, paths in full (tooltips)
};

enum class SpanKind : std::uint8_t {
  Holding,       // the client believes it holds (checkers.h: Belief)
  Waiting,       // an acquire is in progress
  Call,          // another recipe call is in progress
  Paused,        // a pause fault stopped the client
  Disconnected,  // the client is reconnecting
  Unaware,       // the server expired the session; the client has not heard yet
  Crashed,       // the client's process is gone
  Watch,         // a watch set (inferred) until it fired
};
inline constexpr std::size_t kSpanKinds = static_cast<std::size_t>(SpanKind::Watch) + 1;
const char* span_kind_name(SpanKind k);

struct Span {
  int lane = 0;
  SpanKind kind = SpanKind::Call;
  TimeMs from = 0, to = -1;  // to = -1: until the end of the run
  std::string label;         // short
  std::string detail;        // tooltip
};

// What a model keeps. Everything: every mark, span (with its words) and
// znode, for the page. Frame: the header, verdict and violations, the
// clients, the base, the end and the spans that the text's markers and a
// folded page show (a ZooKeeper run's without watches or words), and no
// marks or znodes.
enum class Keep : std::uint8_t { Everything, Frame };

// The words a streamed mark carries: none (a folded page counts marks),
// its label (the text), or its label and detail, and whether it is an
// alert (the page).
enum class Words : std::uint8_t { None, Label, All };

using MarkVisitor = std::function<void(const Mark&)>;

struct Znode {
  std::string path;
  int client = -1;            // who created it (-1: unknown)
  TimeMs created = 0, deleted = -1;  // deleted = -1: still there at the end
  std::string detail;         // how it came and went, for a tooltip
};

struct Model {
  int clients = 0;
  std::string lane_prefix = "c";    // a lane's name: "c0" (a client), "p0" (a lease lock's process)
  std::string server_title = "server";
  std::vector<std::string> header;  // what ran: recipe, workload, faults, seed
  std::vector<std::string> legend;  // what the text's markers and labels mean
  std::vector<std::string> legend_kinds;  // the page's legend: only these kinds (empty: every kind)
  std::string verdict;              // "pass" or "violation <property>"
  std::string expected;             // the same words for the expectation
  bool as_expected = false;
  std::vector<scenarios::Violation> violations;
  std::vector<Mark> marks;          // in time order; at a time, in the order things happened (Keep::Everything)
  std::vector<Span> spans;          // by lane, then start
  std::vector<Znode> znodes;        // in creation order (Keep::Everything)
  std::string base;                 // the directory most paths are under ("" if none)
  TimeMs last = 0;                  // the time of the last mark, span edge or violation
  std::size_t trace_events = 0;
  std::size_t mark_count = 0;       // the run's marks, kept or not: whether its page is folded
  // Calls `visit` with every mark of the run, in the order of `marks`, one
  // at a time, with at least the words asked for. It reads the run the
  // model was built from, which must outlive it.
  std::function<void(Words, const MarkVisitor&)> each_mark;

  std::string lane(int l) const { return l == kServerLane ? server_title : lane_prefix + std::to_string(l); }
};

Model build_model(const scenarios::Scenario& s, const scenarios::ScenarioRun& run, Keep keep = Keep::Everything);
// A lease lock's run (lease_model.cpp): a lane per process, one for the servers.
Model build_lease_model(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                        Keep keep = Keep::Everything);

// The text timeline of any model (text.cpp), written to `out` row by row
// as its marks stream in (m.each_mark): a model of Keep::Frame will do.
void render_text(const Model& m, int column_width, int max_cell_lines, std::ostream& out);

// The page of a run (html.cpp), written to `out`; `recipe` names what ran
// in its title. `model(keep)` builds the run's model: a run of more than
// `max_marks` marks gets the folded page, drawn from its frame and its
// streamed marks; a smaller one every mark, from a model of everything.
void render_html(const std::function<Model(Keep)>& model, const std::string& recipe, std::size_t max_marks,
                 std::ostream& out);

// `path` for a narrow column: `base` itself as "…", under it as "…/name", a sequential
// suffix's leading zeros elided ("lock-0000000012" as "lock-…12").
std::string short_path(std::string_view path, std::string_view base);

// The spans of every client (spans.cpp), by lane and start; with
// Keep::Frame no watch spans and no words.
std::vector<Span> spans_of(const scenarios::History& h, const std::vector<TraceEvent>& trace,
                           Keep keep = Keep::Everything);

// The end of a model's time: its last mark, span edge or violation. A
// znode's times are those of trace events, so they never lie past it.
void set_last(Model& m, TimeMs last_mark);

// The lifetimes of the znodes the trace shows being created (znodes.cpp).
// `values` are paths the history names (e.g. the nodes acquires got), with
// the time each was first known.
std::vector<Znode> znode_lifetimes(const std::vector<TraceEvent>& trace,
                                   const std::vector<std::pair<std::string, TimeMs>>& values);

// A violation with neither a time nor clients is about the whole run (the
// end state, or a count over the run): listed, not placed in time.
bool about_whole_run(const scenarios::Violation& v);

// A request kind's name as the trace renders it; "close" for -1.
std::string request_name(std::int32_t code);

// "c0", or "server" for kServerLane.
std::string lane_name(int lane);

}  // namespace zksim::timeline::detail
