// RealClient against a real server: the session side the conformance suite
// does not compare (states, InvalidState after close, unique_id, timers).
#include "tcp_gate.h"
#include "zk_server_env.h"
#include "zksim/real_client.h"

#include <gtest/gtest.h>

namespace zksim::test {
namespace {

struct Events {
  std::vector<KeeperState> states;
  Watcher watcher() {
    return [this](const WatchedEvent& e) { states.push_back(e.state); };
  }
};

Task<bool> until_state(Client& c, SessionState s, TimeMs limit = 10'000) {
  TimeMs end = c.now() + limit;
  while (c.state() != s) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

class RealClientTest : public ::testing::Test {
 protected:
  void run(Task<> t) {
    loop.spawn(std::move(t));
    ASSERT_TRUE(loop.run_until_done(30'000));
  }
  RealLoop loop;
};

TEST_F(RealClientTest, ConnectsAndTellsTheDefaultWatcher) {
  auto zk = RealClient::open(loop, zk_server().hosts(), 4000);
  ASSERT_TRUE(zk);
  Events seen;
  zk->set_default_watcher(seen.watcher());
  EXPECT_EQ(zk->state(), SessionState::Connecting);
  EXPECT_EQ(zk->session_id(), SessionId{});
  run([](Client& c) -> Task<> { EXPECT_TRUE(co_await until_state(c, SessionState::Connected)); }(*zk));
  EXPECT_NE(zk->session_id(), SessionId{});
  EXPECT_EQ(seen.states, std::vector<KeeperState>{KeeperState::SyncConnected});
}

TEST_F(RealClientTest, CallsAfterCloseReturnInvalidState) {
  auto zk = RealClient::open(loop, zk_server().hosts(), 4000);
  run([](Client& c) -> Task<> {
    co_await until_state(c, SessionState::Connected);
    EXPECT_TRUE(co_await c.close());
    EXPECT_EQ(c.state(), SessionState::Closed);
    auto r = co_await c.exists("/");
    EXPECT_EQ(r.error(), Error::InvalidState);
    EXPECT_TRUE(co_await c.close());
  }(*zk));
}

TEST_F(RealClientTest, AddWatchIsUnimplemented) {
  auto zk = RealClient::open(loop, zk_server().hosts(), 4000);
  run([](Client& c) -> Task<> {
    auto r = co_await c.add_watch("/", AddWatchMode::Persistent, [](const WatchedEvent&) {});
    EXPECT_EQ(r.error(), Error::Unimplemented);
  }(*zk));
}

TEST_F(RealClientTest, UniqueIdsDifferBeforeConnectingAndAcrossHandles) {
  auto a = RealClient::open(loop, zk_server().hosts(), 4000);
  auto b = RealClient::open(loop, zk_server().hosts(), 4000);
  // Recipes name their first node before the session exists.
  std::string a1 = a->unique_id(), a2 = a->unique_id(), b1 = b->unique_id();
  EXPECT_NE(a1, a2);
  EXPECT_NE(a1, b1);
  EXPECT_TRUE(a1.ends_with("-1"));
  EXPECT_TRUE(a2.ends_with("-2"));
}

TEST_F(RealClientTest, ExpiryFromOutsideIsDisconnectedThenExpired) {
  TcpGate gate(zk_server().port());
  auto zk = RealClient::open(loop, gate.hosts(), 4000);
  Events seen;
  zk->add_session_listener(seen.watcher());
  run([](RealClient& c, TcpGate& g) -> Task<> {
    co_await until_state(c, SessionState::Connected);
    g.hold(true);
    EXPECT_TRUE(co_await c.expire_from_outside(zk_server().hosts()));
    g.hold(false);
    EXPECT_TRUE(co_await until_state(c, SessionState::Expired));
    auto r = co_await c.exists("/");
    EXPECT_EQ(r.error(), Error::InvalidState);
  }(*zk, gate));
  std::vector<KeeperState> want = {KeeperState::SyncConnected, KeeperState::Disconnected,
                                   KeeperState::Expired};
  EXPECT_EQ(seen.states, want);
}

TEST_F(RealClientTest, WaitForTimesOutOnTheLoopClock) {
  auto zk = RealClient::open(loop, zk_server().hosts(), 4000);
  run([](Client& c) -> Task<> {
    Signal never;
    TimeMs t0 = c.now();
    EXPECT_FALSE(co_await c.wait_for(never, 50));
    EXPECT_GE(c.now() - t0, 50);
    Signal soon;
    soon.set();
    EXPECT_TRUE(co_await c.wait_for(soon, 10'000));
  }(*zk));
}

// The C client's completion thread runs watcher events and completions in
// the order they arrived (mt_adaptor.c do_completion), and RealClient posts
// each to the loop from there: a delete's watch event, which the server
// sends before the reply, runs before the background delete's completion.
// A call the C client refuses returns its error from zoo_a* and gets no
// completion: it completes before in_background returns.
TEST_F(RealClientTest, ABackgroundCallCompletesOnTheLoopAfterTheWatchEventItsRequestFired) {
  auto zk = RealClient::open(loop, zk_server().hosts(), 4000);
  std::vector<std::string> log;
  bool returned_first = false, refused_at_once = false;
  run([](Client& c, std::vector<std::string>& log, bool& returned_first, bool& refused_at_once) -> Task<> {
    EXPECT_TRUE(co_await until_state(c, SessionState::Connected));
    const std::string path = "/background-" + c.unique_id();
    EXPECT_TRUE(co_await c.create(path, "", CreateMode::Persistent));
    EXPECT_TRUE(co_await c.exists(path, [&log](const WatchedEvent&) { log.push_back("watch"); }));
    c.in_background(c.remove(path), [&log](Result<void> r) { log.push_back(r ? "removed" : "failed"); });
    returned_first = log.empty();
    c.in_background(c.create("bad", "", CreateMode::Persistent), [&refused_at_once](Result<CreateResponse> r) {
      refused_at_once = r.error() == Error::BadArguments;
    });
  }(*zk, log, returned_first, refused_at_once));
  EXPECT_TRUE(returned_first);
  EXPECT_TRUE(refused_at_once);
  EXPECT_EQ(log, (std::vector<std::string>{"watch", "removed"}));
}

}  // namespace
}  // namespace zksim::test
