// The lease world's rules: time, pauses, clocks, the network and the
// servers it hosts.
#include "zksim/lease/world.h"

#include <gtest/gtest.h>

namespace zksim::lease {
namespace {

// A command as a call, not a braced list: GCC 12 cannot take a braced list
// of strings in a co_await's operand.
template <class... A>
redis::Command cmd(A... args) {
  return {std::string(args)...};
}

redis::Reply must(std::optional<redis::Reply> r) {
  EXPECT_TRUE(r.has_value());
  return r.value_or(redis::Reply::error("no answer"));
}

TEST(LeaseWorld, ACallTakesTwoNetworkHopsOfAtLeastOneMs) {
  SeededDecisions d(1);
  World w({.redis_nodes = 1, .max_latency_ms = 3}, d);
  const int p = w.add_process();
  TimeMs took = 0;
  w.spawn(p, [](World& w, int p, TimeMs& took) -> Task<> {
    const TimeMs t0 = w.now();
    EXPECT_EQ(must(co_await w.redis(p, 0).call(cmd("SET", "k", "v"))), redis::Reply::ok());
    took = w.now() - t0;
  }(w, p, took));
  ASSERT_TRUE(w.run(1000));
  EXPECT_GE(took, 2);
  EXPECT_LE(took, 8);
}

TEST(LeaseWorld, APausedProcessRunsNothingUntilThePauseEnds) {
  SeededDecisions d(2);
  World w({.redis_nodes = 1}, d);
  const int p = w.add_process();
  TimeMs woke = -1;
  w.spawn(p, [](World& w, int p, TimeMs& woke) -> Task<> {
    co_await w.process(p).sleep(10);
    woke = w.now();
  }(w, p, woke));
  w.at(5, [&] { w.pause(p, 100); });
  ASSERT_TRUE(w.run(1000));
  EXPECT_EQ(woke, 105);
}

TEST(LeaseWorld, AClockJumpMovesTheWallClockButNotASleep) {
  SeededDecisions d(3);
  World w({}, d);
  const int p = w.add_process();
  TimeMs read = 0, woke = 0;
  w.spawn(p, [](World& w, int p, TimeMs& read, TimeMs& woke) -> Task<> {
    co_await w.process(p).sleep(10);
    read = w.process(p).clock_ms();
    woke = w.now();
  }(w, p, read, woke));
  w.at(2, [&] { w.jump_clock(p, 5000); });
  ASSERT_TRUE(w.run(1000));
  EXPECT_EQ(woke, 10);
  EXPECT_EQ(read, 5010);
}

TEST(LeaseWorld, AFastClockSleepsShorterInTrueTime) {
  SeededDecisions d(4);
  World w({}, d);
  const int p = w.add_process(/*drift_ppm=*/100'000);  // 10% fast
  TimeMs woke = 0;
  w.spawn(p, [](World& w, int p, TimeMs& woke) -> Task<> {
    co_await w.process(p).sleep(1100);
    woke = w.now();
  }(w, p, woke));
  ASSERT_TRUE(w.run(5000));
  EXPECT_EQ(woke, 1000);
  EXPECT_EQ(w.process(p).clock_ms(), 1100);
}

TEST(LeaseWorld, ADriftSetLaterSlowsTheClockFromThenOnWithoutAJump) {
  SeededDecisions d(4);
  World w({}, d);
  const int p = w.add_process();
  TimeMs read_at_drift = 0, woke = 0;
  w.spawn(p, [](World& w, int p, TimeMs& woke) -> Task<> {
    co_await w.process(p).sleep(200);
    co_await w.process(p).sleep(500);  // begun under the drift
    woke = w.now();
  }(w, p, woke));
  w.at(100, [&] {
    w.set_drift(p, -500'000);  // half speed
    read_at_drift = w.process(p).clock_ms();
  });
  ASSERT_TRUE(w.run(5000));
  EXPECT_EQ(read_at_drift, 100);
  // The first sleep keeps its end (200); the second lasts 1000 ms.
  EXPECT_EQ(woke, 1200);
  EXPECT_EQ(w.process(p).clock_ms(), 100 + 1100 / 2);
}

TEST(LeaseWorld, ALostReplyIsNoAnswerButTheCallRan) {
  SeededDecisions d(5);
  World w({.redis_nodes = 1, .call_timeout_ms = 50}, d);
  const int p = w.add_process();
  std::optional<redis::Reply> first, second;
  w.spawn(p, [](World& w, int p, std::optional<redis::Reply>& first, std::optional<redis::Reply>& second) -> Task<> {
    first = co_await w.redis(p, 0).call(cmd("SET", "k", "v"));
    second = co_await w.redis(p, 0).call(cmd("GET", "k"));
  }(w, p, first, second));
  w.lose_replies(p, 1);
  ASSERT_TRUE(w.run(1000));
  EXPECT_FALSE(first.has_value());
  EXPECT_EQ(second, redis::Reply::bulk("v"));
}

TEST(LeaseWorld, ARedisRestartLosesTheWritesSinceItsLastSave) {
  SeededDecisions d(6);
  World w({.redis_nodes = 1, .redis_save_every_ms = 100}, d);
  const int p = w.add_process();
  std::optional<redis::Reply> a, b;
  w.spawn(p, [](World& w, int p, std::optional<redis::Reply>& a, std::optional<redis::Reply>& b) -> Task<> {
    co_await w.redis(p, 0).call(cmd("SET", "saved", "1"));
    co_await w.process(p).sleep(150);  // a save at 100
    co_await w.redis(p, 0).call(cmd("SET", "unsaved", "1"));
    co_await w.process(p).sleep(100);  // the restart at 170, back at 190
    a = co_await w.redis(p, 0).call(cmd("GET", "saved"));
    b = co_await w.redis(p, 0).call(cmd("GET", "unsaved"));
  }(w, p, a, b));
  w.at(170, [&] { w.restart_redis(0, 20); });
  ASSERT_TRUE(w.run(1000));
  EXPECT_EQ(a, redis::Reply::bulk("1"));
  EXPECT_EQ(b, redis::Reply::nil());
}

TEST(LeaseWorld, TheLeaseObserverSaysWhichRedisCommandsGiveOrExtendALease) {
  SeededDecisions d(7);
  World w({.redis_nodes = 1}, d);
  const int p = w.add_process();
  w.set_redis_lease_observer([](int, TimeMs now, const redis::Command& c, const redis::Reply& r) -> std::optional<TimeMs> {
    if (c[0] == "SET" && r == redis::Reply::ok()) return now + 300;
    return std::nullopt;
  });
  w.spawn(p, [](World& w, int p) -> Task<> {
    co_await w.redis(p, 0).call(cmd("SET", "lock", "me", "NX", "PX", "300"));
    co_await w.redis(p, 0).call(cmd("SET", "lock", "me", "NX", "PX", "300"));  // refused: no lease
  }(w, p));
  ASSERT_TRUE(w.run(1000));
  ASSERT_EQ(w.leases(p).size(), 1u);
  EXPECT_EQ(w.leases(p)[0].end - w.leases(p)[0].start, 300);
}

TEST(LeaseWorld, AnEtcdLeaseWithoutKeepalivesExpiresAndTakesItsKeys) {
  SeededDecisions d(8);
  World w({.etcd = true}, d);
  const int p = w.add_process();
  const int q = w.add_process();
  bool deleted = false;
  TimeMs seen_at = 0;
  w.spawn(p, [](World& w, int p) -> Task<> {
    const etcd::LeaseGrantRequest grant{.ttl = 2};  // not braced in co_await (GCC 12)
    auto g = co_await w.etcd(p).lease_grant(grant);
    etcd::TxnRequest put;
    put.success.push_back(etcd::PutRequest{.key = "/k", .lease = (*g)->id});
    co_await w.etcd(p).txn(std::move(put));
  }(w, p));
  w.spawn(q, [](World& w, int q, bool& deleted, TimeMs& seen_at) -> Task<> {
    co_await w.process(q).sleep(100);
    deleted = co_await w.etcd(q).wait_delete("/k", 1);
    seen_at = w.now();
  }(w, q, deleted, seen_at));
  ASSERT_TRUE(w.run(10'000));
  EXPECT_TRUE(deleted);
  ASSERT_EQ(w.leases(p).size(), 1u);
  // Revoked at the lessor's first look (every 500 ms) after its deadline.
  EXPECT_GE(w.leases(p)[0].end - w.leases(p)[0].start, 2000);
  EXPECT_EQ(w.leases(p)[0].end % 500, 0);
  EXPECT_GT(seen_at, w.leases(p)[0].end);
  EXPECT_EQ(w.last_heard(q), w.leases(p)[0].end);
}

TEST(LeaseWorld, LostKeepalivesAreNoAnswer) {
  SeededDecisions d(9);
  World w({.etcd = true, .call_timeout_ms = 50}, d);
  const int p = w.add_process();
  std::optional<etcd::LeaseKeepAliveResponse> lost, kept;
  w.spawn(p, [](World& w, int p, auto& lost, auto& kept) -> Task<> {
    const etcd::LeaseGrantRequest grant{.ttl = 2};  // not braced in co_await (GCC 12)
    auto g = co_await w.etcd(p).lease_grant(grant);
    lost = co_await w.etcd(p).lease_keep_alive((*g)->id);
    kept = co_await w.etcd(p).lease_keep_alive((*g)->id);
  }(w, p, lost, kept));
  w.lose_keep_alives(p, 1);
  ASSERT_TRUE(w.run(10'000));
  EXPECT_FALSE(lost.has_value());
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->ttl, 2);
}

// A subscriber p on node 0 that subscribes after `after` ms, and a
// publisher q that publishes after its own delay.
struct PubSub {
  std::optional<std::string> got;
  Task<> subscriber(World& w, int p, TimeMs after = 0) {
    co_await w.process(p).sleep(after);
    co_await w.subscriber(p, 0).subscribe("ch");
    got = co_await w.subscriber(p, 0).next_message("ch", 100);
  }
  Task<> publisher(World& w, int q, TimeMs after) {
    co_await w.process(q).sleep(after);
    co_await w.redis(q, 0).call(cmd("PUBLISH", "ch", "hello"));
  }
};

// What p's subscriber got, when it subscribes after `subscribe_after` ms and
// q publishes after `publish_after` ms, with `lost` messages to p lost.
std::optional<std::string> pubsub_run(std::uint64_t seed, TimeMs subscribe_after, TimeMs publish_after, int lost) {
  SeededDecisions d(seed);
  World w({.redis_nodes = 1}, d);
  const int p = w.add_process(), q = w.add_process();
  PubSub ps;
  w.spawn(q, ps.publisher(w, q, publish_after));
  w.spawn(p, ps.subscriber(w, p, subscribe_after));
  w.lose_messages(p, lost);
  EXPECT_TRUE(w.run(1000));
  return ps.got;
}

TEST(LeaseWorld, AMessageReachesASubscriber) { EXPECT_EQ(pubsub_run(12, 0, 20, 0), "hello"); }

TEST(LeaseWorld, AMessagePublishedBeforeTheSubscriptionNeverComes) { EXPECT_FALSE(pubsub_run(13, 5, 0, 0)); }

TEST(LeaseWorld, ALostMessageNeverComes) { EXPECT_FALSE(pubsub_run(14, 0, 20, 1)); }

TEST(LeaseWorld, OnePublicationToSeveralSubscribersIsOneChangeWithAWakeupEach) {
  SeededDecisions d(15);
  World w({.redis_nodes = 1}, d);
  const int a = w.add_process(), b = w.add_process(), q = w.add_process();
  PubSub pa, pb;
  w.spawn(a, pa.subscriber(w, a));
  w.spawn(b, pb.subscriber(w, b));
  w.spawn(q, pa.publisher(w, q, 20));
  w.spawn(q, pb.publisher(w, q, 40));
  w.spawn(q, [](World& w, int q) -> Task<> { co_await w.process(q).sleep(100); }(w, q));  // until all came
  ASSERT_TRUE(w.run(1000));
  const std::vector<LeaseWakeup>& woke = w.wakeups();
  ASSERT_EQ(woke.size(), 4u);  // two publications, each to both
  EXPECT_EQ(woke[0].change, woke[1].change);
  EXPECT_EQ(woke[2].change, woke[3].change);
  EXPECT_NE(woke[0].change, woke[2].change);
  EXPECT_FALSE(woke[0].lease_lasted);  // no lease given to anyone
  EXPECT_EQ(worst_wakeups(woke), 2);
}

TEST(LeaseWorld, AWatchEventIsAWakeupMarkedWithWhetherTheWatchersLeaseLasted) {
  SeededDecisions d(16);
  World w({.etcd = true}, d);
  const int p = w.add_process(), q = w.add_process();
  w.spawn(p, [](World& w, int p) -> Task<> {
    etcd::TxnRequest put;
    put.success.push_back(etcd::PutRequest{.key = "/k"});
    co_await w.etcd(p).txn(std::move(put));
    co_await w.process(p).sleep(100);
    const etcd::DeleteRangeRequest del{.key = "/k"};  // not braced in co_await (GCC 12)
    co_await w.etcd(p).delete_range(del);
  }(w, p));
  w.spawn(q, [](World& w, int q) -> Task<> {
    const etcd::LeaseGrantRequest grant{.ttl = 2};
    co_await w.etcd(q).lease_grant(grant);
    co_await w.etcd(q).wait_delete("/k", 1);
  }(w, q));
  ASSERT_TRUE(w.run(1000));
  ASSERT_EQ(w.wakeups().size(), 1u);
  EXPECT_EQ(w.wakeups()[0].process, q);
  EXPECT_TRUE(w.wakeups()[0].lease_lasted);
  EXPECT_GT(w.wakeups()[0].time, 100);
}

TEST(LeaseWorld, TheSameSeedGivesTheSameTrace) {
  const auto run = [](std::uint64_t seed) {
    SeededDecisions d(seed);
    World w({.redis_nodes = 1, .max_latency_ms = 10}, d);
    for (int i = 0; i < 3; ++i) {
      const int p = w.add_process();
      w.spawn(p, [](World& w, int p) -> Task<> {
        for (int n = 0; n < 5; ++n) co_await w.redis(p, 0).call(cmd("INCR", "n"));
      }(w, p));
    }
    EXPECT_TRUE(w.run(10'000));
    return w.trace().hash();
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

}  // namespace
}  // namespace zksim::lease
