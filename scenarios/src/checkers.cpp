#include "zksim/scenarios/checkers.h"

#include <fmt/format.h>

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
    out.push_back(Violation{"read-write-exclusion",
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

std::vector<Violation> check_fifo_grants(const History& h, const std::string& acquire) {
  std::vector<const Op*> grants;
  for (const Op& o : h.ops()) {
    if (o.f == acquire && o.outcome == Outcome::Ok) grants.push_back(&o);
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
      out.push_back(Violation{"fifo",
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
    out.push_back(Violation{"liveness",
                            fmt::format("c{}'s {} invoked at t={} never returned", o.client, o.f, o.invoked),
                            {o.client}, o.invoked});
  }
  return out;
}

std::vector<Violation> check_fenced_counter(int accepted_increments, int final_value) {
  if (accepted_increments == final_value) return {};
  return {Violation{"fenced-exclusion",
                    fmt::format("the fenced counter accepted {} increments but reads {}: {} lost",
                                accepted_increments, final_value, accepted_increments - final_value),
                    {}, 0}};
}

std::vector<Violation> check_herd(int max_wakeups_per_release, int allowed) {
  if (max_wakeups_per_release <= allowed) return {};
  return {Violation{"herd-effect",
                    fmt::format("one release woke {} waiters (at most {} allowed)", max_wakeups_per_release, allowed),
                    {}, 0}};
}

std::vector<Violation> check_queue(const History& h, const std::vector<std::string>& left, bool at_least_once) {
  std::vector<Violation> out;
  std::map<std::string, std::vector<const Op*>> takes;  // value -> ok takes
  std::set<std::string> maybe_taken;                      // a take of it ended in info
  std::map<std::string, const Op*> puts;
  for (const Op& o : h.ops()) {
    if (o.f == "put" && (o.outcome == Outcome::Ok || o.outcome == Outcome::Info)) puts[o.value] = &o;
    if (o.f == "take" && o.outcome == Outcome::Ok) takes[o.value].push_back(&o);
    if (o.f == "take" && o.outcome == Outcome::Info && !o.value.empty()) maybe_taken.insert(o.value);
  }
  std::set<std::string> queued(left.begin(), left.end());
  for (const auto& [value, ts] : takes) {
    if (ts.size() > 1 && !at_least_once) {
      out.push_back(Violation{"queue-no-duplicates",
                              fmt::format("{} was delivered {} times", value, ts.size()),
                              {ts[0]->client, ts[1]->client}, ts[1]->completed});
    }
    if (!puts.count(value)) {
      out.push_back(Violation{"queue-no-phantoms", fmt::format("{} was taken but never put", value),
                              {ts[0]->client}, ts[0]->completed});
    }
  }
  for (const auto& [value, put] : puts) {
    if (put->outcome != Outcome::Ok) continue;
    if (takes.count(value) || queued.count(value) || maybe_taken.count(value)) continue;
    out.push_back(Violation{"queue-no-loss", fmt::format("{} was put (ok) but never taken and is not queued", value),
                            {put->client}, put->completed});
  }
  // FIFO: a taken before b although b's put began after a's put ended and
  // a was queued (put done, not taken) when b's take ended.
  for (const auto& [va, pa] : puts) {
    for (const auto& [vb, pb] : puts) {
      if (pa->outcome != Outcome::Ok || pa->completed >= pb->invoked || !takes.count(vb)) continue;
      const Op* tb = takes[vb].front();
      if (tb->completed < pa->completed) continue;
      bool a_taken_before = takes.count(va) && takes[va].front()->invoked <= tb->completed;
      if (!a_taken_before && !maybe_taken.count(va)) {
        out.push_back(Violation{"queue-fifo",
                                fmt::format("{} was taken at t={} while the older {} was still queued", vb,
                                            tb->completed, va),
                                {tb->client}, tb->completed});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });
  return out;
}

std::vector<Violation> check_double_barrier(const History& h, int members) {
  std::vector<Violation> out;
  std::vector<TimeMs> enter_invokes, leave_invokes;
  std::set<int> entered;
  for (const Op& o : h.ops()) {
    if (o.f == "enter") enter_invokes.push_back(o.invoked);
    if (o.f == "enter" && o.outcome == Outcome::Ok) entered.insert(o.client);
    if (o.f == "leave") leave_invokes.push_back(o.invoked);
  }
  std::sort(enter_invokes.begin(), enter_invokes.end());
  std::sort(leave_invokes.begin(), leave_invokes.end());
  TimeMs all_arrived = static_cast<int>(enter_invokes.size()) >= members
                           ? enter_invokes[static_cast<std::size_t>(members - 1)] : INT64_MAX;
  TimeMs all_leaving = leave_invokes.size() >= entered.size() && !leave_invokes.empty()
                           ? leave_invokes[entered.size() - 1] : INT64_MAX;
  for (const Op& o : h.ops()) {
    if (o.outcome != Outcome::Ok) continue;
    if (o.f == "enter" && o.completed < all_arrived) {
      out.push_back(Violation{"barrier-enter", fmt::format("c{} entered at t={} before all {} arrived", o.client, o.completed, members),
                              {o.client}, o.completed});
    }
    if (o.f == "leave" && o.completed < all_leaving) {
      out.push_back(Violation{"barrier-leave", fmt::format("c{} left at t={} before every member was leaving", o.client, o.completed),
                              {o.client}, o.completed});
    }
  }
  return out;
}

std::vector<Violation> check_no_leaks(const std::vector<std::string>& nodes_left, std::size_t watches_left) {
  std::vector<Violation> out;
  for (const std::string& n : nodes_left) {
    out.push_back(Violation{"no-leaks", fmt::format("{} is left behind", n), {}, 0});
  }
  if (watches_left > 0) {
    out.push_back(Violation{"no-leaks", fmt::format("{} watches are left behind", watches_left), {}, 0});
  }
  return out;
}

}  // namespace zksim::scenarios
