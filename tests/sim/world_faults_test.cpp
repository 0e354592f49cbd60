// Each fault class, with its exact client-visible effect.
#include "world_fixture.h"

namespace zksim::test {
namespace {

TEST(WorldFaults, DropBeforeApplyLosesTheRequestAndReconnects) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  Seen seen;
  c.set_default_watcher(seen.watcher());
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<CreateRequest>));
  run(w, c, [](Client& c) -> Task<> {
    auto made = co_await c.create("/a", "", CreateMode::Persistent);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    EXPECT_EQ(c.state(), SessionState::Connecting);
    auto again = co_await c.exists("/a");  // queued until reconnected
    EXPECT_EQ(again.error(), Error::NoNode);
    EXPECT_EQ(c.state(), SessionState::Connected);
  }(c));
  EXPECT_FALSE(w.server().node("/a"));
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected,
                                                     KeeperState::Disconnected,
                                                     KeeperState::SyncConnected}));
}

TEST(WorldFaults, DropAfterApplyLeavesTheNodeButReportsConnectionLoss) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>));
  SessionId session;
  run(w, c, [](Client& c, SessionId& session) -> Task<> {
    auto made = co_await c.create("/lock/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    session = c.session_id();
    // Same session after reconnecting: the orphan is ours, and the retry
    // makes a second node.
    auto retry = co_await c.create("/lock/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(retry.error(), Error::NoNode);  // "/lock" never existed
  }(c, session));
  EXPECT_EQ(c.session_id(), session);
}

TEST(WorldFaults, DropAfterApplyOrphansAnEphemeralSequentialNode) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>, 2));
  run(w, c, [](Client& c) -> Task<> {
    co_await c.create("/lock", "", CreateMode::Persistent);
    auto lost = co_await c.create("/lock/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(lost.error(), Error::ConnectionLoss);
    auto retry = co_await c.create("/lock/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(retry->path, "/lock/n-0000000001");
  }(c));
  EXPECT_EQ(w.server().children("/lock"),
            (std::vector<std::string>{"n-0000000000", "n-0000000001"}));
  EXPECT_EQ(w.server().node("/lock/n-0000000000")->stat.ephemeralOwner, c.session_id().value);
}

TEST(WorldFaults, ExpiryIsSeenByOthersBeforeTheExpiredClientLearnsIt) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& holder = w.open("holder");
  Client& watcher = w.open("watcher");
  std::vector<std::string> log;
  holder.set_default_watcher([&](const WatchedEvent& e) {
    if (e.state == KeeperState::Disconnected) log.push_back("holder disconnected");
    if (e.state == KeeperState::Expired) log.push_back("holder expired");
  });
  run(w, holder, [](Client& h, Client& wa, std::vector<std::string>& log) -> Task<> {
    co_await h.create("/lock", "", CreateMode::Ephemeral);
    co_await wa.exists("/lock", [&](const WatchedEvent& e) {
      if (e.type == EventType::NodeDeleted) log.push_back("watcher saw delete");
    });
  }(holder, watcher, log));
  // Make the holder's connection slow, so the news reaches it late.
  w.inject(FaultKind::Delay, 0, 50);
  w.inject(FaultKind::ExpireSession, 0);
  EXPECT_EQ(holder.state(), SessionState::Connected);  // it still believes so
  EXPECT_FALSE(w.server().node("/lock"));
  w.run_until(w.now() + 200);
  EXPECT_EQ(log, (std::vector<std::string>{"watcher saw delete", "holder disconnected",
                                           "holder expired"}));
  EXPECT_EQ(holder.state(), SessionState::Expired);
  run(w, watcher, [](Client& h) -> Task<> {
    EXPECT_EQ((co_await h.exists("/")).error(), Error::InvalidState);
  }(holder));
}

TEST(WorldFaults, PendingRequestsFailWithSessionExpired) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.run_until(10);
  w.inject(FaultKind::ExpireSession, 0);
  run(w, c, [](Client& c) -> Task<> {
    // Sent before the client learns: lost with the connection.
    EXPECT_EQ((co_await c.exists("/")).error(), Error::ConnectionLoss);
    // Queued while reconnecting: the reconnect finds the session gone.
    EXPECT_EQ((co_await c.exists("/")).error(), Error::SessionExpired);
  }(c));
}

TEST(WorldFaults, ShortPauseKeepsTheSession) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 3000);
  Seen seen;
  c.set_default_watcher(seen.watcher());
  w.run_until(10);
  w.inject(FaultKind::Pause, 0, 1500);  // under 2/3 of 3000
  w.run_until(100'000);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected}));
}

TEST(WorldFaults, PauseBeyondTwoThirdsDisconnectsButKeepsTheSession) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 3000);
  Seen seen;
  c.set_default_watcher(seen.watcher());
  w.run_until(10);
  SessionId s = c.session_id();
  w.inject(FaultKind::Pause, 0, 2500);
  w.run_until(100'000);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(c.session_id(), s);
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected,
                                                     KeeperState::Disconnected,
                                                     KeeperState::SyncConnected}));
}

TEST(WorldFaults, PauseBeyondTheTimeoutExpiresTheSession) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 3000);
  Client& other = w.open("b", 3000);
  Seen seen;
  c.set_default_watcher(seen.watcher());
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/e", "", CreateMode::Ephemeral); }(c));
  TimeMs paused_at = w.now();
  w.inject(FaultKind::Pause, 0, 10'000);
  // The server expires it about one timeout after its last ping, while the
  // client is still paused and believes it is connected.
  w.run_until(paused_at + 3500);
  EXPECT_FALSE(w.server().node("/e"));
  EXPECT_EQ(c.state(), SessionState::Connected);
  w.run_until(paused_at + 20'000);
  EXPECT_EQ(c.state(), SessionState::Expired);
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected,
                                                     KeeperState::Disconnected,
                                                     KeeperState::Expired}));
  EXPECT_EQ(other.state(), SessionState::Connected);
}

TEST(WorldFaults, PausedClientRunsNothing) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  TimeMs woke = -1;
  w.spawn(c, [](Client& c, TimeMs& woke) -> Task<> {
    co_await c.sleep(100);
    woke = c.now();
  }(c, woke));
  w.run_until(50);
  w.inject(FaultKind::Pause, 0, 1000);
  w.run_until(5000);
  EXPECT_EQ(woke, 1050);
}

TEST(WorldFaults, CrashLeavesTheSessionUntilItTimesOut) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/e", "", CreateMode::Ephemeral); }(c));
  w.spawn(c, [](Client& c) -> Task<> {
    co_await c.sleep(1'000'000);  // never finishes: destroyed by the crash
  }(c));
  TimeMs crashed_at = w.now();
  w.inject(FaultKind::Crash, 0);
  EXPECT_EQ(w.running_tasks(), 0);
  EXPECT_EQ(c.state(), SessionState::Closed);
  w.run_until(crashed_at + 1500);
  EXPECT_TRUE(w.server().node("/e"));  // the session lingers
  w.run_until(crashed_at + 2500);
  EXPECT_FALSE(w.server().node("/e"));
}

TEST(WorldFaults, DelayHoldsBackTheNextMessageInOrder) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.run_until(10);
  w.inject(FaultKind::Delay, 0, 100);
  std::vector<TimeMs> done;
  run(w, c, [](Client& c, std::vector<TimeMs>& done) -> Task<> {
    co_await c.exists("/");
    done.push_back(c.now());
    co_await c.exists("/");
    done.push_back(c.now());
  }(c, done));
  EXPECT_EQ(done, (std::vector<TimeMs>{112, 114}));
}

// Three sequential creates of `prefix` one after another: each path made,
// or the error's name.
std::vector<std::string> three_sequential(World& w, Client& c, std::string prefix, CreateMode mode) {
  std::vector<std::string> names;
  run(w, c, [](Client& c, std::string prefix, CreateMode mode, std::vector<std::string>& names) -> Task<> {
    for (int i = 0; i < 3; ++i) {
      auto r = co_await c.create(prefix, "", mode);
      names.push_back(r ? r->path : std::string(error_name(r.error())));
    }
  }(c, prefix, mode, names));
  return names;
}

TEST(WorldFaults, SequenceCounterCanStartNearWrapAround) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/q", "", CreateMode::Persistent); }(c));
  ASSERT_EQ(w.set_sequence_counter("/q", INT32_MAX - 1), Error::Ok);
  EXPECT_EQ(three_sequential(w, c, "/q/n", CreateMode::PersistentSequential),
            (std::vector<std::string>{"/q/n2147483646", "/q/n2147483647", "ZNODEEXISTS"}));
}

// A long-lived directory, as a deployment has it before the run: on every
// server, made by no transaction, its counter where it is set.
TEST(WorldFaults, APresetNodeIsOnEveryServerWithItsSequenceCounter) {
  ListDecisions d({});
  WorldConfig cfg = quiet();
  cfg.servers = 3;
  World w(cfg, d);
  ASSERT_EQ(w.preset_node("/app/locks", INT32_MAX - 1), Error::Ok);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(w.server(i).node("/app/locks")) << "server " << i;
    EXPECT_EQ(w.server(i).node("/app/locks")->stat.czxid, 0);
    EXPECT_EQ(w.server(i).node("/app")->stat.numChildren, 1);
    EXPECT_EQ(w.server(i).last_zxid().value, 0);
  }
  Client& c = w.open("a", 4000, -1, Flavour::C, {2});
  EXPECT_EQ(three_sequential(w, c, "/app/locks/n-", CreateMode::EphemeralSequential),
            (std::vector<std::string>{"/app/locks/n-2147483646", "/app/locks/n-2147483647", "ZNODEEXISTS"}));
}

TEST(WorldFaults, ANodeIsPresetOnlyBeforeAnyClientAndOnlyAtAValidPath) {
  ListDecisions d({});
  World w(quiet(), d);
  EXPECT_EQ(w.preset_node("no-slash", 0), Error::BadArguments);
  EXPECT_EQ(w.preset_node("/a//b", 0), Error::BadArguments);
  EXPECT_EQ(w.preset_node("/", 0), Error::BadArguments);
  w.open("a");
  EXPECT_EQ(w.preset_node("/a", 0), Error::BadArguments);
  EXPECT_FALSE(w.server().node("/a"));
}

TEST(WorldFaults, ReconnectFiresTheWatchItMissed) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 3000);
  Client& b = w.open("b");
  Seen seen;
  run(w, a, [](Client& a, Client& b, Seen& seen) -> Task<> {
    co_await b.create("/n", "", CreateMode::Persistent);
    co_await a.get_data("/n", seen.watcher());
  }(a, b, seen));
  w.inject(FaultKind::Pause, 0, 2500);  // a will drop its connection on waking
  run(w, b, [](Client& b) -> Task<> { co_await b.set_data("/n", "changed"); }(b));
  w.run_until(w.now() + 10'000);
  // The change happened while a was paused; the event was held, then lost
  // with the connection, then fired again by setWatches on reconnect. A
  // registered watcher also hears the session events (collectWatchers).
  ASSERT_EQ(seen.events.size(), 3u);
  EXPECT_EQ(seen.events[0], (WatchedEvent{EventType::None, KeeperState::Disconnected, ""}));
  EXPECT_EQ(seen.events[1], (WatchedEvent{EventType::None, KeeperState::SyncConnected, ""}));
  EXPECT_EQ(seen.events[2],
            (WatchedEvent{EventType::NodeDataChanged, KeeperState::SyncConnected, "/n"}));
}

// DataTree.removeCnxn: a connection's watches go when it closes, and
// setWatches brings them back on the next one. So a change between the
// reconnect and setWatches fires once (from setWatches), not twice.
TEST(WorldFaults, WatchesGoWithTheConnectionAndComeBackWithSetWatches) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 3000);
  Client& b = w.open("b");
  Seen seen;
  run(w, a, [](Client& a, Client& b, Seen& seen) -> Task<> {
    co_await b.create("/n", "", CreateMode::Persistent);
    co_await a.get_data("/n", seen.watcher());
  }(a, b, seen));
  ASSERT_EQ(w.server().watch_count(), 1u);
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<ExistsRequest>));
  bool gone_while_disconnected = false;
  run(w, a, [](Client& a, World& w, bool& gone) -> Task<> {
    auto r = co_await a.exists("/other");
    EXPECT_EQ(r.error(), Error::ConnectionLoss);
    gone = w.server().watch_count() == 0;
  }(a, w, gone_while_disconnected));
  EXPECT_TRUE(gone_while_disconnected);
  w.run_until(w.now() + 5'000);
  EXPECT_EQ(a.state(), SessionState::Connected);
  EXPECT_EQ(w.server().watch_count(), 1u);  // re-registered by setWatches
  run(w, b, [](Client& b) -> Task<> { co_await b.remove("/n"); }(b));
  w.run_until(w.now() + 1'000);
  int deleted = 0;
  for (const WatchedEvent& e : seen.events) deleted += e.type == EventType::NodeDeleted;
  EXPECT_EQ(deleted, 1);
}

TEST(WorldFaults, ScriptedFaultFiresAtItsTime) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a", 2000);
  ScriptedFault f;
  f.kind = FaultKind::Crash;
  f.client = 0;
  f.at = 500;
  w.schedule(f);
  w.run_until(499);
  EXPECT_EQ(c.state(), SessionState::Connected);
  w.run_until(500);
  EXPECT_EQ(c.state(), SessionState::Closed);
}

TEST(WorldFaults, TraceRecordsFaultsAndAnnotationsReadably) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>));
  run(w, c, [](Client& c) -> Task<> {
    c.annotate("about to create");
    co_await c.create("/x", "", CreateMode::Persistent);
  }(c));
  std::string text = render_trace(w.trace());
  EXPECT_NE(text.find("// about to create"), std::string::npos) << text;
  EXPECT_NE(text.find("** fault drop-after-apply"), std::string::npos) << text;
  EXPECT_NE(text.find("<- create /x #1 ZCONNECTIONLOSS"), std::string::npos) << text;
  EXPECT_NE(text.find("== connecting"), std::string::npos) << text;
}

TEST(WorldFaults, NemesisAtZeroDecisionsInjectsNothing) {
  WorldConfig cfg = quiet();
  for (auto& r : cfg.nemesis.per_mille) r = 100;
  cfg.nemesis.pause_ms = 100;
  ListDecisions d({});
  World w(cfg, d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    for (int i = 0; i < 20; ++i) EXPECT_TRUE((co_await c.exists("/")).ok());
  }(c));
}

TEST(WorldFaults, NemesisTopDecisionPicksTheFirstClass) {
  WorldConfig cfg = quiet();
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropBeforeApply)] = 10;
  ListDecisions d({999});
  World w(cfg, d);
  Client& c = w.open("a");
  run(w, c, [](Client& c) -> Task<> {
    EXPECT_EQ((co_await c.exists("/")).error(), Error::ConnectionLoss);
    EXPECT_TRUE((co_await c.exists("/")).ok());
  }(c));
}

}  // namespace
}  // namespace zksim::test
