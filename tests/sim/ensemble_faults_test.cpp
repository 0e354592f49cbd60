// Faults of the ensemble: one rule of docs/ensemble.md ("Faults of the
// ensemble") per test.
#include "ensemble_fixture.h"
#include "world_fixture.h"

#include <algorithm>

namespace zksim::test {
namespace {

// A quiet world of three servers whose followers apply at once.
WorldConfig three() {
  WorldConfig c = quiet();
  c.servers = 3;
  c.follower_lag_ms = 0;
  return c;
}

// Every decision 0 but the nemesis's (the top choice: strikes with the
// first timed class whose rate is set) and, for the leader-crash, whether
// the write in flight is committed (`commit`, the only 2-way decision of
// a quiet world with C clients).
class Strike final : public DecisionSource {
 public:
  explicit Strike(std::uint32_t commit) : commit(commit) {}
  std::uint32_t commit;
  std::uint32_t choose(std::uint32_t n) override {
    if (n == kNemesisChoices) return n - 1;
    return n == 2 ? commit : 0;
  }
};

TEST(EnsembleFaults, AFollowerCrashBreaksOnlyItsClientsConnections) {
  ListDecisions d({});
  World w(three(), d);
  Client& on1 = w.open("on1", 4000, -1, Flavour::C, {1, 2});
  Client& on0 = w.open("on0", 4000, -1, Flavour::C, {0});
  w.run_until(50);
  const SessionId s = on1.session_id();
  ASSERT_TRUE(w.crash_server(1));
  w.run_until(100);
  EXPECT_EQ(w.server_of(on1), 2);
  EXPECT_EQ(on1.session_id(), s);  // the same session, moved
  EXPECT_EQ(on1.state(), SessionState::Connected);
  EXPECT_EQ(w.server_of(on0), 0);
  EXPECT_EQ(count_of(w, ServerAction::ServerCrashed), 1);
  EXPECT_EQ(count_of(w, ServerAction::LeaderElected), 0);
}

TEST(EnsembleFaults, ACrashedServerRefusesConnectionsUntilItRestarts) {
  ListDecisions d({});
  World w(three(), d);
  ASSERT_TRUE(w.crash_server(1));
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  w.run_until(500);
  EXPECT_EQ(c.state(), SessionState::Connecting);
  EXPECT_GT(count_of(w, ServerAction::ConnectionRefused), 10);
  w.restart_server(1);
  w.run_until(600);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(w.server_of(c), 1);
}

TEST(EnsembleFaults, ARestartedServerHasAppliedEverythingCommittedWhileItWasDown) {
  ListDecisions d({});
  World w(three(), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0});
  ASSERT_TRUE(w.crash_server(2));
  run(w, c, [](Client& c) -> Task<> {
    for (int i = 0; i < 5; ++i) co_await c.create(fmt::format("/n{}", i), "", CreateMode::Persistent);
  }(c));
  EXPECT_FALSE(w.server(2).node("/n0"));
  w.restart_server(2);
  EXPECT_EQ(w.server(2).last_zxid(), w.server(0).last_zxid());
  EXPECT_TRUE(w.server(2).node("/n4"));
}

TEST(EnsembleFaults, NoCrashMayCostTheEnsembleItsQuorum) {
  ListDecisions d({});
  World w(three(), d);
  ASSERT_TRUE(w.crash_server(2));
  EXPECT_FALSE(w.crash_server(1));
  EXPECT_FALSE(w.crash_server(0));
  EXPECT_FALSE(w.crash_server(2));  // already down
  w.restart_server(2);
  EXPECT_TRUE(w.crash_server(0));
  WorldConfig one = quiet();
  World single(one, d);
  EXPECT_FALSE(single.crash_server(0));
}

TEST(EnsembleFaults, ALeaderCrashElectsTheHighestLiveServerAndNobodyIsServedMeanwhile) {
  ListDecisions d({});
  WorldConfig cfg = three();
  cfg.election_ms = 400;
  World w(cfg, d);
  Client& a = w.open("a", 4000, -1, Flavour::C, {1});
  Client& b = w.open("b", 4000, -1, Flavour::C, {0, 2});
  w.run_until(50);
  ASSERT_TRUE(w.crash_server(0));
  w.run_until(300);
  // Every follower dropped its clients too, and takes none before the election ends.
  EXPECT_EQ(a.state(), SessionState::Connecting);
  EXPECT_EQ(b.state(), SessionState::Connecting);
  EXPECT_EQ(count_of(w, ServerAction::LeaderElected), 0);
  w.run_until(600);
  EXPECT_EQ(count_of(w, ServerAction::LeaderElected), 1);
  EXPECT_EQ(a.state(), SessionState::Connected);
  EXPECT_EQ(w.server_of(a), 1);
  EXPECT_EQ(w.server_of(b), 2);
  // Server 2 leads: the leader is the one every write is ordered by.
  run(w, a, [](Client& c) -> Task<> { co_await c.create("/after", "", CreateMode::Persistent); }(a));
  EXPECT_TRUE(w.server().node("/after"));
  EXPECT_EQ(&w.server(), &w.server(2));
}

TEST(EnsembleFaults, SessionsSurviveALeaderCrashAndCountTheirTimeoutFromTheElectionsEnd) {
  ListDecisions d({});
  WorldConfig cfg = three();
  cfg.election_ms = 3000;  // longer than the session timeout
  World w(cfg, d);
  Client& c = w.open("c", 2000, -1, Flavour::C, {1});
  Client& quiet_one = w.open("q", 2000, -1, Flavour::C, {1});
  run(w, c, [](Client& c) -> Task<> { co_await c.create("/e", "", CreateMode::Ephemeral); }(c));
  run(w, quiet_one, [](Client& c) -> Task<> { co_await c.create("/q", "", CreateMode::Ephemeral); }(quiet_one));
  const SessionId s = c.session_id();
  ASSERT_TRUE(w.crash_server(0));
  w.inject(FaultKind::Crash, w.id(quiet_one));  // falls silent for good
  w.run_until(w.now() + 3100);
  // Both sessions outlived their timeout in the election: nobody expires them.
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(c.session_id(), s);
  EXPECT_TRUE(w.server().node("/e"));
  EXPECT_TRUE(w.server().node("/q"));
  // The silent one expires a session timeout after the new leader took over.
  w.run_until(w.now() + 1500);
  EXPECT_TRUE(w.server().node("/q"));
  w.run_until(w.now() + 1500);
  EXPECT_FALSE(w.server().node("/q"));
  EXPECT_TRUE(w.server().node("/e"));
}

// The leader-crash class on a write in flight: its client sees
// ConnectionLoss either way; the write is then on every server or on none.
void leader_crash_with_write(std::uint32_t commit, bool expect_node) {
  Strike d(commit);
  WorldConfig cfg = three();
  cfg.nemesis.per_mille[static_cast<int>(TimedFault::LeaderCrash)] = 1000;
  cfg.nemesis.window_ms = 100'000;  // one strike, at 0
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0, 1});
  Error first = Error::Ok;
  run(w, c, [&](Client& c) -> Task<> {
    auto made = co_await c.create("/w", "", CreateMode::Persistent);
    first = made.error();
  }(c));
  EXPECT_EQ(first, Error::ConnectionLoss);
  w.set_nemesis({});
  w.run_until(w.now() + 5000);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(static_cast<bool>(w.server(i).node("/w")), expect_node) << i;
  EXPECT_EQ(count_of(w, ServerAction::LeaderElected), 1);
  EXPECT_EQ(count_of(w, ServerAction::ServerRestarted), 1);
}

TEST(EnsembleFaults, AWriteInFlightWhenTheLeaderCrashesIsLostEverywhere) { leader_crash_with_write(0, false); }

TEST(EnsembleFaults, AWriteCommittedWhenTheLeaderCrashesSurvivesOnEveryServer) { leader_crash_with_write(1, true); }

TEST(EnsembleFaults, AnArmedLeaderCrashThatWouldCostTheQuorumLetsTheWriteThrough) {
  Strike d(0);
  WorldConfig cfg = three();
  cfg.nemesis.per_mille[static_cast<int>(TimedFault::LeaderCrash)] = 1000;
  cfg.nemesis.window_ms = 100'000;  // one strike, at 0
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0});
  w.run_until(1);                  // armed
  ASSERT_TRUE(w.crash_server(2));  // now the leader may not crash
  Error made = Error::SystemError;
  run(w, c, [&](Client& c) -> Task<> { made = (co_await c.create("/w", "", CreateMode::Persistent)).error(); }(c), 5000);
  EXPECT_EQ(made, Error::Ok);
  EXPECT_EQ(count_of(w, ServerAction::LeaderElected), 0);
}

TEST(EnsembleFaults, ALagBurstHoldsBackAFollowersReadsUntilItEnds) {
  ListDecisions d({});
  World w(three(), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  w.run_until(50);
  w.lag_burst(1, 500);
  run(w, writer, [](Client& c) -> Task<> { co_await c.create("/a", "", CreateMode::Persistent); }(writer));
  bool seen_during = true;
  run(w, reader, [&](Client& c) -> Task<> { seen_during = (co_await c.exists("/a")).ok(); }(reader));
  EXPECT_FALSE(seen_during);
  bool synced = false;
  run(w, reader, [&](Client& c) -> Task<> {
    co_await c.sync("/");  // waits for the burst's end
    synced = (co_await c.exists("/a")).ok();
  }(reader));
  EXPECT_TRUE(synced);
  EXPECT_GE(w.now(), 550);
}

TEST(EnsembleFaults, OnlyAFollowerIsCutOffAndNeverAtTheCostOfTheQuorum) {
  ListDecisions d({});
  World w(three(), d);
  EXPECT_FALSE(w.partition_server(0, 500));  // the leader
  ASSERT_TRUE(w.crash_server(2));
  EXPECT_FALSE(w.partition_server(2, 500));  // down
  EXPECT_FALSE(w.partition_server(1, 500));  // the leader alone is no quorum
  w.restart_server(2);
  ASSERT_TRUE(w.partition_server(1, 500));
  EXPECT_FALSE(w.partition_server(1, 500));  // already cut
  EXPECT_FALSE(w.partition_server(2, 500));
  EXPECT_FALSE(w.crash_server(2));  // a cut follower counts as down for the quorum
  EXPECT_EQ(count_of(w, ServerAction::FollowerCut), 1);
  WorldConfig one = quiet();
  World single(one, d);
  EXPECT_FALSE(single.partition_server(0, 500));
}

TEST(EnsembleFaults, AFollowerCutOffFromTheLeaderServesStaleReads) {
  ListDecisions d({});
  World w(three(), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  w.run_until(50);
  ASSERT_TRUE(w.partition_server(1, 500));
  run(w, writer, [](Client& c) -> Task<> { co_await c.create("/a", "", CreateMode::Persistent); }(writer));
  bool seen = true;
  run(w, reader, [&](Client& c) -> Task<> { seen = (co_await c.exists("/a")).ok(); }(reader));
  EXPECT_FALSE(seen);
  EXPECT_EQ(reader.state(), SessionState::Connected);
  w.run_until(600);
  EXPECT_TRUE(w.server(1).node("/a"));
  EXPECT_EQ(count_of(w, ServerAction::FollowerRejoined), 1);
}

TEST(EnsembleFaults, AWriteHeldByACutFollowerReachesTheLeaderOnceTheCutHealsUnnoticed) {
  ListDecisions d({});
  World w(three(), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  w.run_until(50);
  ASSERT_TRUE(w.partition_server(1, 500));  // under partition_detect_ms
  Error made = Error::SystemError, synced = Error::SystemError;
  bool done = false;
  // What the coroutine sets comes in as its parameters: a capture would
  // live in the lambda, gone once spawn returns.
  w.spawn(c, [](Client& c, Error& made, Error& synced, bool& done) -> Task<> {
    made = (co_await c.create("/w", "", CreateMode::Persistent)).error();
    synced = (co_await c.sync("/")).error();
    done = true;
  }(c, made, synced, done));
  w.run_until(500);
  EXPECT_FALSE(done);
  EXPECT_FALSE(w.server().node("/w"));  // it went nowhere
  ASSERT_TRUE(w.run_until_done(5000));
  EXPECT_EQ(made, Error::Ok);
  EXPECT_EQ(synced, Error::Ok);
  EXPECT_TRUE(w.server().node("/w"));
  EXPECT_EQ(count_of(w, ServerAction::FollowerLooking), 0);
}

// A client whose connection to a cut follower breaks moves its session to
// another server, which validates it at the leader and so becomes its
// owner. The write the cut follower held reaches the leader when the cut
// heals, from a server that no longer owns the session: refused
// (PrepRequestProcessor.pRequest -> SessionTrackerImpl.checkSession:
// SessionMovedException), applied nowhere. Found by the default search: the
// lock's nodes made in the old connection appeared after their clients had
// made new ones, and blocked the lock for good.
TEST(EnsembleFaults, AHeldWriteWhoseSessionMovedBeforeTheCutHealedIsRefused) {
  ListDecisions d({});
  World w(three(), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  w.run_until(50);
  const SessionId s = c.session_id();
  ASSERT_TRUE(w.partition_server(1, 500));  // under partition_detect_ms
  Error made = Error::SystemError;
  w.spawn(c, [](Client& c, Error& made) -> Task<> { made = (co_await c.create("/w", "", CreateMode::Persistent)).error(); }(c, made));
  w.run_until(100);
  w.inject(FaultKind::DropBeforeApply, w.id(c), 0);  // the connection breaks; the write stays held
  w.run_until(400);
  EXPECT_EQ(made, Error::ConnectionLoss);
  EXPECT_EQ(w.server_of(c), 2);
  EXPECT_EQ(c.session_id(), s);
  w.run_until(2000);
  EXPECT_EQ(count_of(w, ServerAction::FollowerRejoined), 1);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(w.server(i).node("/w")) << i;
}

// A client idle on a follower pings it, and the follower passes the touch
// on to the leader with its own pings (LearnerSessionTracker): when its
// connection breaks just after a read served by the follower alone, the
// leader last heard of it then, not when it last wrote. Found by the
// default search: the session expired the instant its connection broke.
TEST(EnsembleFaults, ASessionIdleOnAFollowerLivesOnWhenItsConnectionBreaks) {
  ListDecisions d({});
  World w(three(), d);
  Client& c = w.open("c", 2000, -1, Flavour::C, {1, 2});
  w.run_until(50);
  const SessionId s = c.session_id();
  w.spawn(c, [](Client& c) -> Task<> {
    co_await c.sleep(6000);  // three session timeouts, sending only pings
    co_await c.get_children("/");
  }(c));
  w.run_until(6052);
  w.inject(FaultKind::DropBeforeApply, w.id(c), 0);
  w.run_until(9000);
  EXPECT_EQ(count_of(w, ServerAction::SessionExpired), 0);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(c.session_id(), s);
}

TEST(EnsembleFaults, AFollowerThatNoticesItsCutDropsItsClientsAndLosesTheirHeldWrites) {
  ListDecisions d({});
  World w(three(), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  w.run_until(50);
  const SessionId s = c.session_id();
  ASSERT_TRUE(w.partition_server(1, 3000));
  Error made = Error::SystemError;
  TimeMs answered = 0;
  run(w, c, [&](Client& c) -> Task<> {
    made = (co_await c.create("/w", "", CreateMode::Persistent)).error();
    answered = c.now();
  }(c));
  EXPECT_EQ(made, Error::ConnectionLoss);
  EXPECT_GE(answered, 50 + WorldConfig{}.partition_detect_ms);
  EXPECT_EQ(count_of(w, ServerAction::FollowerLooking), 1);
  w.run_until(5000);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(w.server(i).node("/w")) << i;
  EXPECT_EQ(w.server_of(c), 2);  // moved on, the same session
  EXPECT_EQ(c.session_id(), s);
}

TEST(EnsembleFaults, AFollowerThatNoticedItsCutRefusesConnectionsUntilItHeals) {
  ListDecisions d({});
  World w(three(), d);
  ASSERT_TRUE(w.partition_server(1, 3000));
  w.run_until(1100);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1});
  w.run_until(2900);
  EXPECT_EQ(c.state(), SessionState::Connecting);
  const auto& events = w.trace().events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const TraceEvent& e) {
    return e.kind == TraceKind::Server && e.code == static_cast<int>(ServerAction::ConnectionRefused) &&
           e.detail.find("cut off from the leader") != std::string::npos;
  }));
  w.run_until(3100);
  EXPECT_EQ(c.state(), SessionState::Connected);
  EXPECT_EQ(w.server_of(c), 1);
}

TEST(EnsembleFaults, AFollowerWhoseCutHealsHasCaughtUpBeforeItServesAgain) {
  ListDecisions d({});
  World w(three(), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  w.run_until(50);
  ASSERT_TRUE(w.partition_server(1, 2000));
  run(w, writer, [](Client& c) -> Task<> {
    for (int i = 0; i < 5; ++i) co_await c.create(fmt::format("/n{}", i), "", CreateMode::Persistent);
  }(writer));
  w.run_until(2050);
  EXPECT_EQ(w.server(1).last_zxid(), w.server(0).last_zxid());
  bool seen = false;
  run(w, reader, [&](Client& c) -> Task<> { seen = (co_await c.exists("/n4")).ok(); }(reader));
  EXPECT_TRUE(seen);
  EXPECT_EQ(count_of(w, ServerAction::FollowerRejoined), 1);
}

TEST(EnsembleFaults, TheLeaderExpiresASessionOfACutFollowerWhoseTimeoutPassesDuringTheCut) {
  ListDecisions d({});
  World w(three(), d);
  Client& cut = w.open("cut", 600, -1, Flavour::C, {1});
  Client& other = w.open("other", 600, -1, Flavour::C, {2});
  run(w, cut, [](Client& c) -> Task<> { co_await c.create("/e", "", CreateMode::Ephemeral); }(cut));
  run(w, other, [](Client& c) -> Task<> { co_await c.create("/o", "", CreateMode::Ephemeral); }(other));
  ASSERT_TRUE(w.partition_server(1, 900));  // healed before it is noticed
  w.run_until(w.now() + 850);
  EXPECT_FALSE(w.server().node("/e"));   // expired by the leader
  EXPECT_TRUE(w.server(1).node("/e"));   // not yet on the cut follower
  EXPECT_EQ(cut.state(), SessionState::Connected);
  EXPECT_TRUE(w.server().node("/o"));    // its pings reach the leader
  w.run_until(w.now() + 500);
  EXPECT_EQ(cut.state(), SessionState::Expired);
  EXPECT_EQ(other.state(), SessionState::Connected);
}

// The session-moved class on a write a follower's client has in flight:
// the client sees ConnectionLoss and is on its other server, same session;
// the write is on every server or on none. (Its first server is drawn by
// the same 2-way decision as the write's fate.)
void session_move_with_write(std::uint32_t applied, bool expect_node) {
  Strike d(applied);
  WorldConfig cfg = three();
  cfg.nemesis.per_mille[static_cast<int>(TimedFault::SessionMoved)] = 1000;
  cfg.nemesis.window_ms = 100'000;  // one strike, at 0
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  w.run_until(50);  // connected
  const SessionId session = c.session_id();
  const int before = w.server_of(c);
  ASSERT_NE(before, 0);
  Error first = Error::Ok;
  run(w, c, [&](Client& c) -> Task<> { first = (co_await c.create("/w", "", CreateMode::Persistent)).error(); }(c));
  EXPECT_EQ(first, Error::ConnectionLoss);
  w.set_nemesis({});
  w.run_until(w.now() + 1000);
  EXPECT_EQ(w.server_of(c), 3 - before);
  EXPECT_EQ(c.session_id(), session);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(static_cast<bool>(w.server(i).node("/w")), expect_node) << i;
}

TEST(EnsembleFaults, AWriteInFlightWhenItsSessionMovesIsRefusedAndAppliedNowhere) { session_move_with_write(0, false); }

TEST(EnsembleFaults, AWriteAppliedBeforeItsSessionMovedStaysOnEveryServer) { session_move_with_write(1, true); }

TEST(EnsembleFaults, AWriteToTheLeaderIsNotInFlightBetweenServersWhenASessionMoves) {
  Strike d(0);
  WorldConfig cfg = three();
  cfg.nemesis.per_mille[static_cast<int>(TimedFault::SessionMoved)] = 1000;
  cfg.nemesis.window_ms = 100'000;
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {0, 1});
  Error made = Error::SystemError;
  run(w, c, [&](Client& c) -> Task<> { made = (co_await c.create("/w", "", CreateMode::Persistent)).error(); }(c));
  EXPECT_EQ(made, Error::Ok);
  EXPECT_EQ(w.server_of(c), 0);
}

TEST(EnsembleFaults, AnArmedSessionMoveWithoutAWriteMovesAClientAtTheWindowsEnd) {
  Strike d(0);
  WorldConfig cfg = three();
  cfg.nemesis.per_mille[static_cast<int>(TimedFault::SessionMoved)] = 1000;
  cfg.nemesis.window_ms = 800;  // strikes at 0, 800, ...
  World w(cfg, d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  w.run_until(50);  // connected
  const SessionId session = c.session_id();
  ASSERT_EQ(w.server_of(c), 1);
  w.spawn(c, [](Client& c) -> Task<> {
    for (int i = 0; i < 15; ++i) {
      co_await c.exists("/");
      co_await c.sleep(100);
    }
  }(c));
  w.run_until(700);
  EXPECT_EQ(w.server_of(c), 1);  // reads only: armed, not struck
  w.run_until(900);
  EXPECT_EQ(w.server_of(c), 2);
  EXPECT_EQ(c.session_id(), session);
}

TEST(EnsembleFaults, TheEnsembleClassesAreDeterministic) {
  auto hash_of = [](std::uint64_t seed) {
    SeededDecisions d(seed);
    WorldConfig cfg;
    cfg.servers = 3;
    for (TimedFault f : {TimedFault::LagBurst, TimedFault::ServerCrash, TimedFault::LeaderCrash, TimedFault::Partition,
                          TimedFault::SessionMoved}) {
      cfg.nemesis.per_mille[static_cast<int>(f)] = 300;
    }
    cfg.nemesis.pause_ms = 500;
    cfg.nemesis.window_ms = 50;
    World w(cfg, d);
    for (int i = 0; i < 3; ++i) {
      Client& c = w.open(fmt::format("c{}", i));
      w.spawn(c, [](Client& c, int i) -> Task<> {
        for (int k = 0; k < 30; ++k) {
          co_await c.create(fmt::format("/c{}-{}", i, k), "", CreateMode::Ephemeral);
          co_await c.get_children("/");
        }
      }(c, i));
    }
    w.run_until_done(60'000);
    return std::pair{w.trace().hash(), count_of(w, ServerAction::ServerCrashed)};
  };
  const auto first = hash_of(7);
  EXPECT_EQ(first, hash_of(7));
  EXPECT_GT(first.second, 0);
  EXPECT_NE(first.first, hash_of(8).first);
}

}  // namespace
}  // namespace zksim::test
