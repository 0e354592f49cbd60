// The client flavours (flavour.h): each rule in which a flavour differs
// from the C client, shown on the simulated world. Sources: docs/flavours.md.
#include "world_fixture.h"

#include "zksim/flavour.h"

namespace zksim::test {
namespace {

// Decision 0 everywhere but the server's expiry lag, which is the longest.
class LateExpiry final : public DecisionSource {
 public:
  std::uint32_t choose(std::uint32_t n) override { return n == 5 ? n - 1 : 0; }
};

// Opens a client of `f`, runs `body` on it, and collects every session
// event its listener was told.
struct Rig {
  explicit Rig(Flavour f, DecisionSource& d) : world(quiet(), d), zk(world.open("a", 2000, -1, f)) {
    zk.add_session_listener(told.watcher());
  }
  World world;
  Client& zk;
  Seen told;
};

Task<> make_ephemeral(Client& zk, std::string path) {
  auto made = co_await zk.create(path, "", CreateMode::Ephemeral);
  EXPECT_TRUE(made) << path;
}

TEST(Flavours, NamesRoundTrip) {
  for (int i = 0; i < kFlavours; ++i) {
    const auto f = static_cast<Flavour>(i);
    EXPECT_EQ(flavour_named(flavour_name(f)), f);
  }
  EXPECT_FALSE(flavour_named("zkpython"));
}

TEST(Flavours, CHandleIsFinalAfterExpiry) {
  ListDecisions d({});
  Rig r(Flavour::C, d);
  run(r.world, r.zk, make_ephemeral(r.zk, "/a"));
  r.world.inject(FaultKind::ExpireSession, 0);
  r.world.run_until(r.world.now() + 1000);
  EXPECT_EQ(r.zk.state(), SessionState::Expired);
  run(r.world, r.zk, [](Client& zk) -> Task<> {
    auto again = co_await zk.exists("/a");
    EXPECT_EQ(again.error(), Error::InvalidState);
  }(r.zk));
}

// Curator's ConnectionState.handleExpiredSession / reset(), kazoo's
// _connect_attempt after SessionExpiredError: the same client object opens
// a new session at once; listeners hear disconnected, expired, connected.
void expect_new_session(Flavour f) {
  ListDecisions d({});
  Rig r(f, d);
  run(r.world, r.zk, make_ephemeral(r.zk, "/a"));
  const SessionId first = r.zk.session_id();
  r.world.inject(FaultKind::ExpireSession, 0);
  r.world.run_until(r.world.now() + 1000);
  EXPECT_EQ(r.zk.state(), SessionState::Connected);
  EXPECT_NE(r.zk.session_id(), first);
  EXPECT_NE(r.zk.session_id(), SessionId{});
  EXPECT_EQ(r.told.states(), (std::vector<KeeperState>{KeeperState::SyncConnected, KeeperState::Disconnected,
                                                       KeeperState::Expired, KeeperState::SyncConnected}));
  run(r.world, r.zk, make_ephemeral(r.zk, "/b"));
  EXPECT_EQ(r.world.server().node("/b")->stat.ephemeralOwner, r.zk.session_id().value);
}

TEST(Flavours, CuratorOpensANewSessionAfterExpiry) { expect_new_session(Flavour::Curator); }
TEST(Flavours, KazooOpensANewSessionAfterExpiry) { expect_new_session(Flavour::Kazoo); }

TEST(Flavours, CallsPendingAtExpiryFailWithSessionExpiredAndLaterCallsUseTheNewSession) {
  ListDecisions d({});
  Rig r(Flavour::Curator, d);
  run(r.world, r.zk, make_ephemeral(r.zk, "/a"));
  r.world.partition(0, 10'000);  // long past the session timeout
  r.world.run_until(r.world.now() + 100);
  ASSERT_EQ(r.zk.state(), SessionState::Connecting);
  run(r.world, r.zk, [](Client& zk) -> Task<> {
    auto during = co_await zk.exists("/a");  // queued while disconnected
    EXPECT_EQ(during.error(), Error::SessionExpired);
    auto after = co_await zk.exists("/a");   // waits for the new session
    EXPECT_TRUE(after || after.error() == Error::NoNode);
  }(r.zk));
  EXPECT_EQ(r.zk.state(), SessionState::Connected);
}

// kazoo's _session_callback(CONNECTING) → _reset_watchers: each watcher
// gets one NONE event and is dropped; no SetWatches on reconnect, so a
// later change of the node reaches nobody.
TEST(Flavours, KazooForgetsWatchesWhenTheConnectionDrops) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& zk = w.open("k", 2000, -1, Flavour::Kazoo);
  Client& other = w.open("o");
  Seen watched;
  run(w, zk, [](Client& zk, Seen& watched) -> Task<> {
    co_await zk.create("/n", "", CreateMode::Persistent);
    auto got = co_await zk.get_data("/n", watched.watcher());
    EXPECT_TRUE(got);
  }(zk, watched));
  w.inject(FaultKind::DropBeforeApply, 0);
  w.run_until(w.now() + 500);
  EXPECT_EQ(zk.state(), SessionState::Connected);
  run(w, other, [](Client& o) -> Task<> { co_await o.set_data("/n", "x"); }(other));
  w.run_until(w.now() + 500);
  EXPECT_EQ(watched.states(), (std::vector<KeeperState>{KeeperState::Disconnected}));
  EXPECT_EQ(watched.events.size(), 1u);
  EXPECT_EQ(w.server().watch_count(), 0u);
}

TEST(Flavours, CAndCuratorKeepWatchesAcrossAReconnect) {
  for (Flavour f : {Flavour::C, Flavour::Curator}) {
    ListDecisions d({});
    World w(quiet(), d);
    Client& zk = w.open("k", 2000, -1, f);
    Client& other = w.open("o");
    Seen watched;
    run(w, zk, [](Client& zk, Seen& watched) -> Task<> {
      co_await zk.create("/n", "", CreateMode::Persistent);
      co_await zk.get_data("/n", watched.watcher());
    }(zk, watched));
    w.inject(FaultKind::DropBeforeApply, 0);
    w.run_until(w.now() + 500);
    run(w, other, [](Client& o) -> Task<> { co_await o.set_data("/n", "x"); }(other));
    w.run_until(w.now() + 500);
    ASSERT_EQ(watched.events.size(), 3u) << flavour_name(f);  // disconnected, connected, changed
    EXPECT_EQ(watched.events[2].type, EventType::NodeDataChanged);
  }
}

// Curator's ConnectionStateManager runs listeners on its own executor
// thread; the Java client's EventThread runs watchers. When a watcher hears
// of a disconnect, the listener has not yet.
// Curator's ConnectionStateManager runs the listeners on a thread of its
// own: a session event reaches them and the watchers (on the event thread)
// in either order, as the drawn lags of the two threads fall.
std::string first_told_of_disconnect(std::deque<std::uint32_t> lags) {
  ThreadLags d;
  Rig r(Flavour::Curator, d);
  std::vector<std::string> order;
  r.zk.add_session_listener([&](const WatchedEvent& e) {
    if (e.state == KeeperState::Disconnected) order.push_back("listener");
  });
  run(r.world, r.zk, [](Client& zk, std::vector<std::string>& order) -> Task<> {
    co_await zk.create("/n", "", CreateMode::Persistent);
    co_await zk.exists("/n", [&](const WatchedEvent& e) {
      if (e.state == KeeperState::Disconnected) order.push_back("watcher");
    });
  }(r.zk, order));
  d.lags = std::move(lags);  // the listener thread draws first, then the event thread
  r.world.inject(FaultKind::DropBeforeApply, 0);
  r.world.run_until(r.world.now() + 500);
  EXPECT_EQ(order.size(), 2u);
  int listener_events = 0;
  for (const TraceEvent& e : r.world.trace().events()) listener_events += e.kind == TraceKind::Listener;
  EXPECT_EQ(listener_events, 3);  // connected, disconnected, connected
  return order.empty() ? "" : order.front();
}

TEST(Flavours, CuratorListenersRunOnTheirOwnThread) {
  EXPECT_EQ(first_told_of_disconnect({2, 0}), "watcher");
  EXPECT_EQ(first_told_of_disconnect({0, 2}), "listener");
}

// kazoo's listeners run on the connection thread, at the state change,
// before the watchers' NONE events (kazoo/client.py _session_callback).
TEST(Flavours, KazooListenersHearBeforeWatchers) {
  ListDecisions d({});
  Rig r(Flavour::Kazoo, d);
  std::vector<std::string> order;
  r.zk.add_session_listener([&](const WatchedEvent& e) {
    if (e.state == KeeperState::Disconnected) order.push_back("listener");
  });
  run(r.world, r.zk, [](Client& zk, std::vector<std::string>& order) -> Task<> {
    co_await zk.create("/n", "", CreateMode::Persistent);
    co_await zk.exists("/n", [&](const WatchedEvent&) { order.push_back("watcher"); });
  }(r.zk, order));
  r.world.inject(FaultKind::DropBeforeApply, 0);
  r.world.run_until(r.world.now() + 500);
  EXPECT_EQ(order, (std::vector<std::string>{"listener", "watcher"}));
}

// Curator 5's ConnectionStateManager.checkSessionExpiration: SUSPENDED for
// the negotiated session timeout → injectSessionExpiration → a new
// session, while the server, expiring late, still holds the old one and
// its ephemerals.
TEST(Flavours, CuratorDeclaresLostAfterBeingSuspendedForTheSessionTimeout) {
  LateExpiry d;
  Rig r(Flavour::Curator, d);
  run(r.world, r.zk, make_ephemeral(r.zk, "/mine"));
  const SessionId old = r.zk.session_id();
  const TimeMs cut = r.world.now();
  r.world.partition(0, 2100);  // just past the 2 s session timeout
  r.world.run_until(cut + 2050);
  EXPECT_EQ(r.zk.state(), SessionState::Connecting);  // lost by its own verdict, reconnecting
  EXPECT_EQ(r.told.states().back(), KeeperState::Expired);
  r.world.run_until(cut + 2300);
  ASSERT_EQ(r.zk.state(), SessionState::Connected);
  EXPECT_NE(r.zk.session_id(), old);
  ASSERT_TRUE(r.world.server().node("/mine"));
  EXPECT_EQ(r.world.server().node("/mine")->stat.ephemeralOwner, old.value);
  r.world.run_until(cut + 5000);
  EXPECT_FALSE(r.world.server().node("/mine"));
}

TEST(Flavours, CAndKazooWaitForTheServerToSayExpired) {
  for (Flavour f : {Flavour::C, Flavour::Kazoo}) {
    ListDecisions d({});
    Rig r(f, d);
    run(r.world, r.zk, make_ephemeral(r.zk, "/mine"));
    const TimeMs cut = r.world.now();
    r.world.partition(0, 1500);  // less than the session timeout
    r.world.run_until(cut + 3000);
    EXPECT_EQ(r.zk.state(), SessionState::Connected) << flavour_name(f);
    EXPECT_TRUE(r.world.server().node("/mine")) << flavour_name(f);
  }
}

TEST(Flavours, ExpiryLagsOnlyForFlavoursThatOpenANewSession) {
  for (Flavour f : {Flavour::C, Flavour::Kazoo}) {
    LateExpiry d;
    Rig r(f, d);
    run(r.world, r.zk, make_ephemeral(r.zk, "/mine"));
    const TimeMs cut = r.world.now();
    r.world.partition(0, 10'000);
    r.world.run_until(cut + 2000 + 300);
    EXPECT_EQ(r.world.server().node("/mine").has_value(), f == Flavour::Kazoo) << flavour_name(f);
    r.world.run_until(cut + 4000 + 300);
    EXPECT_FALSE(r.world.server().node("/mine")) << flavour_name(f);
  }
}

}  // namespace
}  // namespace zksim::test
