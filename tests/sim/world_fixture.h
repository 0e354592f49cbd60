// Helpers for world tests: run one coroutine to completion, record events.
#pragma once

#include "zksim/world.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

namespace zksim::test {

// A world where every message takes exactly latency_ms (no delay decisions).
inline WorldConfig quiet() {
  WorldConfig c;
  c.delay_choices = 1;
  return c;
}

// A quiet world with one client "a" of flavour `f` (2 s sessions).
struct Rig {
  Rig(Flavour f, DecisionSource& d) : world(quiet(), d), zk(world.open("a", 2000, -1, f)) {}
  World world;
  Client& zk;
};

// The library threads' lags (the decisions of kThreadLagChoices, 3) in
// turn, as the test sets them, then `otherwise`; every other decision 0.
// Tests using it keep message delays fixed (quiet()), so that no other
// decision has 3 choices.
class ThreadLags final : public DecisionSource {
 public:
  std::deque<std::uint32_t> lags;
  std::uint32_t otherwise = 0;
  std::uint32_t choose(std::uint32_t n) override {
    if (n != 3) return 0;
    if (lags.empty()) return otherwise;
    const std::uint32_t lag = lags.front();
    lags.pop_front();
    return lag;
  }
};

// A fault when `client`'s nth request of `request_kind` (under `path`)
// reaches the server.
inline ScriptedFault on_nth(FaultKind kind, int client, std::int32_t request_kind, int nth = 1,
                            std::string path = "") {
  ScriptedFault f;
  f.kind = kind;
  f.client = client;
  f.on = RequestMatch{request_kind, std::move(path)};
  f.nth = nth;
  return f;
}

// A fault at simulated time `t`.
inline ScriptedFault at_time(FaultKind kind, int client, TimeMs t, TimeMs duration_ms = 0) {
  ScriptedFault f;
  f.kind = kind;
  f.client = client;
  f.at = t;
  f.duration_ms = duration_ms;
  return f;
}

// Runs `task` as `owner` until it finishes; fails the test if it does not by `limit`.
inline void run(World& w, Client& owner, Task<> task, TimeMs limit = 1'000'000) {
  w.spawn(owner, std::move(task));
  ASSERT_TRUE(w.run_until_done(limit)) << "task still running at t=" << w.now();
}

// Collects the events a watcher sees.
struct Seen {
  std::vector<WatchedEvent> events;
  Watcher watcher() {
    return [this](const WatchedEvent& e) { events.push_back(e); };
  }
  std::vector<KeeperState> states() const {
    std::vector<KeeperState> out;
    for (const auto& e : events) {
      if (e.type == EventType::None) out.push_back(e.state);
    }
    return out;
  }
};

// Waits (in simulated time) until `pred` holds or `limit` passes.
template <class Pred>
Task<bool> until(Client& c, Pred pred, TimeMs limit = 100'000) {
  TimeMs end = c.now() + limit;
  while (!pred()) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

}  // namespace zksim::test
