// The exclusive lock: fault-free with 1, 2, 10 and 100 clients, and under
// faults aimed at each recovery path. Every test ends with no contender node
// and no watch left.
#include "recipe_fixture.h"

#include "zksim/recipes/lock.h"

#include <fmt/format.h>

#include <optional>

namespace zksim::test {
namespace {

using recipes::Grant;
using recipes::HoldEvent;
using recipes::Lock;

const std::string kDir = "/locks/a";

Task<> lock_rounds(Client& zk, int id, Critical& cs, int rounds, TimeMs hold_ms) {
  Lock lock(zk, kDir);
  for (int i = 0; i < rounds; ++i) {
    auto g = co_await lock.acquire();
    EXPECT_TRUE(g.ok()) << error_name(g.error());
    if (!g) co_return;
    EXPECT_TRUE(lock.holds());
    cs.enter(id, g->fence, g->node);
    co_await zk.sleep(hold_ms);
    cs.leave();
    EXPECT_TRUE((co_await lock.release()).ok());
    EXPECT_FALSE(lock.holds());
  }
}

// A recipe on the caller's thread can read a listing after the connection
// that brought it broke, when the session, and the node with it, may be
// gone already: it must list again rather than grant.
TEST(ExclusiveLock, AListingReadAfterTheConnectionBrokeGrantsNothing) {
  ThreadLags d;
  d.otherwise = 2;  // every step of a library thread 1 or 2 ms late
  World w(quiet(), d);
  Client& zk = w.open("c0", 2000, -1, Flavour::Curator);
  w.schedule(on_nth(FaultKind::ExpireSession, 0, request_kind<GetChildrenRequest>));
  std::optional<Result<Grant>> got;
  w.spawn(zk, [](Client& zk, std::optional<Result<Grant>>& got) -> Task<> {
    Lock lock(zk, kDir);
    got = co_await lock.acquire();
  }(zk, got));
  ASSERT_TRUE(w.run_until_done(10'000));
  ASSERT_TRUE(got.has_value());
  EXPECT_FALSE(got->ok());
  EXPECT_TRUE(w.server().children(kDir).empty());
}

// Every decision 0 but the lag of the server's expiry of a silent session
// whose client opens a new one after expiry (kExpiryLagChoices, 5, in
// world_impl.h): the latest, a whole session timeout.
class LateExpiry final : public DecisionSource {
 public:
  std::uint32_t choose(std::uint32_t n) override { return n == 5 ? 4 : 0; }
};

// A library that gives a session up by itself (Curator's LOST) opens a new
// one while the server, its expiry late, still lists the old session's
// nodes. A wait that lists in the new session takes no grant on its old
// node (the node CURATOR-498's protected create found and took, and that
// goes when the server expires that session): it fails with
// SessionExpired, the node deleted.
TEST(ExclusiveLock, AWaitInANewSessionTakesNoGrantOnTheOldSessionsNode) {
  LateExpiry d;
  World w(quiet(), d);
  Client& a = w.open("a", 2000, -1, Flavour::Curator);
  Client& b = w.open("b", 2000, -1, Flavour::Curator);
  w.spawn(a, [](Client& zk) -> Task<> {
    Lock lock(zk, kDir);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    co_await zk.sleep(3000);
    EXPECT_TRUE((co_await lock.release()).ok());
  }(a));
  std::optional<Result<Grant>> got;
  SessionId first;
  w.spawn(b, [](Client& zk, std::optional<Result<Grant>>& got, SessionId& first) -> Task<> {
    co_await zk.sleep(50);  // after a's grant
    first = zk.session_id();
    Lock lock(zk, kDir);
    got = co_await lock.acquire();
  }(b, got, first));
  w.run_until(100);
  ASSERT_EQ(w.server().children(kDir).size(), 2u);
  w.partition(w.id(b), 2500);  // past the session timeout: LOST at about 2100
  w.run_until(2700);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error(), Error::SessionExpired);
  if (getenv("PEEK")) fmt::print("{}", render_trace(w.trace()));
  EXPECT_NE(b.session_id(), first);
  EXPECT_TRUE(w.server().session_alive(first));  // its old session, not yet expired...
  EXPECT_EQ(w.server().children(kDir).size(), 1u);  // ...but its node deleted: a's alone
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

void contend(int clients, int rounds, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Critical cs;
  for (int i = 0; i < clients; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    w.spawn(c, lock_rounds(c, i, cs, rounds, 5));
  }
  ASSERT_TRUE(w.run_until_done(10'000'000));
  EXPECT_EQ(cs.max_inside, 1);
  EXPECT_EQ(cs.entries, clients * rounds);
  // Grants follow the contenders' creation order (FIFO), which the fences show.
  EXPECT_TRUE(cs.fences_increase());
  // Herd-free: a release wakes at most the one contender watching it.
  EXPECT_LE(watch_events(w, EventType::NodeDeleted), clients * rounds);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, OneClientAcquiresAndReleases) { contend(1, 3, 1); }
TEST(ExclusiveLock, TwoClientsNeverOverlap) { contend(2, 5, 2); }
TEST(ExclusiveLock, TenClientsNeverOverlapAndGrantInOrder) { contend(10, 5, 3); }
TEST(ExclusiveLock, HundredClientsNeverOverlapAndGrantInOrder) { contend(100, 2, 4); }

TEST(ExclusiveLock, ManySeedsKeepExclusionAndOrder) {
  for (std::uint64_t seed = 10; seed < 60; ++seed) contend(5, 3, seed);
}

TEST(ExclusiveLock, ReentrantAcquireCountsAndTheLastReleaseDeletes) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("a");
  w.spawn(c, [](Client& c, World& w) -> Task<> {
    Lock lock(c, kDir);
    auto first = co_await lock.acquire();
    auto second = co_await lock.acquire();
    EXPECT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(first->node, second->node);
    EXPECT_EQ(lock.hold_count(), 2);
    EXPECT_TRUE((co_await lock.release()).ok());
    EXPECT_TRUE(lock.holds());
    EXPECT_TRUE(w.server().node(first->node));
    EXPECT_TRUE((co_await lock.release()).ok());
    EXPECT_FALSE(w.server().node(first->node));
    EXPECT_EQ((co_await lock.release()).error(), Error::BadArguments);
  }(c, w));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, TimeoutGivesUpAndDeletesTheContenderNode) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Signal a_holds, b_done;
  w.spawn(a, [](Client& a, Signal holds, Signal b_done) -> Task<> {
    Lock lock(a, kDir);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    holds.set();
    co_await b_done.wait();
    EXPECT_TRUE((co_await lock.release()).ok());
  }(a, a_holds, b_done));
  w.spawn(b, [](Client& b, Signal a_holds, Signal done, World& w) -> Task<> {
    co_await a_holds.wait();
    Lock lock(b, kDir);
    TimeMs start = b.now();
    auto g = co_await lock.acquire(100);
    EXPECT_EQ(g.error(), Error::OperationTimeout);
    EXPECT_GE(b.now(), start + 100);
    EXPECT_LT(b.now(), start + 120);
    EXPECT_EQ(w.server().children(kDir).size(), 1u);  // only a's node
    EXPECT_FALSE(lock.holds());
    done.set();
  }(b, a_holds, b_done, w));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, CreateReplyLostIsRecoveredByTheUniqueId) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  // The dir exists already, so the first create is the contender node's.
  w.spawn(a, [](Client& a) -> Task<> { co_await a.create("/locks", "", CreateMode::Persistent); co_await a.create(kDir, "", CreateMode::Persistent); }(a));
  ASSERT_TRUE(w.run_until_done(1000));
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>));
  Critical cs;
  w.spawn(a, lock_rounds(a, 0, cs, 2, 5));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(cs.entries, 2);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, CreateRequestLostIsCreatedAgain) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<CreateRequest>, 3));
  Critical cs;
  w.spawn(a, lock_rounds(a, 0, cs, 1, 5));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(cs.entries, 1);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, ExpiryWhileWaitingFailsTheWaiterAndKeepsTheChain) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b", 2000);
  Client& c = w.open("c");
  Critical cs;
  Signal a_holds, c_waits;
  w.spawn(a, [](Client& a, Critical& cs, Signal holds, Signal c_waits) -> Task<> {
    Lock lock(a, kDir);
    auto g = co_await lock.acquire();
    cs.enter(0, g->fence);
    holds.set();
    co_await c_waits.wait();
    co_await a.sleep(5000);  // b expires meanwhile
    cs.leave();
    co_await lock.release();
  }(a, cs, a_holds, c_waits));
  w.spawn(b, [](Client& b, Signal a_holds) -> Task<> {
    co_await a_holds.wait();
    Lock lock(b, kDir);
    auto g = co_await lock.acquire();
    EXPECT_EQ(g.error(), Error::SessionExpired);
  }(b, a_holds));
  w.spawn(c, [](Client& c, Critical& cs, Signal c_waits) -> Task<> {
    co_await c.sleep(50);  // after b
    Lock lock(c, kDir);
    c_waits.set();
    auto g = co_await lock.acquire();
    EXPECT_TRUE(g.ok());
    cs.enter(2, g->fence);
    cs.leave();
    co_await lock.release();
  }(c, cs, c_waits));
  w.schedule(at_time(FaultKind::ExpireSession, 1, 1000));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(cs.who, (std::vector<int>{0, 2}));
  EXPECT_EQ(cs.max_inside, 1);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, ExpiryWhileHoldingTellsTheHolderAndGrantsTheNext) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 2000);
  Client& b = w.open("b");
  std::vector<HoldEvent> told;
  bool a_holds_at_end = true;
  Signal a_holds;
  w.spawn(a, [](Client& a, std::vector<HoldEvent>& told, bool& at_end, Signal holds) -> Task<> {
    recipes::LockOptions o;
    o.on_hold = [&told](HoldEvent e) { told.push_back(e); };
    Lock lock(a, kDir, o);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    holds.set();
    co_await a.sleep(10'000);
    at_end = lock.holds();
    EXPECT_TRUE((co_await lock.release()).ok());  // the node went with the session
  }(a, told, a_holds_at_end, a_holds));
  TimeMs b_granted = -1;
  w.spawn(b, [](Client& b, Signal a_holds, TimeMs& granted) -> Task<> {
    co_await a_holds.wait();
    Lock lock(b, kDir);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    granted = b.now();
    co_await lock.release();
  }(b, a_holds, b_granted));
  w.schedule(at_time(FaultKind::ExpireSession, 0, 1000));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(told, (std::vector<HoldEvent>{HoldEvent::Suspended, HoldEvent::Lost}));
  EXPECT_FALSE(a_holds_at_end);
  EXPECT_GE(b_granted, 1000);
  EXPECT_LT(b_granted, 1100);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, ShortDisconnectSuspendsThenReconnectsTheHolder) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 3000);
  std::vector<HoldEvent> told;
  w.spawn(a, [](Client& a, std::vector<HoldEvent>& told) -> Task<> {
    recipes::LockOptions o;
    o.on_hold = [&told](HoldEvent e) { told.push_back(e); };
    Lock lock(a, kDir, o);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    co_await a.sleep(5000);
    EXPECT_TRUE(lock.holds());
    EXPECT_FALSE(lock.suspended());
    co_await lock.release();
  }(a, told));
  // Longer than 2/3 of the timeout (the client gives up the connection),
  // shorter than the timeout since the last contact (the server keeps the
  // session); the acquire ends at t=8.
  w.schedule(at_time(FaultKind::Pause, 0, 20, 2500));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(told, (std::vector<HoldEvent>{HoldEvent::Suspended, HoldEvent::Reconnected}));
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, PredecessorGoneBeforeItsWatchIsSetListsAgain) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Critical cs;
  // b lists while a's node exists; a's delete reaches the server before b's
  // getData on it, which finds NoNode and sets no watch.
  TimeMs release_at = 0;
  w.spawn(a, [](Client& a, Critical& cs, TimeMs& release_at) -> Task<> {
    Lock lock(a, kDir);
    auto g = co_await lock.acquire();
    cs.enter(0, g->fence);
    co_await a.sleep(release_at - a.now());
    cs.leave();
    co_await lock.release();
  }(a, cs, release_at));
  w.spawn(b, [](Client& b, Critical& cs) -> Task<> {
    co_await b.sleep(100);
    Lock lock(b, kDir);
    auto g = co_await lock.acquire();
    EXPECT_TRUE(g.ok());
    cs.enter(1, g->fence);
    cs.leave();
    co_await lock.release();
  }(b, cs));
  // b starts at 100: create 100-102, getChildren 102-104, getData sent at
  // 104 reaches the server at 105. a's delete, sent at 103, arrives at 104.
  release_at = 103;
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 1, request_kind<GetDataRequest>, Error::NoNode), 1);
  EXPECT_EQ(cs.who, (std::vector<int>{0, 1}));
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, ConnectionLossDuringReleaseStillDeletesTheNode) {
  for (FaultKind kind : {FaultKind::DropBeforeApply, FaultKind::DropAfterApply}) {
    ListDecisions d({});
    World w(quiet(), d);
    Client& a = w.open("a");
    w.schedule(on_nth(kind, 0, request_kind<DeleteRequest>));
    Critical cs;
    w.spawn(a, lock_rounds(a, 0, cs, 1, 5));
    ASSERT_TRUE(w.run_until_done(100'000));
    EXPECT_EQ(responses(w, 0, request_kind<DeleteRequest>, Error::ConnectionLoss), 1);
    expect_no_leftovers(w, kDir);
  }
}

TEST(ExclusiveLock, OrderHoldsAcrossTheSequenceWrap) {
  SeededDecisions d(5);
  World w({}, d);
  Client& setup = w.open("setup");
  w.spawn(setup, [](Client& c) -> Task<> { co_await c.create("/locks", "", CreateMode::Persistent); co_await c.create(kDir, "", CreateMode::Persistent); }(setup));
  ASSERT_TRUE(w.run_until_done(1000));
  ASSERT_EQ(w.set_sequence_counter(kDir, 2147483647 - 3), Error::Ok);
  Critical cs;
  for (int i = 0; i < 5; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    w.spawn(c, lock_rounds(c, i, cs, 3, 5));
  }
  ASSERT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(cs.max_inside, 1);
  EXPECT_EQ(cs.entries, 15);
  EXPECT_TRUE(cs.fences_increase());
  // ZooKeeper 3.8 keeps the counter at 2^31-1 once there: equal numbers,
  // ordered by creation zxid.
  EXPECT_GE(std::count_if(cs.nodes.begin(), cs.nodes.end(),
                          [](const std::string& n) { return n.ends_with("2147483647"); }),
            10);
  expect_no_leftovers(w, kDir);
}

TEST(ExclusiveLock, SecondAcquireWhileTheFirstWaitsIsRejected) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Signal a_holds, b_checked;
  w.spawn(a, [](Client& a, Signal holds, Signal b_checked) -> Task<> {
    Lock lock(a, kDir);
    co_await lock.acquire();
    holds.set();
    co_await b_checked.wait();
    co_await lock.release();
  }(a, a_holds, b_checked));
  w.spawn(b, [](Client& b, Signal a_holds, Signal checked, World& w) -> Task<> {
    co_await a_holds.wait();
    Lock lock(b, kDir);
    struct Second {
      static Task<> run(Lock& lock, Signal checked) {
        EXPECT_EQ((co_await lock.acquire()).error(), Error::BadArguments);
        checked.set();
      }
    };
    w.spawn(b, Second::run(lock, checked));
    EXPECT_TRUE((co_await lock.acquire()).ok());
    co_await lock.release();
  }(b, a_holds, b_checked, w));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

}  // namespace
}  // namespace zksim::test
