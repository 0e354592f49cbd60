// The read/write lock: readers share, writers exclude everyone, grants in
// sequence order, the downgrade keeps later writers out, and recovery paths.
#include "recipe_fixture.h"

#include "zksim/recipes/rw_lock.h"

#include <fmt/format.h>

namespace zksim::test {
namespace {

using recipes::ReadWriteLock;

const std::string kDir = "/locks/rw";

struct Room {
  int readers = 0, writers = 0;
  int max_readers = 0;
  int violations = 0;  // a writer with anyone else inside
  int reads = 0, writes = 0;
  void check() {
    if (writers > 1 || (writers == 1 && readers > 0)) ++violations;
    max_readers = std::max(max_readers, readers);
  }
};

Task<> rw_rounds(Client& zk, bool writer, Room& room, int rounds) {
  ReadWriteLock rw(zk, kDir);
  for (int i = 0; i < rounds; ++i) {
    if (writer) {
      auto g = co_await rw.acquire_write();
      EXPECT_TRUE(g.ok()) << error_name(g.error());
      if (!g) co_return;
      ++room.writers, ++room.writes, room.check();
      co_await zk.sleep(5);
      --room.writers;
      co_await rw.release_write();
    } else {
      auto g = co_await rw.acquire_read();
      EXPECT_TRUE(g.ok()) << error_name(g.error());
      if (!g) co_return;
      ++room.readers, ++room.reads, room.check();
      co_await zk.sleep(5);
      --room.readers;
      co_await rw.release_read();
    }
  }
}

void mix(int clients, int rounds, std::uint64_t seed, WorldConfig cfg = {}) {
  SeededDecisions d(seed);
  World w(cfg, d);
  Room room;
  for (int i = 0; i < clients; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    w.spawn(c, rw_rounds(c, i % 3 == 0, room, rounds));
  }
  ASSERT_TRUE(w.run_until_done(10'000'000));
  EXPECT_EQ(room.violations, 0);
  EXPECT_EQ(room.reads + room.writes, clients * rounds);
  expect_no_leftovers(w, kDir);
}

TEST(ReadWriteLock, OneClient) { mix(1, 3, 1); }
TEST(ReadWriteLock, TwoClients) { mix(2, 5, 2); }
TEST(ReadWriteLock, TenClientsReadersShareWritersExclude) { mix(10, 5, 3); }
TEST(ReadWriteLock, HundredClients) { mix(100, 2, 4); }
TEST(ReadWriteLock, ManySeeds) {
  for (std::uint64_t seed = 10; seed < 40; ++seed) mix(6, 3, seed);
}

TEST(ReadWriteLock, ReadersShareTheLock) {
  ListDecisions d({});
  World w(quiet(), d);
  Room room;
  for (int i = 0; i < 5; ++i) {
    Client& c = w.open(fmt::format("r{}", i));
    w.spawn(c, rw_rounds(c, false, room, 1));
  }
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(room.max_readers, 5);
  expect_no_leftovers(w, kDir);
}

TEST(ReadWriteLock, ReadersWaitForTheLastWriterBeforeThemOnly) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& wr = w.open("writer");
  Room room;
  std::vector<Signal> holds(4);
  w.spawn(wr, [](Client& c, Room& room, std::vector<Signal>& holds) -> Task<> {
    ReadWriteLock rw(c, kDir);
    co_await rw.acquire_write();
    ++room.writers;
    for (Signal& s : holds) s.set();
    co_await c.sleep(100);
    --room.writers;
    co_await rw.release_write();
  }(wr, room, holds));
  for (std::size_t i = 0; i < 4; ++i) {
    Client& c = w.open(fmt::format("r{}", i));
    w.spawn(c, [](Client& c, Room& room, Signal holds) -> Task<> {
      co_await holds.wait();
      ReadWriteLock rw(c, kDir);
      co_await rw.acquire_read();
      ++room.readers, room.check();
      co_await c.sleep(10);
      --room.readers;
      co_await rw.release_read();
    }(c, room, holds[i]));
  }
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(room.violations, 0);
  EXPECT_EQ(room.max_readers, 4);
  // One release woke the four readers, each watching that writer, and no one else.
  EXPECT_EQ(watch_events(w, EventType::NodeDeleted), 4);
  expect_no_leftovers(w, kDir);
}

TEST(ReadWriteLock, DowngradeKeepsAWriterQueuedMeanwhileOut) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Room room;
  Signal a_writes, b_queued;
  w.spawn(a, [](Client& c, Room& room, Signal writes, Signal b_queued) -> Task<> {
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    writes.set();
    co_await b_queued.wait();
    co_await c.sleep(20);                       // b's write node exists by now
    EXPECT_TRUE((co_await rw.acquire_read()).ok());
    EXPECT_TRUE((co_await rw.release_write()).ok());
    EXPECT_FALSE(rw.holds_write());
    ++room.readers, room.check();
    co_await c.sleep(100);
    --room.readers;
    EXPECT_TRUE((co_await rw.release_read()).ok());
  }(a, room, a_writes, b_queued));
  w.spawn(b, [](Client& c, Room& room, Signal a_writes, Signal queued) -> Task<> {
    co_await a_writes.wait();
    ReadWriteLock rw(c, kDir);
    queued.set();
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    ++room.writers, room.check();
    --room.writers;
    co_await rw.release_write();
  }(b, room, a_writes, b_queued));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(room.violations, 0);
  expect_no_leftovers(w, kDir);
}

TEST(ReadWriteLock, UpgradeIsRefused) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  w.spawn(a, [](Client& c) -> Task<> {
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_read()).ok());
    EXPECT_EQ((co_await rw.acquire_write()).error(), Error::BadArguments);
    EXPECT_TRUE((co_await rw.release_read()).ok());
  }(a));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

// A client library that opens a new session after expiry (kazoo, Curator)
// lets the object carry on: a read it then takes "under" the write it lost
// would be granted at once, ahead of the writers queued meanwhile.
TEST(ReadWriteLock, ADowngradeUnderAWriteLostWithItsSessionIsRefused) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 4000, -1, Flavour::Kazoo);
  w.spawn(a, [](Client& c, World& w) -> Task<> {
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    const SessionId first = c.session_id();
    w.inject(FaultKind::ExpireSession, w.id(c));
    while (c.session_id() == first || c.state() != SessionState::Connected) co_await c.sleep(10);
    EXPECT_FALSE(rw.holds_write());
    EXPECT_EQ((co_await rw.acquire_read()).error(), Error::SessionExpired);
    co_await rw.release_write();
  }(a, w));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

TEST(ReadWriteLock, FaultsOnRecoveryPathsKeepExclusion) {
  // Lost create replies, lost deletes, an expiry and a long pause, on
  // different clients of one run.
  SeededDecisions d(9);
  World w({}, d);
  Room room;
  for (int i = 0; i < 6; ++i) {
    Client& c = w.open(fmt::format("c{}", i), 2000);
    w.spawn(c, [](Client& c, bool writer, Room& room) -> Task<> {
      ReadWriteLock rw(c, kDir);
      for (int k = 0; k < 4; ++k) {
        // (No co_await inside ?: — GCC 12 mishandles the temporaries.)
        Result<recipes::Grant> g = Error::SystemError;
        if (writer) {
          g = co_await rw.acquire_write(3000);
        } else {
          g = co_await rw.acquire_read(3000);
        }
        if (!g) {
          if (c.state() == SessionState::Expired) co_return;
          continue;
        }
        (writer ? room.writers : room.readers)++, room.check();
        bool alive = writer ? rw.holds_write() : rw.holds_read();
        co_await c.sleep(5);
        (writer ? room.writers : room.readers)--;
        if (alive && writer) co_await rw.release_write();
        if (alive && !writer) co_await rw.release_read();
      }
    }(c, i % 2 == 0, room));
  }
  w.schedule(on_nth(FaultKind::DropAfterApply, 1, request_kind<CreateRequest>, 2));
  w.schedule(on_nth(FaultKind::DropAfterApply, 2, request_kind<DeleteRequest>, 1));
  w.schedule(on_nth(FaultKind::DropBeforeApply, 3, request_kind<CreateRequest>, 3));
  w.schedule(at_time(FaultKind::ExpireSession, 4, 30));
  ASSERT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(room.violations, 0);
  expect_no_leftovers(w, kDir);
}

}  // namespace
}  // namespace zksim::test
