// The client library's threads (FlavourRules::recipes_on_caller_thread,
// watchers_on_event_thread; docs/flavours.md): each step of a thread is
// scheduled by a drawn lag, so one decision list replays one interleaving.
#include "world_fixture.h"

#include "zksim/flavour.h"

namespace zksim::test {
namespace {

// The time of the last trace event of `kind`.
TimeMs last_of(const World& w, TraceKind kind) {
  TimeMs t = -1;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == kind) t = e.time;
  }
  return t;
}

Task<> connect(Client& zk) { co_await zk.exists("/"); }

TEST(ClientThreads, TheCRecipeRunsAtItsReplyAndDrawsNoLag) {
  ThreadLags d;
  Rig r(Flavour::C, d);
  run(r.world, r.zk, connect(r.zk));
  d.lags = {2, 2, 2};
  TimeMs resumed = -1;
  run(r.world, r.zk, [](Client& zk, TimeMs& resumed) -> Task<> {
    co_await zk.create("/n", "", CreateMode::Persistent);
    resumed = zk.now();
  }(r.zk, resumed));
  EXPECT_EQ(resumed, last_of(r.world, TraceKind::Response));
  EXPECT_EQ(d.lags.size(), 3u);
}

// Curator's recipes call ZooKeeper synchronously on the caller's thread
// (ClientCnxn.submitRequest waits; the SendThread's finishPacket notifies
// it); kazoo's block on an AsyncResult the connection thread sets.
TEST(ClientThreads, TheCallerThreadRunsTheRecipeADrawnMomentAfterItsReply) {
  for (Flavour f : {Flavour::Curator, Flavour::Kazoo}) {
    for (std::uint32_t lag : {0u, 1u, 2u}) {
      ThreadLags d;
      Rig r(f, d);
      run(r.world, r.zk, connect(r.zk));
      d.lags = {lag};
      TimeMs resumed = -1;
      run(r.world, r.zk, [](Client& zk, TimeMs& resumed) -> Task<> {
        co_await zk.create("/n", "", CreateMode::Persistent);
        resumed = zk.now();
      }(r.zk, resumed));
      const TimeMs expected = last_of(r.world, TraceKind::Response) + (lag == 0 ? 0 : lag - 1);
      EXPECT_EQ(resumed, expected) << flavour_name(f) << " lag choice " << lag;
    }
  }
}

// Java's EventThread and kazoo's callback worker call the watchers in the
// order their events arrived, each a moment after the I/O thread took it in.
TEST(ClientThreads, WatchersRunOnTheEventThreadInArrivalOrder) {
  for (Flavour f : {Flavour::Curator, Flavour::Kazoo}) {
    ThreadLags d;
    Rig r(f, d);
    std::vector<std::pair<std::string, TimeMs>> heard;
    run(r.world, r.zk, [](Client& zk, std::vector<std::pair<std::string, TimeMs>>& heard) -> Task<> {
      const std::vector<std::string> paths{"/a", "/b"};
      for (const std::string& p : paths) {
        co_await zk.create(p, "", CreateMode::Persistent);
        Watcher note = [&heard, &zk, p](const WatchedEvent&) { heard.emplace_back(p, zk.now()); };
        co_await zk.exists(p, std::move(note));
      }
    }(r.zk, heard));
    d.lags = {2, 0};  // the events of /a and /b (they come before the reply)
    run(r.world, r.zk, [](Client& zk) -> Task<> {
      std::vector<MultiOp> ops{DeleteRequest{"/a"}, DeleteRequest{"/b"}};
      co_await zk.multi(std::move(ops));
    }(r.zk));
    r.world.run_until(r.world.now() + 10);
    const TimeMs arrived = last_of(r.world, TraceKind::Watch);
    ASSERT_EQ(heard.size(), 2u) << flavour_name(f);
    EXPECT_EQ(heard[0], std::make_pair(std::string("/a"), arrived + 2)) << flavour_name(f);
    EXPECT_EQ(heard[1], std::make_pair(std::string("/b"), arrived + 2)) << flavour_name(f);
  }
}

TEST(ClientThreads, CWatchersRunAtArrival) {
  ThreadLags d;
  Rig r(Flavour::C, d);
  TimeMs heard = -1;
  run(r.world, r.zk, [](Client& zk, TimeMs& heard) -> Task<> {
    co_await zk.create("/a", "", CreateMode::Persistent);
    co_await zk.exists("/a", [&](const WatchedEvent&) { heard = zk.now(); });
    co_await zk.remove("/a");
  }(r.zk, heard));
  r.world.run_until(r.world.now() + 10);
  EXPECT_EQ(heard, last_of(r.world, TraceKind::Watch));
}

// A watcher's set() on the event thread wakes a recipe on the caller's
// thread as a step of its own: what runs in between is what a real
// recipe's missing synchronisation has to survive.
TEST(ClientThreads, AWatchersWakeUpReachesTheCallerAsAStepOfItsOwn) {
  for (TimeMs timeout : {TimeMs{-1}, TimeMs{1000}}) {
    ThreadLags d;
    Rig r(Flavour::Curator, d);
    run(r.world, r.zk, connect(r.zk));
    TimeMs woke = -1;
    d.lags = {0, 0, 0, 2};  // create, exists, remove replies; the event's wake-up
    run(r.world, r.zk, [](Client& zk, TimeMs timeout, TimeMs& woke) -> Task<> {
      co_await zk.create("/a", "", CreateMode::Persistent);
      Signal gone;
      Watcher on_delete = [gone](const WatchedEvent&) mutable { gone.set(); };
      co_await zk.exists("/a", std::move(on_delete));
      co_await zk.remove("/a");
      EXPECT_TRUE(co_await zk.wait_for(gone, timeout));
      woke = zk.now();
    }(r.zk, timeout, woke));
    EXPECT_EQ(woke, last_of(r.world, TraceKind::Watch) + 1) << "timeout " << timeout;
  }
}

Task<> post_then_preempt(Client& zk, bool& ran, bool& ran_before_resuming) {
  zk.post([](bool& ran) -> Task<> {
    ran = true;
    co_return;
  }(ran));
  co_await zk.preemption_point();
  ran_before_resuming = ran;
}

TEST(ClientThreads, APreemptionPointLetsTheLibrarysOtherThreadsRunFirst) {
  ThreadLags d;
  Rig r(Flavour::Curator, d);
  run(r.world, r.zk, connect(r.zk));
  bool ran = false, first = false;
  d.lags = {0, 2};  // the posted task at once; the caller 1 ms later
  run(r.world, r.zk, post_then_preempt(r.zk, ran, first));
  EXPECT_TRUE(ran);
  EXPECT_TRUE(first);
}

TEST(ClientThreads, APreemptionPointOfTheCRecipeDoesNothing) {
  ThreadLags d;
  Rig r(Flavour::C, d);
  run(r.world, r.zk, connect(r.zk));
  bool ran = false, first = true;
  run(r.world, r.zk, post_then_preempt(r.zk, ran, first));
  EXPECT_TRUE(ran);
  EXPECT_FALSE(first);
}

TEST(ClientThreads, APostedTaskEndsWithItsProcess) {
  ThreadLags d;
  Rig r(Flavour::Kazoo, d);
  run(r.world, r.zk, connect(r.zk));
  bool finished = false;
  r.zk.post([](Client& zk, bool& finished) -> Task<> {
    co_await zk.sleep(100);
    finished = true;
  }(r.zk, finished));
  r.world.run_until(r.world.now() + 10);
  EXPECT_EQ(r.world.running_tasks(), 1);
  r.world.inject(FaultKind::Crash, 0);
  r.world.run_until(r.world.now() + 500);
  EXPECT_FALSE(finished);
  EXPECT_EQ(r.world.running_tasks(), 0);
}

TEST(ClientThreads, APausedProcessRunsNoThreadStep) {
  ThreadLags d;
  Rig r(Flavour::Curator, d);
  run(r.world, r.zk, connect(r.zk));
  TimeMs started = -1;
  d.lags = {2};
  const TimeMs posted = r.world.now();
  r.zk.post([](Client& zk, TimeMs& started) -> Task<> {
    started = zk.now();
    co_return;
  }(r.zk, started));
  r.world.inject(FaultKind::Pause, 0, 300);
  r.world.run_until(r.world.now() + 1000);
  EXPECT_EQ(started, posted + 300);
}

}  // namespace
}  // namespace zksim::test
