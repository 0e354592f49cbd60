// An ensemble of servers: one rule of docs/ensemble.md per test.
#include "ensemble_fixture.h"
#include "world_fixture.h"

#include <algorithm>

namespace zksim::test {
namespace {

// A quiet world of `servers` servers whose followers lag 10 ms a step.
WorldConfig ensemble(int servers) {
  WorldConfig c = quiet();
  c.servers = servers;
  c.follower_lag_ms = 10;
  return c;
}

std::optional<std::string> data_on(World& w, int server, const std::string& path) {
  auto n = w.server(server).node(path);
  if (!n) return std::nullopt;
  return n->data;
}

TEST(Ensemble, ACommittedWriteReachesEveryServerInOrder) {
  SeededDecisions d(11);
  World w(ensemble(3), d);
  Client& a = w.open("a", 4000, -1, Flavour::C, {0});
  Client& b = w.open("b", 4000, -1, Flavour::C, {2});
  for (auto [c, prefix] : {std::pair{&a, "a"}, std::pair{&b, "b"}}) {
    w.spawn(*c, [](Client& c, std::string prefix) -> Task<> {
      for (int i = 0; i < 10; ++i) co_await c.create(fmt::format("/{}{}", prefix, i), "x", CreateMode::Persistent);
    }(*c, prefix));
  }
  // At every instant each follower holds a prefix of the leader's log.
  auto order_of = [&](int server) {
    std::vector<std::pair<std::int64_t, std::string>> made;
    for (const std::string& name : w.server(server).children("/")) {
      if (name != "zookeeper") made.emplace_back(w.server(server).stat("/" + name)->czxid, name);
    }
    std::sort(made.begin(), made.end());
    return made;
  };
  for (TimeMs t = 0; t < 2000 && w.running_tasks() > 0; ++t) {
    w.run_until(t);
    const auto led = order_of(0);
    for (int f : {1, 2}) {
      const auto seen = order_of(f);
      ASSERT_LE(seen.size(), led.size());
      ASSERT_TRUE(std::equal(seen.begin(), seen.end(), led.begin())) << "server " << f << " at " << t;
    }
  }
  ASSERT_EQ(w.running_tasks(), 0);
  w.run_until(w.now() + 1000);
  EXPECT_EQ(order_of(0).size(), 20u);
  for (int f : {1, 2}) {
    EXPECT_EQ(order_of(f), order_of(0));
    EXPECT_EQ(w.server(f).last_zxid(), w.server(0).last_zxid());
    for (const auto& [czxid, name] : order_of(0)) {
      EXPECT_EQ(w.server(f).node("/" + name)->stat, w.server(0).node("/" + name)->stat) << name;
    }
  }
}

TEST(Ensemble, AFollowerReadCanBeStale) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  run(w, writer, [](Client& c) -> Task<> {
    co_await c.create("/a", "1", CreateMode::Persistent);
  }(writer));
  w.run_until(w.now() + 100);
  run(w, writer, [](Client& c) -> Task<> { co_await c.set_data("/a", "2"); }(writer));
  run(w, reader, [](Client& c) -> Task<> {
    auto stale = co_await c.get_data("/a");
    EXPECT_EQ(stale->data, "1");
    co_await c.sleep(100);
    auto fresh = co_await c.get_data("/a");
    EXPECT_EQ(fresh->data, "2");
  }(reader));
}

TEST(Ensemble, SyncCatchesTheFollowerUp) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  run(w, reader, [](Client& c) -> Task<> { co_await c.sleep(50); }(reader));
  run(w, writer, [](Client& c) -> Task<> { co_await c.create("/a", "1", CreateMode::Persistent); }(writer));
  run(w, reader, [&w](Client& c) -> Task<> {
    EXPECT_FALSE(data_on(w, 1, "/a"));  // server 1 is behind
    EXPECT_TRUE((co_await c.sync("/a")).ok());
    auto got = co_await c.get_data("/a");
    EXPECT_TRUE(got.ok() && got->data == "1");
  }(reader));
}

TEST(Ensemble, AWriteIsAnsweredOnceTheClientsServerHasAppliedIt) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {2});
  run(w, c, [](Client& c) -> Task<> { co_await c.sleep(50); }(c));
  run(w, c, [&w](Client& c) -> Task<> {
    const TimeMs sent = c.now();
    auto made = co_await c.create("/a", "1", CreateMode::Persistent);
    EXPECT_TRUE(made.ok());
    EXPECT_GE(c.now(), sent + 30);  // the lag of 3 steps of 10 ms
    EXPECT_TRUE(data_on(w, 2, "/a"));
    auto got = co_await c.get_data("/a");
    EXPECT_TRUE(made.ok() && got.ok() && got->stat.czxid == made->stat.czxid);
  }(c));
}

TEST(Ensemble, AReadWaitsBehindItsSessionsPendingWrite) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  run(w, c, [](Client& c) -> Task<> { co_await c.sleep(50); }(c));
  std::optional<Result<DataResponse>> read;
  w.spawn(c, [](Client& c) -> Task<> { co_await c.create("/a", "1", CreateMode::Persistent); }(c));
  w.spawn(c, [](Client& c, std::optional<Result<DataResponse>>* read) -> Task<> {
    *read = co_await c.get_data("/a");
  }(c, &read));
  ASSERT_TRUE(w.run_until_done(1000));
  ASSERT_TRUE(read && read->ok());
  EXPECT_EQ((*read)->data, "1");
}

// CommitProcessor keeps a session's requests in order whichever of its
// connections sent them (pendingRequests is by session id, ZooKeeper 3.8):
// a client whose write's reply was lost, back on the same follower, reads
// behind that write.
TEST(Ensemble, AReadWaitsBehindItsSessionsWriteFromAnEarlierConnection) {
  Lags d(3);
  WorldConfig cfg = ensemble(3);
  cfg.follower_lag_ms = 100;  // followers 300 ms behind
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  run(w, c, [](Client& c) -> Task<> { co_await c.sleep(400); }(c));  // connected once server 1 applied its session
  std::optional<Result<CreateResponse>> made;
  w.spawn(c, [](Client& c, std::optional<Result<CreateResponse>>* made) -> Task<> {
    *made = co_await c.create("/a", "1", CreateMode::Persistent);
  }(c, &made));
  // Until the create is with the leader, not yet applied on server 1.
  for (TimeMs until = w.now() + 100; !data_on(w, 0, "/a") && w.now() < until;) w.run_until(w.now() + 1);
  ASSERT_TRUE(data_on(w, 0, "/a"));
  ASSERT_FALSE(data_on(w, 1, "/a"));
  w.inject(FaultKind::DropAfterApply, w.id(c));
  run(w, c, [&w](Client& c) -> Task<> {
    co_await c.sleep(20);  // connected again, to server 1
    EXPECT_EQ(w.server_of(c), 1);
    EXPECT_FALSE(data_on(w, 1, "/a"));
    auto got = co_await c.get_data("/a");
    EXPECT_TRUE(got.ok() && got->data == "1") << (got.ok() ? got->data : std::string(error_name(got.error())));
  }(c));
  ASSERT_TRUE(made && !made->ok());
  EXPECT_EQ(made->error(), Error::ConnectionLoss);
}

TEST(Ensemble, WatchesFireOnTheConnectedServer) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  TimeMs fired = -1;
  bool applied_then = false;
  run(w, reader, [&](Client& c) -> Task<> {
    co_await c.exists("/a", [&](const WatchedEvent& e) {
      if (e.type != EventType::NodeCreated) return;
      fired = w.now();
      applied_then = data_on(w, 1, "/a").has_value();
    });
  }(reader));
  EXPECT_EQ(w.server(1).watch_count(), 1u);
  EXPECT_EQ(w.server(0).watch_count(), 0u);
  TimeMs created = -1;
  run(w, writer, [&](Client& c) -> Task<> {
    co_await c.create("/a", "1", CreateMode::Persistent);
    created = c.now();
  }(writer));
  w.run_until(w.now() + 100);
  ASSERT_GE(fired, 0);
  EXPECT_GT(fired, created);  // not when the leader committed it
  EXPECT_TRUE(applied_then);
}

TEST(Ensemble, AServerBehindTheClientsZxidRefusesIt) {
  Lags d(3);
  WorldConfig cfg = ensemble(3);
  cfg.follower_lag_ms = 100;  // followers 300 ms behind
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0, 1});
  run(w, c, [](Client& c) -> Task<> { co_await c.sleep(400); }(c));
  ASSERT_EQ(w.server_of(c), 0);
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/a", "1", CreateMode::Persistent); }(c));
  w.inject(FaultKind::DropBeforeApply, w.id(c));
  w.run_until(w.now() + 50);
  // Server 1 has not applied /a: it refused, and the client went on to server 0.
  EXPECT_EQ(w.server_of(c), 0);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(count_of(w, ServerAction::ConnectionRefused), 1);
}

TEST(Ensemble, AClientMovesToTheNextServerOnEachReconnect) {
  ListDecisions d({});
  World w(ensemble(3), d);
  Client& c = w.open("c");
  std::vector<int> seen;
  for (int i = 0; i < 4; ++i) {
    w.run_until(w.now() + 50);
    seen.push_back(w.server_of(c));
    w.inject(FaultKind::DropBeforeApply, w.id(c));
  }
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 0}));  // decision 0: the connect string's order
}

TEST(Ensemble, TheConnectStringIsShuffledOnce) {
  ListDecisions d({2, 0});  // the shuffle's two picks: [0,1,2] -> [2,1,0]
  World w(ensemble(3), d);
  Client& c = w.open("c");
  std::vector<int> seen;
  for (int i = 0; i < 3; ++i) {
    w.run_until(w.now() + 50);
    seen.push_back(w.server_of(c));
    w.inject(FaultKind::DropBeforeApply, w.id(c));
  }
  EXPECT_EQ(seen, (std::vector<int>{2, 1, 0}));
}

TEST(Ensemble, TheLeaderExpiresSessionsAndEveryServerAppliesIt) {
  Lags d(1);
  World w(ensemble(3), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {2});
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/e", "", CreateMode::Ephemeral); }(c));
  const SessionId s = c.session_id();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.server(i).session_alive(s)) << i;
  w.inject(FaultKind::Crash, w.id(c));
  w.run_until(w.now() + 10'000);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(w.server(i).session_alive(s)) << i;
    EXPECT_FALSE(w.server(i).node("/e")) << i;
  }
  EXPECT_EQ(count_of(w, ServerAction::SessionExpired), 1);
}

TEST(Ensemble, AFollowerAnswersANewSessionOnceItHasAppliedIt) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  w.run_until(20);
  EXPECT_EQ(c.state(), SessionState::Connecting);
  EXPECT_EQ(w.server(0).sessions().size(), 1u);  // the leader committed it
  EXPECT_TRUE(w.server(1).sessions().empty());
  w.run_until(40);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_TRUE(w.server(1).session_alive(c.session_id()));
}

TEST(Ensemble, ASessionMovingToALaggingServerIsAnsweredOnceItHasAppliedIt) {
  Lags d(3);
  WorldConfig cfg = ensemble(3);
  cfg.follower_lag_ms = 100;  // followers 300 ms behind
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0, 1});
  w.run_until(5);
  ASSERT_EQ(w.server_of(c), 0);
  w.inject(FaultKind::DropBeforeApply, w.id(c));  // no reply seen yet: server 1 cannot refuse
  w.run_until(100);
  EXPECT_EQ(c.state(), SessionState::Connecting);
  w.run_until(400);
  EXPECT_EQ(w.server_of(c), 1);
  run(w, c, [](Client& c) -> Task<> { EXPECT_TRUE((co_await c.exists("/")).ok()); }(c));
}

TEST(Ensemble, AnExpiryClosesTheConnectionWhenItsServerAppliesIt) {
  Lags d(3);
  World w(ensemble(3), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  w.run_until(100);
  ASSERT_EQ(c.state(), SessionState::Connected);
  w.inject(FaultKind::ExpireSession, w.id(c));
  EXPECT_FALSE(w.server(0).session_alive(c.session_id()));
  w.run_until(w.now() + 20);
  EXPECT_EQ(c.state(), SessionState::Connected);  // server 1 has not applied it
  w.run_until(w.now() + 100);
  EXPECT_EQ(c.state(), SessionState::Expired);
}

// Every replica ends equal to the leader: the same nodes with the same
// stats, sessions and last zxid, whatever the lags, the faults (lost
// requests and replies, expiries, pauses, crashes) and the moves.
TEST(Ensemble, EveryServerEndsWithTheLeadersStateUnderFaults) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SeededDecisions d(seed);
    WorldConfig cfg;
    cfg.servers = seed % 2 ? 3 : 5;
    for (FaultKind k : {FaultKind::DropBeforeApply, FaultKind::DropAfterApply, FaultKind::ExpireSession,
                        FaultKind::Pause, FaultKind::Crash}) {
      cfg.nemesis.per_mille[static_cast<int>(k)] = 20;
    }
    cfg.nemesis.pause_ms = 3000;
    World w(cfg, d);
    for (int c = 0; c < 4; ++c) {
      Client& client = w.open(fmt::format("c{}", c), 1000);
      w.spawn(client, [](Client& cl, int c) -> Task<> {
        for (int i = 0; i < 20; ++i) {
          co_await cl.create(fmt::format("/e{}-", c), "", CreateMode::EphemeralSequential);
          co_await cl.create(fmt::format("/p{}", i % 4), "", CreateMode::Persistent);
          co_await cl.set_data(fmt::format("/p{}", (i + c) % 4), fmt::format("{}", i));
          co_await cl.get_children("/");
          if (i % 5 == 0) co_await cl.remove(fmt::format("/p{}", (i + 1) % 4));
        }
        co_await cl.close();
      }(client, c));
    }
    w.run_until_done(600'000);
    w.run_until(w.now() + 10'000);  // silent sessions expire; followers catch up
    Server& leader = w.server(0);
    for (int f = 1; f < w.server_count(); ++f) {
      Server& s = w.server(f);
      EXPECT_EQ(s.last_zxid(), leader.last_zxid()) << "seed " << seed << " server " << f;
      EXPECT_EQ(s.sessions(), leader.sessions()) << "seed " << seed << " server " << f;
      ASSERT_EQ(s.children("/"), leader.children("/")) << "seed " << seed << " server " << f;
      for (const std::string& name : leader.children("/")) {
        EXPECT_EQ(s.node("/" + name)->stat, leader.node("/" + name)->stat) << "seed " << seed << " /" << name;
        EXPECT_EQ(s.node("/" + name)->data, leader.node("/" + name)->data) << "seed " << seed << " /" << name;
      }
    }
  }
}

TEST(Ensemble, AWriteWhoseReplyWasLostCanBeMissingFromTheNextServer) {
  SlowServer2 d;
  WorldConfig cfg = ensemble(3);
  cfg.follower_lag_ms = 100;
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  run(w, c, [](Client& c) -> Task<> { co_await c.sleep(400); }(c));  // both know the session
  w.schedule(on_nth(FaultKind::DropAfterApply, w.id(c), request_kind<CreateRequest>));
  run(w, c, [&w](Client& c) -> Task<> {
    EXPECT_EQ((co_await c.create("/a", "", CreateMode::Persistent)).error(), Error::ConnectionLoss);
    co_await c.sleep(20);
    EXPECT_EQ(w.server_of(c), 2);
    // The client never saw the create's zxid, so server 2 may lag it.
    EXPECT_EQ((co_await c.exists("/a")).error(), Error::NoNode);
    EXPECT_TRUE(w.server(0).node("/a"));
    co_await c.sync("/");
    EXPECT_TRUE((co_await c.exists("/a")).ok());
  }(c));
}

}  // namespace
}  // namespace zksim::test
