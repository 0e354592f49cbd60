// The simulated world: sessions as the C client sees them, and the exact
// client-visible effect of each fault class.
#include "world_fixture.h"

#include <set>

namespace zksim::test {
namespace {

TEST(WorldSession, ConnectsAndNegotiatesTheTimeout) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 100000);
  Seen seen;
  c.set_default_watcher(seen.watcher());
  EXPECT_EQ(c.state(), SessionState::Connecting);
  w.run_until(10);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected}));
  EXPECT_EQ(w.server().session_timeout_ms(c.session_id()), 4000);  // 20 ticks of 200 ms
}

TEST(WorldSession, RequestsWaitForTheConnection) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    auto made = co_await c.create("/a", "x", CreateMode::Persistent);
    EXPECT_TRUE(made.ok());
    auto got = co_await c.get_data("/a");
    EXPECT_EQ(got->data, "x");
    EXPECT_EQ(got->stat.czxid, made->stat.czxid);
  }(c));
  EXPECT_EQ(w.now(), 6);  // connect 2 ms, then two round trips of 2 ms
}

TEST(WorldSession, InvalidPathsNeverLeaveTheClient) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    EXPECT_EQ((co_await c.create("/a/", "", CreateMode::Persistent)).error(), Error::BadArguments);
    EXPECT_EQ((co_await c.exists("a")).error(), Error::BadArguments);
    EXPECT_EQ((co_await c.create("/", "", CreateMode::PersistentSequential)).error(), Error::Ok);
  }(c));
  EXPECT_EQ(w.server().last_zxid().value, 2);  // session, one create
}

TEST(WorldSession, WatchFiresOnceThroughTheClient) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Seen seen;
  run(w, a, [](Client& a, Client& b, Seen& seen) -> Task<> {
    EXPECT_EQ((co_await a.exists("/n", seen.watcher())).error(), Error::NoNode);
    EXPECT_TRUE((co_await b.create("/n", "", CreateMode::Persistent)).ok());
    EXPECT_TRUE((co_await b.set_data("/n", "x")).ok());
    co_await a.sleep(10);
  }(a, b, seen));
  ASSERT_EQ(seen.events.size(), 1u);
  EXPECT_EQ(seen.events[0].type, EventType::NodeCreated);
}

TEST(WorldSession, OwnWatchEventArrivesBeforeOwnReply) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  std::vector<std::string> order;
  run(w, a, [](Client& a, std::vector<std::string>& order) -> Task<> {
    co_await a.create("/n", "", CreateMode::Persistent);
    co_await a.get_data("/n", [&](const WatchedEvent&) { order.push_back("event"); });
    co_await a.set_data("/n", "x");
    order.push_back("reply");
  }(a, order));
  EXPECT_EQ(order, (std::vector<std::string>{"event", "reply"}));
}

TEST(WorldSession, SharedHandleIsOneSession) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& a2 = w.share(a, "a-thread-2");
  w.run_until(10);
  EXPECT_EQ(a.session_id(), a2.session_id());
  run(w, a2, [](Client& a2) -> Task<> {
    EXPECT_TRUE((co_await a2.create("/e", "", CreateMode::Ephemeral)).ok());
  }(a2));
  EXPECT_EQ(w.server().node("/e")->stat.ephemeralOwner, a.session_id().value);
}

TEST(WorldSession, NewSessionWhileOldIsAlive) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& old_session = w.open("p", 4000, /*process=*/7);
  Client& new_session = w.open("p-again", 4000, /*process=*/7);
  w.run_until(10);
  EXPECT_NE(old_session.session_id(), new_session.session_id());
  EXPECT_TRUE(w.server().session_alive(old_session.session_id()));
  EXPECT_TRUE(w.server().session_alive(new_session.session_id()));
}

TEST(WorldSession, IdleConnectedSessionNeverExpires) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 1000);
  w.run_until(1'000'000);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_TRUE(w.server().session_alive(c.session_id()));
}

TEST(WorldSession, CloseDeletesEphemeralsAndEndsTheHandle) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    co_await c.create("/e", "", CreateMode::Ephemeral);
    EXPECT_TRUE((co_await c.close()).ok());
    EXPECT_EQ(c.state(), SessionState::Closed);
    EXPECT_EQ((co_await c.exists("/e")).error(), Error::InvalidState);
  }(c));
  EXPECT_FALSE(w.server().node("/e"));
}

TEST(WorldSession, GetChildrenOrderIsADecision) {
  auto children = [](std::vector<std::uint32_t> list) {
    ListDecisions d(std::move(list));
    World w(quiet(), d);
    Client& c = w.open("a");
    std::vector<std::string> out;
    run(w, c, [](Client& c, std::vector<std::string>& out) -> Task<> {
      co_await c.create("/p", "", CreateMode::Persistent);
      for (const char* n : {"/p/a", "/p/b", "/p/c"}) co_await c.create(n, "", CreateMode::Persistent);
      out = (co_await c.get_children("/p"))->children;
    }(c, out));
    return out;
  };
  EXPECT_EQ(children({}), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(children({2, 1}), (std::vector<std::string>{"c", "a", "b"}));
}

TEST(WorldSession, SessionListenersHearEverySessionEventUntilRemoved) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 3000);
  Seen first, second;
  std::uint64_t a = c.add_session_listener(first.watcher());
  c.add_session_listener(second.watcher());
  w.run_until(10);
  c.remove_session_listener(a);
  w.inject(FaultKind::ExpireSession, 0);
  w.run_until(10'000);
  EXPECT_EQ(first.states(), (std::vector<KeeperState>{KeeperState::SyncConnected}));
  // Expiry is learned on reconnect: Disconnected, then Expired.
  EXPECT_EQ(second.states(), (std::vector<KeeperState>{KeeperState::SyncConnected,
                                                       KeeperState::Disconnected,
                                                       KeeperState::Expired}));
}

TEST(WorldSession, WaitForReturnsWhenTheSignalIsSetOrTheTimeoutPasses) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  Client& b = w.open("b");
  run(w, c, [](Client& c, Client& b) -> Task<> {
    Signal never;
    TimeMs start = c.now();
    EXPECT_FALSE(co_await c.wait_for(never, 50));
    EXPECT_EQ(c.now(), start + 50);
    Signal created;
    EXPECT_EQ((co_await c.exists("/n", signal_watcher(created))).error(), Error::NoNode);
    EXPECT_TRUE((co_await b.create("/n", "", CreateMode::Persistent)).ok());
    start = c.now();
    EXPECT_TRUE(co_await c.wait_for(created, 1000));
    EXPECT_LT(c.now(), start + 1000);
    EXPECT_TRUE(co_await c.wait_for(created, 0));  // already set: no suspension
    co_await c.sleep(2000);                         // the cancelled timer never fires
  }(c, b));
}

TEST(WorldSession, UniqueIdsDifferAcrossCallsAndClients) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Client& a2 = w.share(a, "a2");
  w.run_until(10);
  std::set<std::string> ids{a.unique_id(), a.unique_id(), b.unique_id(), a2.unique_id()};
  EXPECT_EQ(ids.size(), 4u);
}

// --- the step limit: no recipe can keep a run going without end ---

TEST(WorldStepLimit, StepsCountEventsAndCallsAnsweredAtOnce) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    co_await c.exists("/a");
    co_await c.close();
  }(c));
  const std::uint64_t after_close = w.steps();
  EXPECT_GT(after_close, 0u);
  run(w, c, [](Client& c) -> Task<> {
    EXPECT_EQ((co_await c.exists("/a")).error(), Error::InvalidState);  // answered at once
  }(c));
  EXPECT_EQ(w.steps(), after_close + 2);  // the task's start, and the refused call
}

TEST(WorldStepLimit, StopsTheEventLoopAtTheLimit) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.spawn(c, [](Client& c) -> Task<> {
    for (;;) co_await c.exists("/a");  // never ends, and waits for every reply
  }(c));
  w.set_step_limit(1000);
  EXPECT_FALSE(w.run_until_done(1'000'000'000));
  EXPECT_TRUE(w.step_limit_reached());
  EXPECT_EQ(w.steps(), 1000u);
  const TimeMs stopped_at = w.now();
  w.run_until(stopped_at + 1'000'000);  // a stopped world stays where it is
  EXPECT_EQ(w.now(), stopped_at);
  EXPECT_EQ(w.steps(), 1000u);
}

TEST(WorldStepLimit, StopsALoopThatNeverWaitsForAnEvent) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  int calls = 0;
  w.spawn(c, [](Client& c, int& calls) -> Task<> {
    co_await c.close();
    // Every call on a closed handle is answered at once, without an event:
    // without the limit this loop would never give the world back.
    for (;;) {
      ++calls;
      co_await c.exists("/a");
    }
  }(c, calls));
  w.set_step_limit(5000);
  EXPECT_FALSE(w.run_until_done(1'000'000));
  EXPECT_TRUE(w.step_limit_reached());
  EXPECT_LE(calls, 5000);
  EXPECT_EQ(w.running_tasks(), 1);  // waits forever, destroyed with the world
}

TEST(WorldStepLimit, ALongLoopOfCallsAnsweredAtOnceNeitherGrowsTheStackNorTakesTime) {
  // Without optimisation every call answered at once would nest one more
  // coroutine resumption; past kAnswersAtOnce in a row they go through an
  // event at the same instant instead.
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  int answered = 0;
  TimeMs closed_at = -1;
  w.spawn(c, [](Client& c, int& answered, TimeMs& closed_at) -> Task<> {
    co_await c.close();
    closed_at = c.now();
    for (int i = 0; i < 200'000; ++i) {
      if ((co_await c.exists("/a")).error() == Error::InvalidState) ++answered;
    }
  }(c, answered, closed_at));
  EXPECT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(answered, 200'000);
  EXPECT_EQ(w.now(), closed_at);
}

TEST(WorldStepLimit, RunUntilDoneCanStopAtAStepCountWithoutStoppingTheWorld) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.spawn(c, [](Client& c) -> Task<> {
    for (int i = 0; i < 100; ++i) co_await c.exists("/a");
  }(c));
  EXPECT_FALSE(w.run_until_done(1'000'000, 50));
  EXPECT_EQ(w.steps(), 50u);
  EXPECT_FALSE(w.step_limit_reached());
  EXPECT_TRUE(w.run_until_done(1'000'000));  // and then goes on
}

}  // namespace
}  // namespace zksim::test
