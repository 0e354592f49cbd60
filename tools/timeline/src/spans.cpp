// Spans: what lasts on a client's lane. Holding and waiting come from the
// history; pauses, crashes, reconnections and the stretch between the
// server expiring a session and its client hearing of it come from the
// trace; a watch spans from the read that set it (inferred) to its event.
#include "model.h"

#include "zksim/client.h"
#include "zksim/fault.h"
#include "zksim/zk_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

namespace zksim::timeline::detail {
namespace {

using scenarios::Op;
using scenarios::Outcome;

constexpr std::int32_t kExists = 4, kGetData = 5, kGetChildren = 6, kAddWatch = 12;

struct Spans {
  const scenarios::History& h;
  const std::vector<TraceEvent>& trace;
  bool words;  // labels and details (Keep::Everything)
  std::map<std::int64_t, int> client_of;  // session id -> client
  std::vector<Span> out;

  // fmt::format(f, a...) if the spans carry words, else "".
  template <typename... A>
  std::string say(fmt::format_string<A...> f, A&&... a) const {
    return words ? fmt::format(f, std::forward<A>(a)...) : std::string();
  }

  void call_spans() {
    for (const Op& o : h.ops()) {
      const bool acquire = o.f.starts_with("acquire");
      Span s{o.client, acquire ? SpanKind::Waiting : SpanKind::Call, o.invoked, o.completed};
      if (words) {
        s.label = acquire ? "waiting" : o.f;
        s.detail = fmt::format("{} {} from t={} {}", lane_name(o.client), o.f, o.invoked,
                               o.outcome == Outcome::Pending ? std::string("and still waiting at the end")
                                                             : fmt::format("to t={}: {}", o.completed, outcome_name(o.outcome)));
      }
      out.push_back(std::move(s));
    }
    // Holding, as the client believes it, for each acquire kind.
    std::set<std::string> acquires;
    for (const Op& o : h.ops()) {
      if (o.f.starts_with("acquire")) acquires.insert(o.f);
    }
    for (const std::string& f : acquires) {
      const std::string suffix = f.substr(7);
      for (const scenarios::Belief& b : scenarios::beliefs(h, f, fmt::format("release{}", suffix))) {
        Span s{b.client, SpanKind::Holding, b.from, b.to};
        s.label = say("holding{}", suffix);
        s.detail = say("{} believes it holds ({} ok at t={}{}) {}", lane_name(b.client), f, b.from,
                       b.fence ? fmt::format(", fence {}", b.fence) : "",
                       b.to < 0 ? std::string("until the end") : fmt::format("until t={}", b.to));
        out.push_back(std::move(s));
      }
    }
  }

  // Pauses, crashes, reconnections, and the stretch after the server
  // expired a session before its client heard (as runner.cpp excuses it).
  void session_spans() {
    std::map<int, std::size_t> reconnecting, unaware;
    std::set<int> connected_once;
    auto close = [&](std::map<int, std::size_t>& open, int client, TimeMs t) {
      if (auto it = open.find(client); it != open.end()) {
        out[it->second].to = t;
        out[it->second].detail += say(" until t={}", t);
        open.erase(it);
      }
    };
    for (const TraceEvent& e : trace) {
      if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Pause)) {
        const TimeMs ms = std::atoll(e.detail.c_str());
        out.push_back({e.client, SpanKind::Paused, e.time, e.time + ms, say("paused"),
                       say("{} paused from t={} to t={} ({} ms)", lane_name(e.client), e.time, e.time + ms, ms)});
      } else if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Crash)) {
        out.push_back({e.client, SpanKind::Crashed, e.time, -1, say("crashed"),
                       say("{} crashed at t={}", lane_name(e.client), e.time)});
      } else if (e.kind == TraceKind::Server && e.code == static_cast<std::int32_t>(ServerAction::SessionExpired)) {
        auto c = client_of.find(e.session.value);
        if (c == client_of.end() || unaware.count(c->second)) continue;
        unaware[c->second] = out.size();
        out.push_back({c->second, SpanKind::Unaware, e.time, -1, say("expired, not told"),
                       say("the server expired {}'s session at t={}; {} has not heard", lane_name(c->second), e.time,
                           lane_name(c->second))});
      } else if (e.kind == TraceKind::State) {
        if (e.code != static_cast<std::int32_t>(SessionState::Connected)) close(unaware, e.client, e.time);
        close(reconnecting, e.client, e.time);
        if (e.code == static_cast<std::int32_t>(SessionState::Connected)) connected_once.insert(e.client);
        // Connecting before the first connection is not a reconnection.
        if (e.code == static_cast<std::int32_t>(SessionState::Connecting) && connected_once.count(e.client)) {
          reconnecting[e.client] = out.size();
          out.push_back({e.client, SpanKind::Disconnected, e.time, -1, say("disconnected"),
                         say("{} disconnected at t={}, reconnecting", lane_name(e.client), e.time)});
        }
      }
    }
  }

  // A fired watch was set by the client's latest read of that path whose
  // reply could leave that kind of watch (one read sets one watch).
  void watch_spans() {
    std::map<std::pair<int, std::string>, std::vector<std::size_t>> reads;  // (client, path) -> responses
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceEvent& e = trace[i];
      if (e.kind == TraceKind::Response && e.code2 == kAddWatch && e.code == 0) {
        out.push_back({e.client, SpanKind::Watch, e.time, -1, "persistent watch",
                           fmt::format("{} added a persistent watch on {} at t={}", lane_name(e.client), e.path, e.time)});
      }
      if (e.kind == TraceKind::Response) reads[{e.client, e.path}].push_back(i);
      if (e.kind != TraceKind::Watch || e.path.empty()) continue;
      const auto type = static_cast<EventType>(e.code);
      std::vector<std::size_t>& candidates = reads[{e.client, e.path}];
      for (std::size_t j = candidates.size(); j-- > 0;) {
        const TraceEvent& r = trace[candidates[j]];
        const auto err = static_cast<Error>(r.code);
        bool sets = false;
        switch (type) {
          case EventType::NodeChildrenChanged: sets = r.code2 == kGetChildren && err == Error::Ok; break;
          case EventType::NodeCreated: sets = r.code2 == kExists && err == Error::NoNode; break;
          case EventType::NodeDataChanged: sets = (r.code2 == kGetData || r.code2 == kExists) && err == Error::Ok; break;
          case EventType::NodeDeleted:
            sets = (r.code2 == kGetData || r.code2 == kExists || r.code2 == kGetChildren) && err == Error::Ok;
            break;
          default: break;
        }
        if (!sets) continue;
        out.push_back({e.client, SpanKind::Watch, r.time, e.time, "watch",
                           fmt::format("{}'s watch on {}, set by its {} at t={} (inferred: its latest read there), "
                                       "fired {} at t={}",
                                       lane_name(e.client), e.path, request_name(r.code2), r.time,
                                       event_type_name(type), e.time)});
        candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
    }
  }
};

// `spans` by lane, then start, ties in their order: as std::stable_sort
// orders them, without its buffer of as many spans (a long run's frame
// would peak at twice its spans), through an order of indices applied in
// place.
void sort_by_lane_and_start(std::vector<Span>& spans) {
  const std::size_t n = spans.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Span &x = spans[a], &y = spans[b];
    return x.lane != y.lane ? x.lane < y.lane : x.from != y.from ? x.from < y.from : a < b;
  });
  // spans[j] becomes the old spans[order[j]], one cycle of the order at a
  // time; n marks a place done.
  for (std::size_t i = 0; i < n; ++i) {
    if (order[i] == n) continue;
    Span first = std::move(spans[i]);
    std::size_t j = i;
    while (order[j] != i) {
      const std::size_t k = order[j];
      spans[j] = std::move(spans[k]);
      order[j] = n;
      j = k;
    }
    spans[j] = std::move(first);
    order[j] = n;
  }
}

}  // namespace

std::vector<Span> spans_of(const scenarios::History& h, const std::vector<TraceEvent>& trace, Keep keep) {
  Spans s{h, trace, keep == Keep::Everything};
  s.out.reserve(h.ops().size() * 3 / 2);  // a call span each, a holding span for most acquires
  for (const TraceEvent& e : trace) {
    if (e.client >= 0 && e.session.value != 0) s.client_of.emplace(e.session.value, e.client);
  }
  s.call_spans();
  s.session_spans();
  if (keep == Keep::Everything) s.watch_spans();
  sort_by_lane_and_start(s.out);
  return std::move(s.out);
}

}  // namespace zksim::timeline::detail
