#include "model.h"

#include "zksim/client.h"
#include "zksim/zk_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace zksim::timeline::detail {
namespace {

using scenarios::History;
using scenarios::Op;
using scenarios::Outcome;

// Watch event types in few letters, for narrow columns.
std::string_view short_event_name(EventType t) {
  switch (t) {
    case EventType::NodeCreated: return "created";
    case EventType::NodeDeleted: return "deleted";
    case EventType::NodeDataChanged: return "changed";
    case EventType::NodeChildrenChanged: return "children";
    case EventType::None: return "session";
  }
  return "?";
}

std::string_view server_action_name(std::int32_t code) {
  switch (static_cast<ServerAction>(code)) {
    case ServerAction::SessionOpened: return "session opened";
    case ServerAction::SessionExpired: return "session expired";
    case ServerAction::SessionClosed: return "session closed";
    case ServerAction::Reaped: return "reaped";
    case ServerAction::ConnectionRefused: return "connection refused";
    case ServerAction::ServerCrashed: return "server crashed";
    case ServerAction::ServerRestarted: return "server restarted";
    case ServerAction::LeaderElected: return "leader elected";
    case ServerAction::LagBurst: return "follower lags";
    case ServerAction::FollowerCut: return "follower cut off";
    case ServerAction::FollowerLooking: return "follower looking";
    case ServerAction::FollowerRejoined: return "follower rejoined";
    case ServerAction::WriteRefused: return "held write refused";
  }
  return "?";
}

// The directory the most distinct trace paths are directly under.
std::string common_base(const std::vector<TraceEvent>& trace) {
  std::set<std::string> paths;
  for (const TraceEvent& e : trace) paths.insert(e.path);
  std::map<std::string, int> count;
  for (const std::string& p : paths) {
    auto slash = p.rfind('/');
    if (slash != std::string::npos && slash != 0) ++count[p.substr(0, slash)];
  }
  std::string best;
  int most = 0;
  for (const auto& [dir, n] : count) {
    if (n > most) best = dir, most = n;
  }
  return best;
}

std::vector<std::string> header_lines(const scenarios::Scenario& s) {
  const scenarios::Workload& w = s.workload;
  std::vector<std::string> out;
  for (const std::string& c : s.comments) out.push_back(fmt::format("# {}", c));
  std::string what = fmt::format("recipe {}: {} clients, {} rounds, hold {} ms, think {} ms, session timeout {} ms",
                                 w.recipe, w.clients, w.rounds, w.hold_ms, w.think_ms, w.session_timeout_ms);
  if (w.timeout_ms >= 0) what += fmt::format(", acquire timeout {} ms", w.timeout_ms);
  if (w.reentrant) what += ", reentrant";
  if (w.recipe == "semaphore") what += fmt::format(", {} leases", w.leases);
  out.push_back(what);
  // The fault plan in the scenario file's own words.
  std::string faults;
  const std::string file = scenarios::write_scenario(s);
  for (std::size_t at = 0; at < file.size();) {
    std::size_t end = file.find('\n', at);
    if (end == std::string::npos) end = file.size();
    std::string_view line(file.data() + at, end - at);
    if (line.starts_with("fault ") || line.starts_with("nemesis")) {
      faults += fmt::format("{}{}", faults.empty() ? "" : "; ", line);
    }
    at = end + 1;
  }
  out.push_back(fmt::format("faults: {}", faults.empty() ? std::string("none") : faults));
  std::string replay = s.seed ? fmt::format("seed {}", *s.seed) : std::string();
  if (!s.decisions.empty()) {
    replay += fmt::format("{}{} recorded decisions", replay.empty() ? "" : ", replayed from ", s.decisions.size());
  }
  out.push_back(replay.empty() ? std::string("no decisions: the most boring schedule") : replay);
  return out;
}

// The marks of a run, made one at a time from its trace and history. What
// it keeps besides them: the sessions' clients, and an index of the
// history's steps (its calls' beginnings and ends, and its notes) in time
// order.
struct Builder {
  const std::vector<TraceEvent>& trace;
  const History& history;
  std::string base;
  std::map<std::int64_t, int> client_of;  // session id -> client

  // A step of the history: which op's invoke or completion, or which note.
  enum class Which : std::uint8_t { Invoke, Done, Note };
  struct Step {
    std::uint32_t index;  // into history.ops() or history.notes()
    Which which;
  };
  std::vector<Step> steps;  // by time, then recording order

  TimeMs time(Step s) const {
    if (s.which == Which::Note) return history.notes()[s.index].time;
    const Op& o = history.ops()[s.index];
    return s.which == Which::Invoke ? o.invoked : o.completed;
  }
  std::uint64_t seq(Step s) const {
    if (s.which == Which::Note) return history.notes()[s.index].seq;
    const Op& o = history.ops()[s.index];
    return s.which == Which::Invoke ? o.invoke_seq : o.complete_seq;
  }
  int client(Step s) const {
    return s.which == Which::Note ? history.notes()[s.index].client : history.ops()[s.index].client;
  }

  Builder(const std::vector<TraceEvent>& t, const History& h) : trace(t), history(h), base(common_base(t)) {
    for (const TraceEvent& e : trace) {
      if (e.client >= 0 && e.session.value != 0) client_of.emplace(e.session.value, e.client);
    }
    for (std::uint32_t i = 0; i < history.ops().size(); ++i) {
      steps.push_back({i, Which::Invoke});
      if (history.ops()[i].outcome != Outcome::Pending) steps.push_back({i, Which::Done});
    }
    for (std::uint32_t i = 0; i < history.notes().size(); ++i) steps.push_back({i, Which::Note});
    std::stable_sort(steps.begin(), steps.end(), [this](Step a, Step b) {
      const TimeMs ta = time(a), tb = time(b);
      return ta != tb ? ta < tb : seq(a) < seq(b);
    });
  }

  std::string sp(std::string_view path) const { return short_path(path, base); }
  std::string client_of_session(SessionId s) const {
    auto it = client_of.find(s.value);
    return it == client_of.end() ? fmt::format("session {:#x}", static_cast<std::uint64_t>(s.value))
                                  : lane_name(it->second);
  }

  Mark trace_mark(const TraceEvent& e, Words words) const {
    Mark k{e.time, e.client < 0 ? kServerLane : e.client};
    const bool label = words != Words::None, detail = words == Words::All;
    switch (e.kind) {
      case TraceKind::Request:
        k.kind = MarkKind::Request;
        if (label) k.label = fmt::format("> {} {}", request_name(e.code), sp(e.path));
        if (detail) k.detail = fmt::format("t={} {} sent {} {} (xid {})", e.time, lane_name(k.lane), request_name(e.code), e.path, e.xid);
        break;
      case TraceKind::Response: {
        const auto err = static_cast<Error>(e.code);
        k.kind = err == Error::Ok ? MarkKind::Response : MarkKind::Error;
        if (label) k.label = err == Error::Ok ? std::string("< ok") : fmt::format("< {}", error_name(err));
        if (detail) {
          k.detail = fmt::format("t={} {} got {} for {} {} (xid {}, zxid {:#x})", e.time, lane_name(k.lane),
                                 error_name(err), request_name(e.code2), e.path, e.xid, e.zxid);
        }
        break;
      }
      case TraceKind::Watch: {
        const auto type = event_type_name(static_cast<EventType>(e.code));
        k.kind = MarkKind::Watch;
        if (label) k.label = fmt::format("! {} {}", short_event_name(static_cast<EventType>(e.code)), sp(e.path));
        if (detail) k.detail = fmt::format("t={} {} got watch event {} {} (zxid {:#x})", e.time, lane_name(k.lane), type, e.path, e.zxid);
        break;
      }
      case TraceKind::State:
        k.kind = MarkKind::State;
        if (label) k.label = fmt::format("= {}", session_state_name(e.code));
        if (detail) {
          k.detail = fmt::format("t={} {} is {} (session {:#x})", e.time, lane_name(k.lane), session_state_name(e.code),
                                 static_cast<std::uint64_t>(e.session.value));
        }
        break;
      case TraceKind::Fault: {
        k.kind = MarkKind::Fault;
        if (label) {
          std::string what(fault_kind_name(e.code));
          if (!e.path.empty()) what += fmt::format(" {}", sp(e.path));
          if (!e.detail.empty()) what += fmt::format(": {}", e.detail);
          // op-chain's first fault (fault.h) ends "; op-chain <chain> on
          // <kind>": a cell has room for the chain and the kind, which say
          // what the drop did too.
          if (const auto chain = e.detail.find("; op-chain "); chain != std::string::npos) {
            what = e.detail.substr(chain + 11);
            if (const auto on = what.find(" on "); on != std::string::npos) what.replace(on, 4, " ");
          }
          k.label = fmt::format("** {}", what);
        }
        if (detail) {
          k.detail = fmt::format("t={} fault on {}: {}{}{}{}{}", e.time, lane_name(k.lane), fault_kind_name(e.code),
                                 e.path.empty() ? "" : " ", e.path, e.detail.empty() ? "" : ": ", e.detail);
        }
        break;
      }
      case TraceKind::Server: {
        k.kind = MarkKind::Server;
        if (!label) break;
        const bool session = e.code != static_cast<std::int32_t>(ServerAction::Reaped);
        const std::string who = session ? client_of_session(e.session) + " " : std::string();
        k.label = fmt::format("{}{}", who, server_action_name(e.code));
        if (detail) {
          k.detail = fmt::format("t={} server: {}{} (session {:#x}, zxid {:#x}){}{}", e.time, who,
                                 server_action_name(e.code), static_cast<std::uint64_t>(e.session.value), e.zxid,
                                 e.path.empty() ? "" : " ", e.path);
        }
        break;
      }
      case TraceKind::Annotation:
        k.kind = MarkKind::Annotation;
        if (label) k.label = fmt::format("// {}", e.detail);
        if (detail) k.detail = fmt::format("t={} {}: {}", e.time, lane_name(k.lane), e.detail);
        break;
      case TraceKind::Listener: {
        const auto state = keeper_state_name(static_cast<KeeperState>(e.code));
        k.kind = MarkKind::State;
        if (label) k.label = fmt::format("=> {}", state);
        if (detail) k.detail = fmt::format("t={} {}'s listener thread told its listeners {}", e.time, lane_name(k.lane), state);
        break;
      }
    }
    return k;
  }

  // A history step's mark: a call's beginning or end, or a note.
  Mark step_mark(const Step& step, Words words) const {
    const bool label = words != Words::None, detail = words == Words::All;
    if (step.which == Which::Note) {
      const scenarios::Note& n = history.notes()[step.index];
      Mark note{n.time, n.client, MarkKind::Note};
      if (label) note.label = fmt::format("told {}", n.what);
      if (detail) note.detail = fmt::format("t={} {} was told: {}", n.time, lane_name(n.client), n.what);
      return note;
    }
    const Op& o = history.ops()[step.index];
    if (step.which == Which::Invoke) {
      Mark inv{o.invoked, o.client, MarkKind::Invoke};
      if (label) inv.label = o.f + "()";
      if (detail) inv.detail = fmt::format("t={} {} called {}", o.invoked, lane_name(o.client), o.f);
      return inv;
    }
    Mark done{o.completed, o.client};
    done.kind = o.outcome == Outcome::Ok ? MarkKind::Ok : o.outcome == Outcome::Fail ? MarkKind::Fail : MarkKind::Info;
    if (label) {
      std::string value = o.value.empty() || o.value.front() == '/' ? std::string() : fmt::format(" {}", o.value);
      if (o.outcome == Outcome::Ok) {
        done.label = fmt::format("{} ok{}{}", o.f, value, o.fence ? fmt::format(" fence {}", o.fence) : "");
      } else {
        done.label = fmt::format("{} {} {}", o.f, o.outcome == Outcome::Fail ? "FAIL" : "INFO", error_name(o.error));
      }
    }
    if (detail) {
      done.detail = fmt::format("t={} {} {} {} (called at t={}){}{}{}{}", o.completed, lane_name(o.client), o.f,
                                outcome_name(o.outcome), o.invoked,
                                o.outcome == Outcome::Ok ? "" : fmt::format(": {}", error_name(o.error)),
                                o.value.empty() ? "" : " ", o.value, o.fence ? fmt::format(", fence {}", o.fence) : "");
      if (o.outcome == Outcome::Info) done.detail += " (outcome unknown)";
    }
    return done;
  }

  // At one instant the history and the trace were recorded apart: calls
  // begin before the requests they send, and end (or hear news) after the
  // replies and events that caused it.
  void each_mark(Words words, const MarkVisitor& visit) const {
    // Watch events per change: one change that woke several clients (a
    // herd) deserves a second look (the page's alert).
    std::map<std::tuple<std::int64_t, std::string, std::int32_t>, int> woken;
    if (words == Words::All) {
      for (const TraceEvent& e : trace) {
        if (e.kind == TraceKind::Watch && e.zxid != 0) ++woken[{e.zxid, e.path, e.code}];
      }
    }
    auto add_trace = [&](const TraceEvent& e) {
      Mark k = trace_mark(e, words);
      const int n = words == Words::All && e.kind == TraceKind::Watch && e.zxid != 0 ? woken[{e.zxid, e.path, e.code}] : 1;
      if (n > 1) {
        k.alert = true;
        k.detail += fmt::format("; this one change woke {} clients", n);
      }
      visit(k);
    };
    std::size_t h = 0, t = 0;
    while (h < steps.size() || t < trace.size()) {
      const TimeMs now = std::min(h < steps.size() ? time(steps[h]) : INT64_MAX, t < trace.size() ? trace[t].time : INT64_MAX);
      for (; h < steps.size() && time(steps[h]) == now && steps[h].which == Which::Invoke; ++h) visit(step_mark(steps[h], words));
      for (; t < trace.size() && trace[t].time == now; ++t) add_trace(trace[t]);
      for (; h < steps.size() && time(steps[h]) == now; ++h) visit(step_mark(steps[h], words));
    }
  }
};

}  // namespace

const char* mark_kind_name(MarkKind k) {
  switch (k) {
    case MarkKind::Invoke: return "invoke";
    case MarkKind::Ok: return "ok";
    case MarkKind::Fail: return "fail";
    case MarkKind::Info: return "info";
    case MarkKind::Note: return "note";
    case MarkKind::Request: return "request";
    case MarkKind::Response: return "response";
    case MarkKind::Error: return "error";
    case MarkKind::Watch: return "watch";
    case MarkKind::State: return "state";
    case MarkKind::Fault: return "fault";
    case MarkKind::Server: return "server";
    case MarkKind::Annotation: return "annotation";
  }
  return "?";
}

const char* span_kind_name(SpanKind k) {
  switch (k) {
    case SpanKind::Holding: return "holding";
    case SpanKind::Waiting: return "waiting";
    case SpanKind::Call: return "call";
    case SpanKind::Paused: return "paused";
    case SpanKind::Disconnected: return "disconnected";
    case SpanKind::Unaware: return "unaware";
    case SpanKind::Crashed: return "crashed";
    case SpanKind::Watch: return "watch";
  }
  return "?";
}

std::string request_name(std::int32_t code) {
  return code < 0 ? std::string("close") : std::string(request_kind_name(code));
}

bool about_whole_run(const scenarios::Violation& v) { return v.time == 0 && v.clients.empty(); }

std::string lane_name(int lane) { return lane == kServerLane ? std::string("server") : fmt::format("c{}", lane); }

std::string short_path(std::string_view path, std::string_view base) {
  if (!base.empty() && path == base) return "\xE2\x80\xA6";
  std::string out(path);
  if (!base.empty() && path.size() > base.size() + 1 && path.starts_with(base) && path[base.size()] == '/') {
    out = fmt::format("\u2026{}", path.substr(base.size()));
  }
  // A sequential suffix: ten digits at the end of the name, leading zeros elided.
  const std::size_t n = out.size();
  if (n >= 11 && out[n - 10] == '0' && out[n - 11] != '/' &&
      std::all_of(out.end() - 10, out.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::size_t first = n - 10;
    while (first < n - 1 && out[first] == '0') ++first;
    out = out.substr(0, n - 10) + "\xE2\x80\xA6" + out.substr(first);
  }
  return out;
}

void set_last(Model& m, TimeMs last_mark) {
  m.last = std::max(m.last, last_mark);
  for (const Span& sp : m.spans) m.last = std::max({m.last, sp.from, sp.to});
  for (const scenarios::Violation& v : m.violations) m.last = std::max(m.last, v.time);
}

Model build_model(const scenarios::Scenario& s, const scenarios::ScenarioRun& run, Keep keep) {
  const scenarios::RunResult& r = run.result;
  Model m;
  // A run without a verdict is a trace from outside the harness (zksim
  // serve's): no recipe or plan to describe, only its comments.
  if (run.verdict.empty()) {
    for (const std::string& c : s.comments) m.header.push_back(fmt::format("# {}", c));
  } else {
    m.header = header_lines(s);
  }
  m.legend = {"markers: # holding  : in a call (waiting)  z paused  ! expired on the server, not yet told  "
              "~ reconnecting  X crashed",
              "events: f() call begins  f ok/FAIL/INFO call ends  told: news from the recipe  > request  < reply  "
              "! watch event  = session state  ** fault  fence N: the grant's fencing token"};
  m.verdict = run.verdict;
  m.expected = s.expect_violation ? fmt::format("violation {}", *s.expect_violation) : std::string("pass");
  m.as_expected = run.as_expected;
  m.violations = r.violations;
  m.trace_events = r.trace.size();
  auto b = std::make_shared<const Builder>(r.trace, r.history);
  m.base = b->base;
  m.mark_count = r.trace.size() + b->steps.size();
  m.each_mark = [b](Words words, const MarkVisitor& visit) { b->each_mark(words, visit); };
  m.spans = spans_of(r.history, r.trace, keep);

  // The lanes and the end of time of the marks, from what they are made of.
  m.clients = std::max(s.workload.clients, 0);
  TimeMs last_mark = 0;
  for (const TraceEvent& e : r.trace) {
    m.clients = std::max(m.clients, e.client + 1);
    last_mark = std::max(last_mark, e.time);
  }
  for (const Builder::Step step : b->steps) {
    m.clients = std::max(m.clients, b->client(step) + 1);
    last_mark = std::max(last_mark, b->time(step));
  }
  set_last(m, last_mark);
  if (keep == Keep::Frame) return m;

  m.marks.reserve(m.mark_count);
  b->each_mark(Words::All, [&m](const Mark& k) { m.marks.push_back(k); });
  std::vector<std::pair<std::string, TimeMs>> values;
  for (const Op& o : r.history.ops()) {
    if (!o.value.empty() && o.value.front() == '/' && o.outcome == Outcome::Ok) values.emplace_back(o.value, o.completed);
  }
  m.znodes = znode_lifetimes(r.trace, values);
  return m;
}

}  // namespace zksim::timeline::detail
