// The barrier family, over `rounds` rounds.
//
// Barrier: in round r, client r % clients coordinates: it raises
// <dir>/b<r>, tells the others, keeps it raised for hold_ms and lowers it;
// the others, once told, wait on it. A member not told within the timeout
// (its coordinator is slow or gone) skips the round.
// Double barrier: every client enters <dir>/r<r> with all `clients`
// members, works for hold_ms, and leaves.
// A varied workload draws each wait's and enter's timeout, and may give a
// barrier member a second waiting handle on its session.
//
// Checked: nobody passes early (check_barrier; check_double_barrier, where
// a member whose session ended has left), liveness, a double barrier's
// prompt enters in runs without faults (progress), and leaks at
// quiescence, the clients still open. Nothing may be left under the
// directory but the rounds' directories and what nobody could remove
// because the session of whoever would have ended first: a barrier whose
// lower never ended ok, a double barrier's "ready" in a round nobody left
// ok. No watch may be left but those of timed-out waits, on a barrier
// still raised or on a "ready" never created (a one-shot watch stays until
// the next change; the client interface has no removeWatches).
#include "workloads.h"

#include "zksim/path.h"

#include <fmt/format.h>

#include <map>

namespace zksim::scenarios::detail {

namespace {

struct BarrierState final : FamilyState {
  std::vector<std::vector<Signal>> raised;  // [round][client]: the coordinator raised it
};

TimeMs wait_ms(const Workload& w) {
  return w.timeout_ms >= 0 ? w.timeout_ms : 2 * static_cast<TimeMs>(w.session_timeout_ms);
}

std::string barrier_name(int round) { return fmt::format("b{}", round); }
std::string round_name(int round) { return fmt::format("r{}", round); }

// Runs `call` as op `f` of `value`, recording its outcome; true if ok.
template <class Call>
Task<bool> recorded(Client& zk, int id, Shared& s, std::string f, std::string value, Call call) {
  auto op = s.history.invoke(id, std::move(f), zk.now(), value);
  Result<void> done = co_await call();
  if (done) {
    s.history.ok(op, zk.now(), value);
  } else {
    record_failure(s.history, op, zk.now(), done.error());
  }
  co_return done.ok();
}

// A single barrier (raise, wait, lower), not a double one.
bool is_single(const Recipe& recipe) { return recipe.family == RecipeFamily::Barrier; }

HandleContext round_context(Client& zk, int id, const Workload& w, const std::string& name) {
  return HandleContext{zk, kDir + "/" + name, fmt::format("c{}", id), {}, w.leases, w.clients};
}

Task<> barrier_client(Client& zk, int id, Workload w, const Recipe& recipe, Shared& s, BarrierState& b,
                      DecisionSource& decisions) {
  for (int r = 0; r < w.rounds && !session_over(zk); ++r) {
    const std::string name = barrier_name(r);
    std::unique_ptr<BarrierHandle> barrier = recipe.make_barrier(round_context(zk, id, w, name));
    if (!barrier) co_return;
    if (r % w.clients == id) {
      bool up = co_await recorded(zk, id, s, "raise", name, [&] { return barrier->raise(); });
      if (up) {
        for (Signal& told : b.raised[static_cast<std::size_t>(r)]) told.set();
      }
      // A varied workload may hold it 50 ms longer: a short wait, which
      // syncs before it looks, then still finds it standing and gives up.
      co_await zk.sleep(w.hold_ms + (w.varied ? 50 * static_cast<TimeMs>(decisions.pick(2)) : 0));
      // Lowered even if the raise failed: it may have happened.
      co_await recorded(zk, id, s, "lower", name, [&] { return barrier->lower(); });
      ++s.completed_rounds;
    } else {
      Signal told = b.raised[static_cast<std::size_t>(r)][static_cast<std::size_t>(id)];
      bool up = co_await zk.wait_for(told, wait_ms(w));
      co_await zk.sleep(0);  // go on at this client's own pace (e.g. after its pause)
      if (up) {
        // A varied workload draws the wait's timeout: 0 only looks, and a
        // short one gives up mid-wait.
        const TimeMs timeout_ms = w.varied ? drawn_timeout(decisions, wait_ms(w)) : wait_ms(w);
        bool passed = co_await recorded(zk, id, s, "wait", name, [&] { return barrier->wait(timeout_ms); });
        if (passed) ++s.completed_rounds;
      }
    }
    co_await zk.sleep(w.think_ms);
  }
}

Task<> double_barrier_client(Client& zk, int id, Workload w, const Recipe& recipe, Shared& s,
                             DecisionSource& decisions) {
  for (int r = 0; r < w.rounds && !session_over(zk); ++r) {
    const std::string name = round_name(r);
    std::unique_ptr<DoubleBarrierHandle> barrier = recipe.make_double_barrier(round_context(zk, id, w, name));
    if (!barrier) co_return;
    // A varied workload draws the enter's timeout: a member may give up
    // waiting for the others.
    const TimeMs timeout_ms = w.varied ? drawn_timeout(decisions, wait_ms(w)) : wait_ms(w);
    bool in = co_await recorded(zk, id, s, "enter", name, [&] { return barrier->enter(timeout_ms); });
    if (in) {
      co_await zk.sleep(w.hold_ms);
      bool out = co_await recorded(zk, id, s, "leave", name, [&] { return barrier->leave(wait_ms(w)); });
      // A leave that timed out keeps our node for a retry (DoubleBarrier's
      // contract): a member that gave up waiting must still leave, or its
      // node stays as long as its session.
      if (!out && !session_over(zk)) {
        out = co_await recorded(zk, id, s, "leave", name, [&] { return barrier->leave(-1); });
      }
      if (out) ++s.completed_rounds;
    }
    co_await zk.sleep(w.think_ms);
  }
}

std::string spawn(World& world, const Workload& w, const Recipe& recipe, Shared& s) {
  auto state = std::make_unique<BarrierState>();
  BarrierState& b = *state;
  s.family = std::move(state);
  // A Signal for each client, and for a second handle each may open.
  const auto handles = static_cast<std::size_t>(w.varied ? 2 * w.clients : w.clients);
  b.raised.resize(static_cast<std::size_t>(w.rounds));
  for (auto& round : b.raised) round.resize(handles);
  auto start = [&](Client& zk) {
    const int id = world.id(zk);
    if (is_single(recipe)) {
      world.spawn(zk, barrier_client(zk, id, w, recipe, s, b, world.decisions()));
    } else {
      world.spawn(zk, double_barrier_client(zk, id, w, recipe, s, world.decisions()));
    }
  };
  std::vector<Client*> clients;
  for (int i = 0; i < w.clients; ++i) {
    clients.push_back(&open_client(world, w, i));
    start(*clients.back());
  }
  // A varied single barrier: a member may also wait through a second handle
  // on its session (it never coordinates: its id is past the clients'). A
  // double barrier's members are its clients, one node each.
  if (w.varied && is_single(recipe)) {
    for (Client* zk : clients) {
      if (Client* view = drawn_share(world, *zk, s)) start(*view);
    }
  }
  return {};
}

std::vector<std::string> properties(const Recipe& recipe) {
  if (is_single(recipe)) return {name(Property::BarrierWait), name(Property::Liveness), name(Property::NoLeaks)};
  return {name(Property::BarrierEnter), name(Property::BarrierLeave), name(Property::Liveness), name(Property::Progress), name(Property::NoLeaks)};
}

// Whether some op `f` of `value` ended ok.
bool ended_ok(const History& h, const std::string& f, const std::string& value) {
  return std::any_of(h.ops().begin(), h.ops().end(), [&](const Op& o) {
    return o.f == f && o.value == value && o.outcome == Outcome::Ok;
  });
}

void check(World& world, const Workload& w, const Recipe& recipe, Shared& s, RunResult& out) {
  const Server& server = world.server();
  std::vector<std::string> strays;
  std::vector<Violation>& v = out.violations;
  // A round's "ready" that nobody could remove: nobody left that round
  // ok, so nobody was the last one out.
  auto unremovable_ready = [&](const std::string& round) { return !ended_ok(s.history, "leave", round); };
  // A watch no wait is left to use: a timed-out wait's, on a barrier still
  // raised or on a round's "ready" that was never created; or an enter's,
  // on a "ready" that nobody could remove (it fires when "ready" goes).
  auto timed_out = [&](const std::string& watch) {
    if (!watch.starts_with("data ")) return false;
    const std::string path = watch.substr(5);
    const bool exists = server.node(path).has_value();
    if (is_single(recipe)) return exists;
    if (!path.ends_with("/" + recipe.traits.ready_node)) return false;
    return !exists || unremovable_ready(std::string(name_of(parent_of(path))));
  };
  if (is_single(recipe)) {
    for (const std::string& name : server.children(kDir)) {
      if (ended_ok(s.history, "lower", name)) strays.push_back(kDir + "/" + name);
    }
    append(v, check_barrier(s.history));
  } else {
    note_expiries(world.trace(), s.sharers, s.history);
    for (const std::string& round : server.children(kDir)) {
      for (const std::string& name : server.children(kDir + "/" + round)) {
        if (name == recipe.traits.ready_node && unremovable_ready(round)) continue;
        strays.push_back(kDir + "/" + round + "/" + name);
      }
    }
    append(v, check_double_barrier(s.history, w.clients));
    // A session timeout: hundreds of round trips in a run without faults.
    if (no_fault_struck(world.trace())) append(v, check_prompt_enters(s.history, w.clients, w.session_timeout_ms));
  }
  append(v, check_no_pending(s.history, {"raise", "lower", "wait", "enter", "leave"}));
  append(v, check_no_leaks(strays, watches_left(server, timed_out)));
}

}  // namespace

Family barrier_family() { return Family{{RecipeFamily::Barrier, RecipeFamily::DoubleBarrier}, spawn, properties, check}; }

}  // namespace zksim::scenarios::detail
