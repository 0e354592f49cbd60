// The model of a lease lock's run: its trace's events as marks on the
// process that made or got them (or the servers'), and spans from the
// harness's own record: waiting (acquire called) and holding (acquire
// returned until release), and the process's pauses.
#include "model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace zksim::timeline::detail {
namespace {

std::vector<std::string> lease_header(const scenarios::LeaseScenario& s) {
  const lease::LeaseWorkload& w = s.workload;
  std::vector<std::string> out;
  for (const std::string& c : s.comments) out.push_back(fmt::format("# {}", c));
  out.push_back(fmt::format("lease lock {}: {} processes, {} rounds, hold {}, think {} ms", w.recipe, w.clients,
                            w.rounds, w.hold_ms > 0 ? fmt::format("{} ms", w.hold_ms) : "the recipe's own", w.think_ms));
  std::vector<std::string> faults;
  for (const lease::LeaseFault f : w.faults) faults.emplace_back(lease::lease_fault_name(f));
  out.push_back(faults.empty() || w.fault_per_mille == 0
                    ? std::string("faults: none")
                    : fmt::format("faults: {} at {} per 1000 strike points", fmt::join(faults, ", "), w.fault_per_mille));
  std::string replay = s.seed ? fmt::format("seed {}", *s.seed) : std::string();
  if (!s.decisions.empty()) {
    replay += fmt::format("{}{} recorded decisions", replay.empty() ? "" : ", replayed from ", s.decisions.size());
  }
  out.push_back(replay.empty() ? std::string("no decisions: the most boring schedule") : replay);
  return out;
}

// A trace line's kind and its short label: "-> redis0 SET k v" is a
// request ("> redis0 SET k v"), "<- ..." a reply, a message or a watch
// event, "fault: ..." a fault; the rest are the harness's notes.
Mark mark_of(const TraceEvent& e) {
  Mark k{.t = e.time, .lane = e.client < 0 ? kServerLane : e.client, .detail = e.detail};
  std::string_view d = e.detail;
  if (d.starts_with("-> ")) {
    k.kind = MarkKind::Request;
    k.label = fmt::format("> {}", d.substr(3));
  } else if (d.starts_with("<- ")) {
    const bool event = d.find(" message ") != std::string_view::npos || d.find(" watch ") != std::string_view::npos;
    const bool none = d.find("no answer") != std::string_view::npos;
    k.kind = event ? MarkKind::Watch : none ? MarkKind::Error : MarkKind::Response;
    k.label = fmt::format("{} {}", event ? "!" : "<", d.substr(3));
  } else if (d.starts_with("fault: ")) {
    k.kind = MarkKind::Fault;
    k.label = fmt::format("** {}", d.substr(7));
  } else {
    k.kind = e.client < 0 ? MarkKind::Server : MarkKind::Annotation;
    k.label = std::string(d);
  }
  return k;
}

}  // namespace

Model build_lease_model(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run, Keep keep) {
  const lease::LeaseRun& r = run.run;
  Model m{.lane_prefix = "p", .server_title = "servers"};
  m.header = lease_header(s);
  m.legend = {"markers: # holding  : waiting (acquire called)  z paused",
              "events: > request  < reply  ! pub/sub message or watch event  ** fault"};
  m.legend_kinds = {"holding", "waiting", "paused", "request", "error", "watch", "fault", "server", "band"};
  m.verdict = run.verdict;
  m.expected = s.expect_violation ? fmt::format("violation {}", *s.expect_violation) : std::string("pass");
  m.as_expected = run.as_expected;
  for (const Violation& v : r.violations) {
    // One without a time (resource-exclusion: the order of writes) is
    // listed as the whole run's; its message names the processes.
    if (v.time < 0) {
      m.violations.push_back({.property = v.property, .message = v.message});
    } else {
      m.violations.push_back({.property = v.property, .message = v.message, .clients = v.clients, .time = v.time});
    }
  }
  m.trace_events = r.events.size();
  m.mark_count = r.events.size();
  m.each_mark = [&r](Words, const MarkVisitor& visit) {
    for (const TraceEvent& e : r.events) visit(mark_of(e));
  };
  for (const lease::LeaseHold& h : r.hold_list) {
    m.spans.push_back({.lane = h.process, .kind = SpanKind::Waiting, .from = h.asked, .to = h.start, .label = "waits"});
    m.spans.push_back({.lane = h.process,
                       .kind = SpanKind::Holding,
                       .from = h.start,
                       .to = h.end == lease::kNever ? -1 : h.end,
                       .label = fmt::format("hold {}", h.number)});
  }
  for (std::size_t p = 0; p < r.pauses.size(); ++p) {
    for (const auto& [from, to] : r.pauses[p]) {
      m.spans.push_back({.lane = static_cast<int>(p), .kind = SpanKind::Paused, .from = from, .to = to, .label = "paused"});
    }
  }
  std::ranges::stable_sort(m.spans, [](const Span& a, const Span& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.from < b.from;
  });
  m.clients = std::max(s.workload.clients, 0);
  TimeMs last_mark = 0;
  for (const TraceEvent& e : r.events) {
    m.clients = std::max(m.clients, e.client + 1);
    last_mark = std::max(last_mark, e.time);
  }
  set_last(m, last_mark);
  if (keep == Keep::Everything) {
    m.marks.reserve(m.mark_count);
    m.each_mark(Words::All, [&m](const Mark& k) { m.marks.push_back(k); });
  }
  return m;
}

}  // namespace zksim::timeline::detail
