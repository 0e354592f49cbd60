// The recipes on the real server, unchanged, with many clients: no overlap,
// exact counts, nothing left behind (no child in the recipe's directory, no
// watch on the server).
#include "real_recipe_fixture.h"

#include "zksim/recipes/barrier.h"
#include "zksim/recipes/election.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/queue.h"
#include "zksim/recipes/rw_lock.h"
#include "zksim/recipes/semaphore.h"

#include <fmt/format.h>

#include <map>

namespace zksim::test {
namespace {

using namespace zksim::recipes;

constexpr int kClients = 10;
constexpr int kRounds = 100;
constexpr TimeMs kHoldMs = 1;
constexpr TimeMs kWaitMs = 20'000;  // a grant that takes longer is a failure

using RealRecipes = RealRecipeTest;

TEST_F(RealRecipes, LockTenClientsNeverOverlapAndGrantInOrder) {
  const std::string dir = "/real/lock";
  Holders h;
  for (int i = 0; i < kClients; ++i) {
    spawn([](Client& zk, std::string dir, Holders& h) -> Task<> {
      Lock lock(zk, dir);
      for (int r = 0; r < kRounds; ++r) {
        auto g = co_await lock.acquire(kWaitMs);
        EXPECT_TRUE(g.ok()) << error_name(g.error());
        if (!g) co_return;
        h.enter(g->fence);
        co_await zk.sleep(kHoldMs);
        h.leave();
        auto released = co_await lock.release();
        EXPECT_TRUE(released.ok());
      }
    }(open(), dir, h));
  }
  run();
  EXPECT_EQ(h.max_inside, 1);
  EXPECT_EQ(h.entries, kClients * kRounds);
  EXPECT_TRUE(h.fences_increase());
  expect_no_leftovers(dir);
}

struct Room {
  int readers = 0, writers = 0, max_readers = 0, violations = 0, reads = 0, writes = 0;
  void check() {
    if (writers > 1 || (writers == 1 && readers > 0)) ++violations;
    max_readers = std::max(max_readers, readers);
  }
};

TEST_F(RealRecipes, ReadWriteLockReadersShareWritersExclude) {
  const std::string dir = "/real/rw";
  Room room;
  for (int i = 0; i < kClients; ++i) {
    spawn([](Client& zk, std::string dir, bool writer, Room& room) -> Task<> {
      ReadWriteLock rw(zk, dir);
      for (int r = 0; r < kRounds; ++r) {
        if (writer) {
          auto g = co_await rw.acquire_write(kWaitMs);
          EXPECT_TRUE(g.ok()) << error_name(g.error());
          if (!g) co_return;
          ++room.writers, ++room.writes, room.check();
          co_await zk.sleep(kHoldMs);
          --room.writers;
          auto released = co_await rw.release_write();
          EXPECT_TRUE(released.ok());
        } else {
          auto g = co_await rw.acquire_read(kWaitMs);
          EXPECT_TRUE(g.ok()) << error_name(g.error());
          if (!g) co_return;
          ++room.readers, ++room.reads, room.check();
          co_await zk.sleep(kHoldMs);
          --room.readers;
          auto released = co_await rw.release_read();
          EXPECT_TRUE(released.ok());
        }
      }
    }(open(), dir, i % 3 == 0, room));
  }
  run();
  EXPECT_EQ(room.violations, 0);
  EXPECT_GT(room.max_readers, 1);
  EXPECT_EQ(room.reads + room.writes, kClients * kRounds);
  expect_no_leftovers(dir);
}

// Each acquire passes the semaphore's internal lock (three round trips and
// more): holds much longer than that let all the leases be held at once.
TEST_F(RealRecipes, SemaphoreNeverGrantsMoreThanItsLeases) {
  const std::string dir = "/real/sem";
  constexpr int kLeases = 3;
  constexpr TimeMs kLeaseHoldMs = 20;
  constexpr int kLeaseRounds = 20;
  Holders h;
  for (int i = 0; i < kClients; ++i) {
    spawn([](Client& zk, std::string dir, Holders& h) -> Task<> {
      Semaphore sem(zk, dir, kLeases);
      for (int r = 0; r < kLeaseRounds; ++r) {
        auto lease = co_await sem.acquire(kWaitMs);
        EXPECT_TRUE(lease.ok()) << error_name(lease.error());
        if (!lease) co_return;
        h.enter(lease->fence);
        co_await zk.sleep(kLeaseHoldMs);
        h.leave();
        auto released = co_await sem.release(*lease);
        EXPECT_TRUE(released.ok());
      }
    }(open(), dir, h));
  }
  run();
  EXPECT_EQ(h.max_inside, kLeases);
  EXPECT_EQ(h.entries, kClients * kLeaseRounds);
  expect_no_leftovers(dir + "/" + Semaphore::kLocks);
  expect_no_leftovers(dir + "/" + Semaphore::kLeases);
}

TEST_F(RealRecipes, ElectionHasOneLeaderPerTerm) {
  const std::string dir = "/real/election";
  constexpr int kTerms = 10;  // per candidate
  Holders leaders;
  for (int i = 0; i < kClients; ++i) {
    spawn([](Client& zk, std::string dir, std::string id, Holders& leaders) -> Task<> {
      LeaderElection e(zk, dir, id);
      for (int t = 0; t < kTerms; ++t) {
        auto won = co_await e.campaign(kWaitMs);
        EXPECT_TRUE(won.ok()) << error_name(won.error());
        if (!won) co_return;
        leaders.enter(won->fence);
        auto leader = co_await e.leader();
        EXPECT_EQ(leader.ok() ? *leader : "", id);
        auto verified = co_await e.verify();
        EXPECT_TRUE(verified.ok() && *verified);
        co_await zk.sleep(kHoldMs);
        leaders.leave();
        auto resigned = co_await e.resign();
        EXPECT_TRUE(resigned.ok());
        EXPECT_FALSE(e.is_leader());
      }
    }(open(), dir, fmt::format("id{}", i), leaders));
  }
  run();
  EXPECT_EQ(leaders.max_inside, 1);
  EXPECT_EQ(leaders.entries, kClients * kTerms);
  EXPECT_TRUE(leaders.fences_increase());
  expect_no_leftovers(dir);
}

constexpr int kProducers = 5, kConsumers = 5, kItemsEach = 100;

// What consumers received: each item once, and from any one producer in
// put order (a take claims the lowest item it can).
struct Ledger {
  std::map<std::string, int> times;                   // data -> deliveries
  std::map<std::pair<int, int>, int> last;            // (consumer, producer) -> last index
  int out_of_order = 0;
  void took(int consumer, const std::string& data) {
    ++times[data];
    int producer = 0, index = 0;
    EXPECT_EQ(std::sscanf(data.c_str(), "p%d-%d", &producer, &index), 2) << data;
    auto [it, fresh] = last.try_emplace({consumer, producer}, index);
    if (!fresh) {
      if (index <= it->second) ++out_of_order;
      it->second = index;
    }
  }
  void expect_each_once() const {
    EXPECT_EQ(static_cast<int>(times.size()), kProducers * kItemsEach);
    for (const auto& [data, n] : times) EXPECT_EQ(n, 1) << data;
    EXPECT_EQ(out_of_order, 0);
  }
};

template <class Q>
Task<> produce(Client& zk, std::string dir, int id) {
  Q q(zk, dir);
  for (int i = 0; i < kItemsEach; ++i) {
    auto put = co_await q.put(fmt::format("p{}-{}", id, i));
    EXPECT_TRUE(put.ok()) << error_name(put.error());
  }
}

TEST_F(RealRecipes, QueueDeliversEveryItemOnceInProducerOrder) {
  const std::string dir = "/real/queue";
  Ledger l;
  for (int i = 0; i < kProducers; ++i) spawn(produce<Queue>(open(), dir, i));
  for (int i = 0; i < kConsumers; ++i) {
    spawn([](Client& zk, std::string dir, int id, Ledger& l) -> Task<> {
      Queue q(zk, dir);
      for (int k = 0; k < kProducers * kItemsEach / kConsumers; ++k) {
        auto got = co_await q.take(kWaitMs);
        EXPECT_TRUE(got.ok()) << error_name(got.error());
        if (!got) co_return;
        l.took(id, got->data);
      }
    }(open(), dir, i, l));
  }
  run();
  l.expect_each_once();
  expect_no_leftovers(dir);
}

TEST_F(RealRecipes, LockingQueueDeliversEveryItemOnceInProducerOrder) {
  const std::string dir = "/real/locking-queue";
  Ledger l;
  for (int i = 0; i < kProducers; ++i) spawn(produce<LockingQueue>(open(), dir, i));
  for (int i = 0; i < kConsumers; ++i) {
    spawn([](Client& zk, std::string dir, int id, Ledger& l) -> Task<> {
      LockingQueue q(zk, dir);
      for (int k = 0; k < kProducers * kItemsEach / kConsumers; ++k) {
        auto got = co_await q.take(kWaitMs);
        EXPECT_TRUE(got.ok()) << error_name(got.error());
        if (!got) co_return;
        auto acked = co_await q.ack(*got);
        EXPECT_TRUE(acked.ok()) << error_name(acked.error());
        l.took(id, got->data);
      }
    }(open(), dir, i, l));
  }
  run();
  l.expect_each_once();
  expect_no_leftovers(dir + "/items");
  expect_no_leftovers(dir + "/claims");
}

TEST_F(RealRecipes, BarrierHoldsEveryMemberUntilLowered) {
  const std::string dir = "/real/barrier";
  constexpr int kBarrierRounds = 3;
  int passed_early = 0, passed = 0;
  for (int round = 0; round < kBarrierRounds; ++round) {
    const std::string path = fmt::format("{}/b{}", dir, round);
    bool lowered = false;
    std::vector<Signal> raised(kClients);  // a Signal resumes one waiter
    spawn([](Client& c, std::string path, bool& lowered, std::vector<Signal>& raised) -> Task<> {
      Barrier b(c, path);
      auto up = co_await b.raise();
      EXPECT_TRUE(up.ok());
      for (Signal& s : raised) s.set();
      co_await c.sleep(100);
      lowered = true;  // before the delete is sent: nobody may pass before this
      auto down = co_await b.lower();
      EXPECT_TRUE(down.ok());
    }(open(), path, lowered, raised));
    for (Signal& s : raised) {
      spawn([](Client& c, std::string path, Signal raised, bool& lowered, int& early,
               int& passed) -> Task<> {
        co_await raised.wait();
        Barrier b(c, path);
        auto through = co_await b.wait(kWaitMs);
        EXPECT_TRUE(through.ok()) << error_name(through.error());
        if (!lowered) ++early;
        ++passed;
      }(open(), path, s, lowered, passed_early, passed));
    }
    run();
  }
  EXPECT_EQ(passed_early, 0);
  EXPECT_EQ(passed, kBarrierRounds * kClients);
  expect_no_leftovers(dir);
}

TEST_F(RealRecipes, DoubleBarrierMembersEnterAndLeaveTogether) {
  const std::string dir = "/real/double";
  constexpr int kBarrierRounds = 5;
  struct Round {
    int arrived = 0, leaving = 0, left = 0, early_enter = 0, early_leave = 0;
  };
  std::vector<Round> rounds(kBarrierRounds);
  for (int i = 0; i < kClients; ++i) {
    spawn([](Client& c, std::string dir, int i, std::vector<Round>& rounds) -> Task<> {
      for (std::size_t r = 0; r < rounds.size(); ++r) {
        Round& p = rounds[r];
        co_await c.sleep(i % 4);  // arrive at different times
        ++p.arrived;
        DoubleBarrier b(c, fmt::format("{}/r{}", dir, r), kClients);
        auto in = co_await b.enter(kWaitMs);
        EXPECT_TRUE(in.ok()) << error_name(in.error());
        if (!in) co_return;
        if (p.arrived < kClients) ++p.early_enter;
        co_await c.sleep((i * 7) % 5);
        ++p.leaving;
        auto out = co_await b.leave(kWaitMs);
        EXPECT_TRUE(out.ok()) << error_name(out.error());
        if (p.leaving < kClients) ++p.early_leave;
        ++p.left;
      }
    }(open(), dir, i, rounds));
  }
  run();
  for (int r = 0; r < kBarrierRounds; ++r) {
    const Round& p = rounds[static_cast<std::size_t>(r)];
    EXPECT_EQ(p.early_enter, 0) << "round " << r;
    EXPECT_EQ(p.early_leave, 0) << "round " << r;
    EXPECT_EQ(p.left, kClients) << "round " << r;
    expect_no_leftovers(fmt::format("{}/r{}", dir, r));
  }
}

}  // namespace
}  // namespace zksim::test
