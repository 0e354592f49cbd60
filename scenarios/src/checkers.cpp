#include "zksim/scenarios/checkers.h"

#include "zksim/client.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace zksim::scenarios {

namespace {

bool ends_belief(const std::string& what) {
  return what == "suspended" || what == "lost" || what == "crashed";
}

TimeMs end_of(const Belief& b) { return b.to < 0 ? INT64_MAX : b.to; }

bool overlap(const Belief& a, const Belief& b) {
  return a.from < end_of(b) && b.from < end_of(a);
}

std::string clients_text(const std::vector<int>& cs) {
  std::string out;
  for (int c : cs) out += fmt::format("{}c{}", out.empty() ? "" : ", ", c);
  return out;
}

}  // namespace

std::vector<Belief> beliefs(const History& h, const std::string& acquire, const std::string& release) {
  // Per client, events in time order: +1 grant, -1 release, end at a note.
  struct Ev {
    TimeMs t;
    std::uint64_t seq;  // at equal times: in the order they were recorded
    int kind;           // 0 grant, 1 release, 2 note
    std::size_t index;
  };
  std::map<int, std::vector<Ev>> per_client;
  for (std::size_t i = 0; i < h.ops().size(); ++i) {
    const Op& o = h.ops()[i];
    if (o.f == acquire && o.outcome == Outcome::Ok) per_client[o.client].push_back({o.completed, o.complete_seq, 0, i});
    if (o.f == release) per_client[o.client].push_back({o.invoked, o.invoke_seq, 1, i});
  }
  for (std::size_t i = 0; i < h.notes().size(); ++i) {
    const Note& n = h.notes()[i];
    if (ends_belief(n.what)) per_client[n.client].push_back({n.time, n.seq, 2, i});
  }
  std::vector<Belief> out;
  for (auto& [client, evs] : per_client) {
    std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
      return a.t != b.t ? a.t < b.t : a.seq < b.seq;
    });
    int depth = 0;
    Belief current;
    for (const Ev& e : evs) {
      if (e.kind == 0) {
        if (depth++ == 0) {
          const Op& o = h.ops()[e.index];
          current = Belief{client, e.t, -1, o.fence, o.f};
        }
      } else if (depth > 0 && (e.kind == 2 || --depth == 0)) {
        depth = 0;
        current.to = e.t;
        out.push_back(current);
      }
    }
    if (depth > 0) out.push_back(current);
  }
  std::sort(out.begin(), out.end(), [](const Belief& a, const Belief& b) {
    return a.from != b.from ? a.from < b.from : a.client < b.client;
  });
  return out;
}

static bool excused_at(const std::vector<Window>& excused, int client, TimeMs t) {
  return std::any_of(excused.begin(), excused.end(),
                     [&](const Window& w) { return w.client == client && w.from <= t && t < w.to; });
}

std::vector<Belief> outside(const std::vector<Belief>& b, const std::vector<Window>& excused) {
  std::vector<Belief> out;
  out.reserve(b.size());
  for (const Belief& belief : b) {
    // Usually no window touches the client: the belief stays whole.
    auto touches = [&](const Window& w) { return w.client == belief.client && w.from < w.to; };
    if (std::none_of(excused.begin(), excused.end(), touches)) {
      out.push_back(belief);
      continue;
    }
    std::vector<Belief> pieces{belief};
    for (const Window& w : excused) {
      if (w.client != belief.client || w.to <= w.from) continue;
      std::vector<Belief> next;
      for (const Belief& p : pieces) {
        if (w.to <= p.from || end_of(p) <= w.from) {
          next.push_back(p);
          continue;
        }
        if (p.from < w.from) {
          Belief before = p;
          before.to = w.from;
          next.push_back(before);
        }
        if (w.to < end_of(p)) {
          Belief after = p;
          after.from = w.to;
          next.push_back(after);
        }
      }
      pieces = std::move(next);
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
  }
  std::sort(out.begin(), out.end(), [](const Belief& a, const Belief& b) {
    return a.from != b.from ? a.from < b.from : a.client < b.client;
  });
  return out;
}

ListenerView listener_view(const History& h, const std::vector<std::pair<std::string, std::string>>& kinds) {
  struct Ev {
    TimeMs t;
    std::uint64_t seq;
    int kind;  // 0 grant, 1 release, 2 note
    std::size_t hold;  // grant, release: the index in `kinds`
    std::string_view what;  // note
  };
  std::map<int, std::vector<Ev>> per_client;
  for (const Op& o : h.ops()) {
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (o.f == kinds[k].first && o.outcome == Outcome::Ok) per_client[o.client].push_back({o.completed, o.complete_seq, 0, k, {}});
      if (o.f == kinds[k].second) per_client[o.client].push_back({o.invoked, o.invoke_seq, 1, k, {}});
    }
  }
  for (const Note& n : h.notes()) per_client[n.client].push_back({n.time, n.seq, 2, 0, n.what});
  ListenerView out;
  for (auto& [client, evs] : per_client) {
    std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
      return a.t != b.t ? a.t < b.t : a.seq < b.seq;
    });
    std::vector<int> depth(kinds.size(), 0);
    auto holding = [&] { return std::any_of(depth.begin(), depth.end(), [](int d) { return d > 0; }); };
    constexpr TimeMs kNot = -1;  // times are never negative
    TimeMs suspended = kNot, lost = kNot;
    for (const Ev& e : evs) {
      if (e.kind == 0) {
        if (depth[e.hold]++ == 0 && suspended != kNot) ++out.granted_while_suspended;
      } else if (e.kind == 1) {
        if (depth[e.hold] > 0) --depth[e.hold];
        if (lost != kNot && !holding()) {
          out.windows.push_back(Window{client, lost, e.t});
          lost = kNot;
        }
      } else if (e.what == "suspended") {
        if (suspended == kNot) suspended = e.t;
      } else if (e.what == "reconnected" || e.what == "lost") {
        if (suspended != kNot) out.windows.push_back(Window{client, suspended, e.t});
        suspended = kNot;
        if (e.what == "lost" && holding() && lost == kNot) lost = e.t;
      }
    }
    if (suspended != kNot) out.windows.push_back(Window{client, suspended, INT64_MAX});
    if (lost != kNot) out.windows.push_back(Window{client, lost, INT64_MAX});
  }
  return out;
}

std::vector<Violation> check_at_most(const std::vector<Belief>& b, int limit, const std::string& property) {
  std::vector<Violation> out;
  // Sweep: at each belief's start, the beliefs still open.
  for (std::size_t i = 0; i < b.size(); ++i) {
    // Count first; name the clients only for a violation.
    int open = 1;
    for (std::size_t j = 0; j < i; ++j) open += overlap(b[i], b[j]);
    if (open > limit) {
      std::vector<int> inside{b[i].client};
      for (std::size_t j = 0; j < i; ++j) {
        if (overlap(b[i], b[j])) inside.push_back(b[j].client);
      }
      std::sort(inside.begin(), inside.end());
      out.push_back(Violation{property,
                              fmt::format("{} believed they held at t={} (at most {} may)",
                                          clients_text(inside), b[i].from, limit),
                              inside, b[i].from});
    }
  }
  return out;
}

std::vector<Violation> check_read_write(const std::vector<Belief>& reads, const std::vector<Belief>& writes) {
  std::vector<Violation> out;
  auto report = [&](const Belief& w, const Belief& o, const char* kind) {
    TimeMs t = std::max(w.from, o.from);
    out.push_back(Violation{name(Property::ReadWriteExclusion),
                            fmt::format("c{} held the write lock while c{} held the {} lock at t={}",
                                        w.client, o.client, kind, t),
                            {w.client, o.client}, t});
  };
  for (const Belief& w : writes) {
    for (const Belief& r : reads) {
      if (r.client != w.client && overlap(w, r)) report(w, r, "read");  // own read: a downgrade
    }
  }
  // Each overlapping pair of writers once, named by the later one.
  for (std::size_t j = 0; j < writes.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (overlap(writes[i], writes[j])) report(writes[j], writes[i], "write");
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_server_grants(const std::vector<ServerGrant>& grants, int limit,
                                           const std::vector<Window>& excused) {
  std::vector<Violation> out;
  for (const ServerGrant& g : grants) {
    if ((g.exists && g.ahead < limit) || excused_at(excused, g.client, g.time)) continue;
    std::string why = g.exists ? fmt::format("{} conflicting contender(s) were created before it", g.ahead)
                               : std::string("the server no longer had that node");
    out.push_back(Violation{name(Property::ServerExclusion),
                            fmt::format("c{} was granted {} at t={}, but {}", g.client, g.node, g.time, why),
                            {g.client}, g.time});
  }
  return out;
}

std::vector<Violation> check_fifo_grants(const History& h, const std::string& acquire,
                                         const std::vector<Window>& excused) {
  std::vector<const Op*> grants;
  for (const Op& o : h.ops()) {
    if (o.f == acquire && o.outcome == Outcome::Ok && !excused_at(excused, o.client, o.completed)) {
      grants.push_back(&o);
    }
  }
  std::stable_sort(grants.begin(), grants.end(),
                   [](const Op* a, const Op* b) { return a->completed < b->completed; });
  std::vector<Violation> out;
  std::map<int, std::int64_t> last_of_client;  // reentrant grants repeat a fence
  std::int64_t last = 0;
  int last_client = -1;
  for (const Op* g : grants) {
    if (last_of_client[g->client] == g->fence) continue;
    if (g->fence < last) {
      out.push_back(Violation{name(Property::Fifo),
                              fmt::format("c{} was granted at t={} with an older contender node "
                                          "(fence {}) than c{}'s, granted before (fence {})",
                                          g->client, g->completed, g->fence, last_client, last),
                              {last_client, g->client}, g->completed});
    }
    last = std::max(last, g->fence);
    if (g->fence == last) last_client = g->client;
    last_of_client[g->client] = g->fence;
  }
  return out;
}

std::vector<Violation> check_no_pending(const History& h, const std::vector<std::string>& fs) {
  std::set<int> crashed;
  for (const Note& n : h.notes()) {
    if (n.what == "crashed") crashed.insert(n.client);
  }
  std::vector<Violation> out;
  for (const Op& o : h.ops()) {
    if (o.outcome != Outcome::Pending || crashed.count(o.client)) continue;
    if (std::find(fs.begin(), fs.end(), o.f) == fs.end()) continue;
    out.push_back(Violation{name(Property::Liveness),
                            fmt::format("c{}'s {} invoked at t={} never returned", o.client, o.f, o.invoked),
                            {o.client}, o.invoked});
  }
  return out;
}

std::vector<Violation> check_all_ok(const History& h, const std::vector<std::string>& fs) {
  std::vector<Violation> out;
  for (const Op& o : h.ops()) {
    if (o.outcome == Outcome::Pending || o.outcome == Outcome::Ok) continue;
    if (std::find(fs.begin(), fs.end(), o.f) == fs.end()) continue;
    out.push_back(Violation{name(Property::Progress),
                            fmt::format("c{}'s {} invoked at t={} ended {} ({}) at t={} in a run without faults",
                                        o.client, o.f, o.invoked, outcome_name(o.outcome), error_name(o.error),
                                        o.completed),
                            {o.client}, o.completed});
  }
  return out;
}

std::vector<Violation> check_leader_named(const History& h) {
  std::vector<Violation> out;
  for (const Op& o : h.ops()) {
    if (o.f != "leader" || o.outcome != Outcome::Ok || o.value == fmt::format("c{}", o.client)) continue;
    out.push_back(Violation{name(Property::OneLeader),
                            fmt::format("c{} asked who leads while it led, at t={}, and was told '{}'", o.client,
                                        o.invoked, o.value),
                            {o.client}, o.completed});
  }
  return out;
}

std::vector<Violation> check_prompt_takes(const History& h, TimeMs within_ms) {
  // When each item became free to take, and until when: from its put's ok
  // until its first ok take ended, and from each ok release (given back)
  // until the first ok take of it that ended after the release was invoked.
  struct Free {
    std::string item;
    const char* how;  // "put", "given back"
    TimeMs from, until;
  };
  std::vector<Free> free;
  std::vector<const Op*> takes;
  for (const Op& o : h.ops()) {
    if (o.f == "take" && o.outcome != Outcome::Pending) takes.push_back(&o);
  }
  auto first_take = [&](const std::string& item, std::uint64_t after_seq) {
    TimeMs until = INT64_MAX;
    for (const Op* t : takes) {
      if (t->outcome == Outcome::Ok && t->value == item && t->complete_seq > after_seq) until = std::min(until, t->completed);
    }
    return until;
  };
  for (const Op& o : h.ops()) {
    if (o.outcome != Outcome::Ok) continue;
    if (o.f == "put") free.push_back(Free{o.value, "put", o.completed, first_take(o.value, 0)});
    if (o.f == "release") free.push_back(Free{o.value, "given back", o.completed, first_take(o.value, o.invoke_seq)});
  }
  std::vector<Violation> out;
  for (const Op* x : takes) {
    for (const Free& f : free) {
      const TimeMs since = std::max(x->invoked, f.from);
      const TimeMs free_until = std::min(x->completed, f.until);
      if (since + within_ms >= free_until) continue;
      out.push_back(Violation{name(Property::Progress),
                              fmt::format("c{}'s take invoked at t={} was still waiting at t={}, {} ms after item "
                                          "{} ({} at t={}) was free to take, in a run without faults",
                                          x->client, x->invoked, since + within_ms, within_ms, f.item, f.how, f.from),
                              {x->client}, since + within_ms});
      break;
    }
  }
  return out;
}

std::vector<Violation> check_prompt_enters(const History& h, int members, TimeMs within_ms) {
  std::map<std::string, std::vector<const Op*>> rounds;
  for (const Op& o : h.ops()) {
    if (o.f == "enter") rounds[o.value].push_back(&o);
  }
  std::vector<Violation> out;
  for (const auto& [round, ops] : rounds) {
    const Op* first_failed = nullptr;
    for (const Op* o : ops) {
      if (o->outcome == Outcome::Pending || o->outcome == Outcome::Ok) continue;
      if (!first_failed || o->complete_seq < first_failed->complete_seq) first_failed = o;
    }
    if (!first_failed) continue;
    std::vector<TimeMs> invoked;
    for (const Op* o : ops) invoked.push_back(o->invoked);
    std::sort(invoked.begin(), invoked.end());
    if (members < 1 || static_cast<int>(invoked.size()) < members) continue;
    const TimeMs all_arrived = invoked[static_cast<std::size_t>(members - 1)];
    if (all_arrived + within_ms > first_failed->completed) continue;
    out.push_back(Violation{name(Property::Progress),
                            fmt::format("c{}'s enter of {} ended {} ({}) at t={}, though all {} members had "
                                        "entered by t={}, in a run without faults",
                                        first_failed->client, round, outcome_name(first_failed->outcome),
                                        error_name(first_failed->error), first_failed->completed, members,
                                        all_arrived),
                            {first_failed->client}, first_failed->completed});
  }
  return out;
}

std::vector<Violation> check_holds_after_loss(const History& h, const std::vector<std::string>& acquires) {
  // Each client's notes and acquire invocations, in recording order.
  struct Mark {
    std::uint64_t seq;
    TimeMs time;
    int client;
    char what;  // 'l' lost, 'h' holds, 'a' acquire invoked or granted
  };
  std::vector<Mark> marks;
  for (const Note& n : h.notes()) {
    if (n.what == "lost") marks.push_back({n.seq, n.time, n.client, 'l'});
    if (n.what == "holds") marks.push_back({n.seq, n.time, n.client, 'h'});
  }
  for (const Op& o : h.ops()) {
    if (std::find(acquires.begin(), acquires.end(), o.f) != acquires.end()) {
      marks.push_back({o.invoke_seq, o.invoked, o.client, 'a'});
      if (o.outcome == Outcome::Ok) marks.push_back({o.complete_seq, o.completed, o.client, 'a'});
    }
  }
  std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.seq < b.seq; });
  // client -> when it was told "lost", until it acquires again (invokes an
  // acquire, or one it was waiting in returns a grant: a new hold)
  std::map<int, TimeMs> lost_at;
  std::vector<Violation> out;
  for (const Mark& m : marks) {
    if (m.what == 'l') {
      lost_at.emplace(m.client, m.time);
    } else if (m.what == 'a') {
      lost_at.erase(m.client);
    } else if (auto it = lost_at.find(m.client); it != lost_at.end()) {
      out.push_back(Violation{name(Property::HoldsAfterLoss),
                              fmt::format("c{}'s recipe said it still holds at t={}, after it told c{} at t={} "
                                          "that its session was lost",
                                          m.client, m.time, m.client, it->second),
                              {m.client}, m.time});
      lost_at.erase(it);
    }
  }
  return out;
}

std::vector<Violation> check_honest_expiry(const History& h, const std::map<int, std::vector<TimeMs>>& expiries) {
  // Each client's "lost" notes and lock calls, in recording order.
  struct Mark {
    std::uint64_t seq;
    const Op* op;  // nullptr: a "lost" note
  };
  std::map<int, std::vector<Mark>> marks;
  for (const Note& n : h.notes()) {
    if (n.what == "lost") marks[n.client].push_back({n.seq, nullptr});
  }
  for (const Op& o : h.ops()) {
    if (o.f.starts_with("acquire") || o.f.starts_with("release")) marks[o.client].push_back({o.invoke_seq, &o});
  }
  std::vector<Violation> out;
  for (auto& [client, list] : marks) {
    std::sort(list.begin(), list.end(), [](const Mark& a, const Mark& b) { return a.seq < b.seq; });
    auto e = expiries.find(client);
    auto expired_within = [&](TimeMs from, TimeMs to) {
      return e != expiries.end() &&
             std::any_of(e->second.begin(), e->second.end(), [&](TimeMs t) { return from <= t && t <= to; });
    };
    std::map<std::string, int> depth;  // side ("", "-read", "-write") -> acquires held
    bool lost = false;
    TimeMs since = 0;  // when the client last held nothing
    for (const Mark& m : list) {
      const Op* o = m.op;
      const bool held = std::any_of(depth.begin(), depth.end(), [](const auto& d) { return d.second > 0; });
      if (!o) {
        lost = lost || held;
        continue;
      }
      if (o->f.starts_with("acquire")) {
        const std::string side = o->f.substr(7);
        if (o->outcome == Outcome::Ok) ++depth[side];
        if (o->outcome == Outcome::Fail && o->error == Error::NoNode && expired_within(o->invoked, o->completed)) {
          out.push_back(Violation{name(Property::HonestExpiry),
                                  fmt::format("c{}'s {} invoked at t={} failed with NoNode at t={}, though its "
                                              "session expired meanwhile (its node went with it)",
                                              client, o->f, o->invoked, o->completed),
                                  {client}, o->completed});
          continue;
        }
        if (o->outcome != Outcome::Fail || o->error != Error::SessionExpired) continue;
        if (expired_within(since, o->completed)) continue;
        out.push_back(Violation{name(Property::HonestExpiry),
                                fmt::format("c{}'s {} invoked at t={} failed with SessionExpired at t={}, but its "
                                            "session did not expire since it last held nothing (t={})",
                                            client, o->f, o->invoked, o->completed, since),
                                {client}, o->completed});
        continue;
      }
      int& d = depth[o->f.substr(7)];
      d = lost ? 0 : std::max(0, d - 1);
      if (held && std::all_of(depth.begin(), depth.end(), [](const auto& x) { return x.second == 0; })) {
        since = o->outcome == Outcome::Pending ? o->invoked : o->completed;
        lost = false;
      }
    }
  }
  return out;
}

namespace {

// A wake-up as count_wakeups defines it: the call it woke, and whether
// that call made progress.
struct Wakeup {
  Delivery at;
  const Op* call = nullptr;
  bool progressed = false;
};

std::vector<Wakeup> wakeups_of(const History& h, const std::vector<Delivery>& deliveries) {
  // Each client's calls in invocation order and its deliveries in time
  // order: both lists stably sorted by client.
  std::vector<const Op*> calls;
  calls.reserve(h.ops().size());
  for (const Op& o : h.ops()) calls.push_back(&o);
  std::stable_sort(calls.begin(), calls.end(), [](const Op* a, const Op* b) { return a->client < b->client; });
  std::vector<Delivery> at(deliveries);
  std::stable_sort(at.begin(), at.end(), [](const Delivery& a, const Delivery& b) { return a.client < b.client; });
  std::vector<Wakeup> out;
  out.reserve(at.size());
  auto ops = calls.begin();
  for (std::size_t i = 0; i < at.size(); ++i) {
    const int client = at[i].client;
    while (ops != calls.end() && (*ops)->client < client) ++ops;
    auto ops_end = ops;
    while (ops_end != calls.end() && (*ops_end)->client == client) ++ops_end;
    const TimeMs t = at[i].time;
    auto in_call = std::find_if(ops, ops_end, [&](const Op* o) {
      return o->invoked <= t && (o->outcome == Outcome::Pending || o->completed >= t);
    });
    if (in_call == ops_end) continue;
    const Op& o = **in_call;
    const TimeMs next = i + 1 < at.size() && at[i + 1].client == client ? at[i + 1].time : INT64_MAX;
    out.push_back(Wakeup{at[i], &o, o.outcome == Outcome::Ok && o.completed <= next});
  }
  return out;
}

}  // namespace

WakeupTally count_wakeups(const History& h, const std::vector<Delivery>& deliveries) {
  WakeupTally out;
  for (const Wakeup& w : wakeups_of(h, deliveries)) {
    ++out.wakeups;
    out.without_progress += w.progressed ? 0 : 1;
  }
  return out;
}

std::vector<Violation> check_wakeups_progress(const History& h, const std::vector<Delivery>& deliveries) {
  std::vector<Violation> out;
  std::set<int> reported;  // a client's first wake-up without progress stands for the rest
  for (const Wakeup& w : wakeups_of(h, deliveries)) {
    if (w.progressed || !reported.insert(w.at.client).second) continue;
    out.push_back(Violation{name(Property::Progress),
                            fmt::format("c{} was woken at t={} in its {} (invoked at t={}) and was not granted "
                                        "before it waited again, in a run without faults or timeouts",
                                        w.at.client, w.at.time, w.call->f, w.call->invoked),
                            {w.at.client}, w.at.time});
  }
  std::sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_exclusive_claims(const History& h, const std::map<int, std::vector<TimeMs>>& expired) {
  std::map<int, std::vector<TimeMs>> ends = expired;  // client -> when its claims may have gone
  for (const Note& n : h.notes()) {
    if (n.what == "crashed") ends[n.client].push_back(n.time);
  }
  struct Hold {
    int client;
    TimeMs from, to;  // [from, to)
  };
  std::map<std::string, std::vector<Hold>> holds;  // item -> its holds, by the take's recording order
  for (const Op& o : h.ops()) {
    if (o.f != "take" || o.outcome != Outcome::Ok) continue;
    TimeMs to = INT64_MAX;
    for (const Op& a : h.ops()) {
      if ((a.f == "ack" || a.f == "release") && a.client == o.client && a.value == o.value &&
          a.invoke_seq > o.complete_seq) {
        to = a.invoked;
        break;
      }
    }
    // An end during the take counts too: the claim may have gone with
    // the session before the take's reply arrived.
    for (TimeMs end : ends[o.client]) {
      if (end >= o.invoked) to = std::min(to, end);
    }
    holds[o.value].push_back(Hold{o.client, o.completed, to});
  }
  std::vector<Violation> out;
  for (const auto& [item, hs] : holds) {
    for (std::size_t i = 0; i < hs.size(); ++i) {
      for (std::size_t j = i + 1; j < hs.size(); ++j) {
        const Hold& a = hs[i];
        const Hold& b = hs[j];
        if (a.client == b.client || b.from >= a.to || a.from >= b.to) continue;
        out.push_back(Violation{name(Property::ClaimExclusion),
                                fmt::format("c{} and c{} both held item {} at t={}",
                                            a.client, b.client, item, std::max(a.from, b.from)),
                                {std::min(a.client, b.client), std::max(a.client, b.client)},
                                std::max(a.from, b.from)});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_fenced_counter(int accepted_increments, int final_value) {
  if (accepted_increments == final_value) return {};
  return {Violation{name(Property::FencedExclusion),
                    fmt::format("the fenced counter accepted {} increments but reads {}: {} lost",
                                accepted_increments, final_value, accepted_increments - final_value),
                    {}, 0}};
}

std::vector<std::string> wakeup_causes(const Wakeups& w, const Trace& trace, const History& history) {
  const std::set<std::int32_t> reads{request_kind<ExistsRequest>, request_kind<GetDataRequest>,
                                     request_kind<GetChildrenRequest>};
  // Each client's last read of the path before the change, in one pass.
  std::map<int, TimeMs> last_read;
  for (const TraceEvent& e : trace.events()) {
    if (e.time > w.time) break;
    if (e.kind == TraceKind::Request && e.path == w.path && reads.count(e.code)) last_read[e.client] = e.time;
  }
  std::vector<std::string> out;
  for (int client : w.clients) {
    const auto read = last_read.find(client);
    const TimeMs set = read == last_read.end() ? -1 : read->second;
    const Op* in = nullptr;
    for (const Op& o : history.ops()) {
      if (o.client == client && o.f.starts_with("acquire") && set >= 0 && o.invoked <= set &&
          (o.outcome == Outcome::Pending || o.completed >= set)) {
        in = &o;
      }
    }
    if (!in) {
      out.push_back(fmt::format("c{} by a watch no acquire set", client));
    } else if (in->outcome == Outcome::Pending || in->completed >= w.time) {
      out.push_back(fmt::format("c{} waiting in its {} of t={} (watch set at t={})", client, in->f, in->invoked, set));
    } else {
      out.push_back(fmt::format("c{} by a watch its {} of t={} set at t={} and left when it ended {} at t={}", client,
                                in->f, in->invoked, set,
                                in->outcome == Outcome::Ok ? std::string("ok") : std::string(error_name(in->error)),
                                in->completed));
    }
  }
  return out;
}

std::vector<Violation> check_herd(const Wakeups& worst, int allowed) {
  if (worst.count <= allowed) return {};
  std::vector<std::string> names;
  for (int c : worst.clients) names.push_back(fmt::format("c{}", c));
  std::string why;
  if (!worst.causes.empty()) why = fmt::format(": {}", fmt::join(worst.causes, "; "));
  return {Violation{name(Property::HerdEffect),
                    fmt::format("one change of {} at t={} woke {} waiters ({}; at most {} allowed){}", worst.path,
                                worst.time, worst.count, fmt::join(names, ", "), allowed, why),
                    worst.clients, worst.time}};
}

std::vector<Violation> check_shared_herd(const std::vector<SharedWakeups>& changes) {
  const auto names = [](const std::vector<int>& clients) {
    std::vector<std::string> out;
    for (int c : clients) out.push_back(fmt::format("c{}", c));
    return fmt::format("{}", fmt::join(out, ", "));
  };
  for (const SharedWakeups& c : changes) {
    if (c.writers.size() > 1) {
      return {Violation{name(Property::HerdEffect),
                        fmt::format("one change of {} at t={} woke {} writers ({}; at most 1 can be granted)", c.path,
                                    c.time, c.writers.size(), names(c.writers)),
                        c.writers, c.time}};
    }
    if (c.reader_node && !c.readers.empty()) {
      return {Violation{name(Property::HerdEffect),
                        fmt::format("a reader's change of {} at t={} woke {} reader(s) ({}), which wait only for writers",
                                    c.path, c.time, c.readers.size(), names(c.readers)),
                        c.readers, c.time}};
    }
  }
  return {};
}

std::vector<Violation> check_queue(const History& h, const std::vector<std::string>& left, QueueDelivery delivery,
                                   const SessionSpans& sessions, int* lost_in_transit) {
  const bool at_least_once = delivery == QueueDelivery::AtLeastOnce;
  std::vector<Violation> out;
  std::map<int, std::vector<TimeMs>> expiries;           // client -> its "expired" notes
  for (const Note& n : h.notes()) {
    if (n.what == "expired") expiries[n.client].push_back(n.time);
  }
  std::vector<std::pair<const Op*, TimeMs>> lost_claims;  // ok take, its session's expiry
  std::map<std::string, const Op*> puts;                // put ended ok, in info, or never
  std::map<std::string, std::vector<const Op*>> takes;  // value -> ok takes
  std::map<std::string, TimeMs> maybe_taken;            // value -> first invoke of an info take naming it
  std::vector<const Op*> unresolved;
  for (const Op& o : h.ops()) {
    if (o.f == "put" && o.outcome != Outcome::Fail) puts.emplace(o.value, &o);
    if (o.f != "take") continue;
    if (o.outcome == Outcome::Ok) {
      takes[o.value].push_back(&o);
      if (!at_least_once) continue;
      for (TimeMs e : expiries[o.client]) {
        if (o.invoked <= e && e <= o.completed) lost_claims.emplace_back(&o, e);
      }
      // A session the client left during the take (its library opened a
      // new one) may hold a claim the take made in it until the server
      // expires it, later than the take's end.
      // A session is the client's from its first use to the next one's.
      if (auto s = sessions.find(o.client); s != sessions.end()) {
        const std::vector<SessionSpan>& spans = s->second;
        for (std::size_t i = 0; i + 1 < spans.size(); ++i) {
          const bool left_during = spans[i].opened <= o.completed && spans[i + 1].opened > o.invoked &&
                                   spans[i + 1].opened <= o.completed;
          if (left_during && spans[i].expired > o.completed) lost_claims.emplace_back(&o, spans[i].expired);
        }
      }
    } else if (at_least_once) {
      unresolved.push_back(&o);
    } else if (o.outcome == Outcome::Info && !o.value.empty()) {
      auto [it, fresh] = maybe_taken.emplace(o.value, o.invoked);
      if (!fresh) it->second = std::min(it->second, o.invoked);
    } else if (o.outcome == Outcome::Info || o.outcome == Outcome::Pending) {
      unresolved.push_back(&o);
    }
  }
  for (auto& [value, ts] : takes) {
    std::stable_sort(ts.begin(), ts.end(), [](const Op* a, const Op* b) { return a->completed < b->completed; });
  }
  std::map<std::string, int> queued;
  for (const std::string& v : left) ++queued[v];
  // Until when an unresolved take may hold a claim (at least once). A take
  // that failed with SessionExpired may have ended in a new session its
  // library opened (Curator, kazoo), which cannot delete the claim it made
  // in the old one: the claim stands until the server expires that session.
  // Which one it was the history does not say; the client may have had
  // others meanwhile, which can expire first: the claim may stand until the
  // last expiry of a session the client had while the take ran.
  auto claim_end = [&](const Op* t) {
    TimeMs end = t->completed;
    if (t->outcome != Outcome::Fail || t->error != Error::SessionExpired) return end;
    if (auto s = sessions.find(t->client); s != sessions.end()) {
      bool any = false;
      TimeMs last = end;
      for (const SessionSpan& span : s->second) {
        if (span.opened > t->completed || span.expired < t->invoked) continue;
        any = true;
        last = std::max(last, span.expired);
      }
      if (any) return last;
    }
    for (TimeMs e : expiries[t->client]) {
      if (e >= t->invoked) return std::max(end, e);
    }
    return end;
  };
  // Whether unresolved take `t` may hold (at least once) or have removed (at
  // most once) an item at time `when`.
  auto unresolved_at = [&](const Op* t, TimeMs when) {
    if (t->invoked > when) return false;
    return !at_least_once || t->outcome == Outcome::Pending || claim_end(t) >= when;
  };

  std::set<std::string> seen;  // taken or queued
  for (const auto& [value, ts] : takes) seen.insert(value);
  for (const auto& [value, n] : queued) seen.insert(value);
  for (const std::string& value : seen) {
    auto t = takes.find(value);
    const std::size_t taken = t == takes.end() ? 0 : t->second.size();
    const int still = queued.count(value) ? queued[value] : 0;
    const Op* first = taken ? t->second.front() : nullptr;
    if (!at_least_once && taken + still > 1) {
      std::vector<int> cs;
      for (std::size_t i = 0; i < taken && i < 2; ++i) cs.push_back(t->second[i]->client);
      std::string message = still ? fmt::format("{} was delivered {} times and is queued {} times", value, taken, still)
                                  : fmt::format("{} was delivered {} times", value, taken);
      out.push_back(Violation{name(Property::QueueNoDuplicates), message, cs, taken ? t->second.back()->completed : 0});
    }
    if (!puts.count(value)) {
      out.push_back(Violation{name(Property::QueueNoPhantoms),
                              fmt::format("{} was {} but never put", value, taken ? "taken" : "queued"),
                              first ? std::vector<int>{first->client} : std::vector<int>{},
                              first ? first->completed : 0});
    }
  }

  std::vector<const Op*> lost;
  std::size_t named_in_transit = 0;  // removed by a take in info that names it
  for (const auto& [value, put] : puts) {
    if (put->outcome != Outcome::Ok || takes.count(value) || queued.count(value)) continue;
    if (maybe_taken.count(value) && delivery == QueueDelivery::AtMostOnce) {
      ++named_in_transit;
      continue;
    }
    lost.push_back(put);
  }
  const std::size_t excused = delivery == QueueDelivery::AtMostOnce ? unresolved.size() : 0;
  if (lost_in_transit) {
    *lost_in_transit = static_cast<int>(named_in_transit + (lost.size() <= excused ? lost.size() : 0));
  }
  if (lost.size() > excused) {
    for (const Op* put : lost) {
      std::string why = excused ? fmt::format(" ({} missing, {} takes could have removed one unseen)", lost.size(), excused)
                        : delivery == QueueDelivery::ExactlyOnce && (maybe_taken.count(put->value) || !unresolved.empty())
                            ? " (a take without an answer may have removed it; the recipe does not state at-most-once delivery)"
                            : "";
      out.push_back(Violation{name(Property::QueueNoLoss),
                              fmt::format("{} was put (ok) but never taken and is not queued{}", put->value, why),
                              {put->client}, put->completed});
    }
  }

  for (const auto& [vb, ts] : takes) {
    auto pb = puts.find(vb);
    if (pb == puts.end()) continue;  // a phantom, reported above
    const Op* tb = ts.front();
    const TimeMs when = tb->completed;
    std::vector<std::string> older;  // put before b, still queued when b's take ended
    for (const auto& [va, pa] : puts) {
      if (va == vb || pa->outcome != Outcome::Ok || pa->completed >= pb->second->invoked || pa->completed > when) continue;
      auto ta = takes.find(va);
      bool taken = ta != takes.end() && std::any_of(ta->second.begin(), ta->second.end(),
                                                     [&](const Op* o) { return o->invoked <= when; });
      auto mt = maybe_taken.find(va);
      if (!taken && (mt == maybe_taken.end() || mt->second > when)) older.push_back(va);
    }
    // An older item may have been held by an unresolved take at any moment
    // of b's take, not only at its end: b's take read the claims somewhere
    // in [invoked, completed] (a claimant whose session then expired
    // released its item after b had passed it by).
    auto held = static_cast<std::size_t>(std::count_if(unresolved.begin(), unresolved.end(), [&](const Op* u) {
      return unresolved_at(u, when) || (at_least_once && u->invoked <= when && claim_end(u) >= tb->invoked);
    }));
    // So may an ok take, b's own included, that left a session while it
    // ran (its client library went on in a new one): until the server
    // expired that session, a claim made in it.
    held += static_cast<std::size_t>(std::count_if(lost_claims.begin(), lost_claims.end(), [&](const auto& c) {
      return c.first->invoked <= when && c.second >= tb->invoked;
    }));
    if (older.size() > held) {
      std::string more = older.size() > 1 ? fmt::format(" (and {} more older items)", older.size() - 1) : "";
      out.push_back(Violation{name(Property::QueueFifo),
                              fmt::format("{} was taken at t={} while the older {} was still queued{}", vb, when,
                                          older.front(), more),
                              {tb->client}, when});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_double_barrier(const History& h, int members) {
  std::vector<Violation> out;
  std::map<int, std::vector<TimeMs>> session_ends;  // client -> "crashed"/"expired" notes
  for (const Note& n : h.notes()) {
    if (n.what == "crashed" || n.what == "expired") session_ends[n.client].push_back(n.time);
  }
  std::map<std::string, std::vector<const Op*>> rounds;
  for (const Op& o : h.ops()) {
    if (o.f == "enter" || o.f == "leave") rounds[o.value].push_back(&o);
  }
  for (const auto& [round, ops] : rounds) {
    std::vector<TimeMs> enter_invokes;
    std::map<int, TimeMs> entered;  // client -> when its ok enter was invoked
    std::map<int, TimeMs> leaving;  // client -> when it invoked leave
    for (const Op* o : ops) {
      if (o->f == "enter") {
        enter_invokes.push_back(o->invoked);
        if (o->outcome == Outcome::Ok) entered[o->client] = o->invoked;
      } else if (!leaving.count(o->client) || o->invoked < leaving[o->client]) {
        leaving[o->client] = o->invoked;
      }
    }
    std::sort(enter_invokes.begin(), enter_invokes.end());
    const TimeMs all_arrived = static_cast<int>(enter_invokes.size()) >= members
                                   ? enter_invokes[static_cast<std::size_t>(members - 1)] : INT64_MAX;
    TimeMs all_leaving = 0;  // when the last member that entered was leaving or gone
    for (const auto& [client, since] : entered) {
      TimeMs gone = leaving.count(client) ? leaving[client] : INT64_MAX;
      for (TimeMs end : session_ends[client]) {
        if (end >= since) gone = std::min(gone, end);
      }
      all_leaving = std::max(all_leaving, gone);
    }
    for (const Op* o : ops) {
      if (o->outcome != Outcome::Ok) continue;
      if (o->f == "enter" && o->completed < all_arrived) {
        out.push_back(Violation{name(Property::BarrierEnter),
                                fmt::format("c{} entered {} at t={} before all {} arrived", o->client, round, o->completed, members),
                                {o->client}, o->completed});
      }
      if (o->f == "leave" && o->completed < all_leaving) {
        out.push_back(Violation{name(Property::BarrierLeave),
                                fmt::format("c{} left {} at t={} before every member was leaving", o->client, round, o->completed),
                                {o->client}, o->completed});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_barrier(const History& h) {
  std::vector<Violation> out;
  for (const Op& w : h.ops()) {
    if (w.f != "wait" || w.outcome != Outcome::Ok) continue;
    for (const Op& r : h.ops()) {
      if (r.f != "raise" || r.value != w.value || r.outcome != Outcome::Ok || r.completed > w.invoked) continue;
      bool lowered = std::any_of(h.ops().begin(), h.ops().end(), [&](const Op& l) {
        return l.f == "lower" && l.value == w.value && l.invoked >= r.invoked && l.invoked <= w.completed;
      });
      if (!lowered) {
        out.push_back(Violation{name(Property::BarrierWait),
                                fmt::format("c{} passed {} at t={}, raised since t={} and not lowered", w.client,
                                            w.value, w.completed, r.completed),
                                {w.client}, w.completed});
        break;
      }
    }
  }
  return out;
}

std::vector<Violation> check_no_leaks(const std::vector<std::string>& nodes_left, std::size_t watches_left) {
  std::vector<Violation> out;
  for (const std::string& n : nodes_left) {
    out.push_back(Violation{name(Property::NoLeaks), fmt::format("{} is left behind", n), {}, 0});
  }
  if (watches_left > 0) {
    out.push_back(Violation{name(Property::NoLeaks), fmt::format("{} watches are left behind", watches_left), {}, 0});
  }
  return out;
}

std::vector<Violation> check_sequential_consistency(std::span<const TraceEvent> trace) {
  struct Seen {
    std::int64_t zxid = 0;
    TimeMs time = 0;
    bool broken = false;
  };
  std::map<int, Seen> seen;  // by client
  std::vector<Violation> out;
  for (const TraceEvent& e : trace) {
    if (e.kind != TraceKind::Response || e.client < 0 || e.zxid == 0) continue;
    Seen& s = seen[e.client];
    if (e.zxid < s.zxid && !s.broken) {
      s.broken = true;
      out.push_back(Violation{name(Property::SequentialConsistency),
                              fmt::format("client {} got a reply at zxid {} ({} {}) after one at zxid {} (t={})",
                                          e.client, e.zxid, request_kind_name(e.code2), e.path, s.zxid, s.time),
                              {e.client}, e.time});
    }
    if (e.zxid > s.zxid) s = Seen{e.zxid, e.time, s.broken};
  }
  return out;
}

std::vector<Violation> check_watch_order(std::span<const TraceEvent> trace) {
  struct Seen {
    const TraceEvent* reply = nullptr;  // the newest reply so far
    const TraceEvent* event = nullptr;  // the newest event so far
    bool broken = false;
  };
  std::map<std::int64_t, Seen> seen;  // by session
  std::vector<Violation> out;
  for (const TraceEvent& e : trace) {
    if (e.client < 0) continue;
    if (e.kind == TraceKind::State && e.code == static_cast<std::int32_t>(SessionState::Connected)) {
      seen[e.session.value].event = nullptr;  // a new connection: its server may be behind the events heard
      continue;
    }
    if (e.zxid == 0) continue;
    const bool is_reply = e.kind == TraceKind::Response;
    if (!is_reply && (e.kind != TraceKind::Watch || e.code == static_cast<std::int32_t>(EventType::None))) continue;
    Seen& s = seen[e.session.value];
    const TraceEvent*& newest = is_reply ? s.reply : s.event;
    if (!newest || e.zxid > newest->zxid) newest = &e;
    if (is_reply || s.broken) continue;
    const auto event_name = [](const TraceEvent& x) { return event_type_name(static_cast<EventType>(x.code)); };
    std::string what;
    if (s.reply && s.reply->zxid >= e.zxid) {
      what = fmt::format("after a reply at zxid {} ({} {}, t={})", s.reply->zxid, request_kind_name(s.reply->code2),
                         s.reply->path, s.reply->time);
    } else if (s.event->zxid > e.zxid) {
      what = fmt::format("after one of zxid {} (t={})", s.event->zxid, s.event->time);
    } else {
      continue;
    }
    s.broken = true;
    out.push_back(Violation{name(Property::WatchOrder),
                            fmt::format("client {} got the {} event of {} (zxid {}) {}", e.client, event_name(e),
                                        e.path, e.zxid, what),
                            {e.client}, e.time});
  }
  return out;
}

}  // namespace zksim::scenarios
