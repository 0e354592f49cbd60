// Waits that give up take their watch back: after a timed-out call, while
// whatever blocked it is still there, the caller's session watches nothing
// on the server, and the blocker's later change wakes nobody who stopped
// waiting. Waits of one session that share a watch keep it for each other,
// through one Client or through handles sharing its session (World::share).
#include "recipe_fixture.h"

#include "zksim/recipes/barrier.h"
#include "zksim/recipes/election.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/queue.h"
#include "zksim/recipes/rw_lock.h"
#include "zksim/recipes/semaphore.h"

namespace zksim::test {
namespace {

using namespace recipes;
using Lines = std::vector<std::string>;

const std::string kDir = "/r/dir";

// Makes the waiter wait, sets `ready`, and undoes it once `done` is set.
using Blocker = Task<> (*)(Client&, Signal ready, Signal done);
// One call that must time out after 100 ms.
using Attempt = Task<Error> (*)(Client&);

template <class T>
Error error_of(const Result<T>& r) {
  return r ? Error::Ok : r.error();
}

// Watch events the client received (one per watch the server fired for it).
int watch_events_to(const World& w, int client) {
  return static_cast<int>(std::count_if(
      w.trace().events().begin(), w.trace().events().end(),
      [&](const TraceEvent& e) { return e.kind == TraceKind::Watch && e.client == client; }));
}

// Three attempts in a row (stale watches would stack), each checked.
// `dirs`: where the recipe's nodes live, to be empty at the end.
void expect_clean_give_up(Blocker blocker, Attempt attempt, const std::vector<std::string>& dirs = {kDir}) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& holder = w.open("holder");
  Client& waiter = w.open("waiter");
  Signal ready, done;
  w.spawn(holder, blocker(holder, ready, done));
  w.spawn(waiter, [](Client& c, World& w, Attempt attempt, Signal ready, Signal done) -> Task<> {
    co_await ready.wait();
    for (int i = 0; i < 3; ++i) {
      Error e = co_await attempt(c);
      EXPECT_EQ(e, Error::OperationTimeout);
      EXPECT_EQ(w.server().watches_of(c.session_id()), Lines{}) << "attempt " << i;
    }
    done.set();
  }(waiter, w, attempt, ready, done));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(watch_events_to(w, w.id(waiter)), 0);
  for (const std::string& dir : dirs) expect_no_leftovers(w, dir);
}

Task<> hold_lock(Client& c, Signal ready, Signal done) {
  Lock lock(c, kDir);
  EXPECT_TRUE((co_await lock.acquire()).ok());
  ready.set();
  co_await done.wait();
  EXPECT_TRUE((co_await lock.release()).ok());
}

TEST(GiveUp, ATimedOutLockAcquireLeavesNoWatch) {
  expect_clean_give_up(hold_lock, [](Client& c) -> Task<Error> {
    Lock lock(c, kDir);
    auto g = co_await lock.acquire(100);
    co_return error_of(g);
  });
}

TEST(GiveUp, ATimedOutCampaignLeavesNoWatch) {
  expect_clean_give_up(
      [](Client& c, Signal ready, Signal done) -> Task<> {
        LeaderElection e(c, kDir, "leader");
        EXPECT_TRUE((co_await e.campaign()).ok());
        ready.set();
        co_await done.wait();
        EXPECT_TRUE((co_await e.resign()).ok());
      },
      [](Client& c) -> Task<Error> {
        LeaderElection e(c, kDir, "candidate");
        auto g = co_await e.campaign(100);
        co_return error_of(g);
      });
}

TEST(GiveUp, ATimedOutReadLeavesNoWatchOnTheWriter) {
  expect_clean_give_up(
      [](Client& c, Signal ready, Signal done) -> Task<> {
        ReadWriteLock rw(c, kDir);
        EXPECT_TRUE((co_await rw.acquire_write()).ok());
        ready.set();
        co_await done.wait();
        EXPECT_TRUE((co_await rw.release_write()).ok());
      },
      [](Client& c) -> Task<Error> {
        ReadWriteLock rw(c, kDir);
        auto g = co_await rw.acquire_read(100);
        co_return error_of(g);
      });
}

TEST(GiveUp, ATimedOutWriteLeavesNoWatchOnTheReader) {
  expect_clean_give_up(
      [](Client& c, Signal ready, Signal done) -> Task<> {
        ReadWriteLock rw(c, kDir);
        EXPECT_TRUE((co_await rw.acquire_read()).ok());
        ready.set();
        co_await done.wait();
        EXPECT_TRUE((co_await rw.release_read()).ok());
      },
      [](Client& c) -> Task<Error> {
        ReadWriteLock rw(c, kDir);
        auto g = co_await rw.acquire_write(100);
        co_return error_of(g);
      });
}

TEST(GiveUp, ATimedOutSemaphoreAcquireLeavesNoWatch) {
  expect_clean_give_up(
      [](Client& c, Signal ready, Signal done) -> Task<> {
        Semaphore s(c, kDir, 2);
        auto first = co_await s.acquire();
        auto second = co_await s.acquire();
        EXPECT_TRUE(first.ok() && second.ok());
        ready.set();
        co_await done.wait();
        EXPECT_TRUE((co_await s.release(*first)).ok());
        EXPECT_TRUE((co_await s.release(*second)).ok());
      },
      [](Client& c) -> Task<Error> {
        Semaphore s(c, kDir, 2);
        auto g = co_await s.acquire(100);
        co_return error_of(g);
      },
      {kDir + "/" + Semaphore::kLocks, kDir + "/" + Semaphore::kLeases});
}

TEST(GiveUp, ATimedOutBarrierWaitLeavesNoWatch) {
  expect_clean_give_up(
      [](Client& c, Signal ready, Signal done) -> Task<> {
        Barrier b(c, kDir + "/barrier");
        EXPECT_TRUE((co_await b.raise()).ok());
        ready.set();
        co_await done.wait();
        EXPECT_TRUE((co_await b.lower()).ok());
      },
      [](Client& c) -> Task<Error> {
        Barrier b(c, kDir + "/barrier");
        auto r = co_await b.wait(100);
        co_return error_of(r);
      });
}

Task<> nothing(Client&, Signal ready, Signal) {
  ready.set();
  co_return;
}

TEST(GiveUp, ATimedOutDoubleBarrierEnterLeavesNoWatchOnReady) {
  expect_clean_give_up(nothing, [](Client& c) -> Task<Error> {
    DoubleBarrier round(c, kDir, 2);
    auto r = co_await round.enter(100);
    co_return error_of(r);
  });
}

TEST(GiveUp, ATimedOutTakeFromAnEmptyQueueLeavesNoWatch) {
  expect_clean_give_up(nothing, [](Client& c) -> Task<Error> {
    Queue q(c, kDir);
    auto r = co_await q.take(100);
    co_return error_of(r);
  });
}

TEST(GiveUp, ATimedOutTakeFromALockingQueueLeavesNoWatch) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("consumer");
  w.spawn(c, [](Client& c, World& w) -> Task<> {
    LockingQueue q(c, kDir);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ((co_await q.take(100)).error(), Error::OperationTimeout);
      EXPECT_EQ(w.server().watches_of(c.session_id()), Lines{}) << "attempt " << i;
    }
  }(c, w));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir + "/items");
  expect_no_leftovers(w, kDir + "/claims");
}

TEST(GiveUp, ATimedOutDoubleBarrierLeaveLeavesNoWatch) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.open("b");
  Signal entered, done;
  w.spawn(a, [](Client& a, Signal entered, Signal done) -> Task<> {
    DoubleBarrier round(a, kDir, 2);
    EXPECT_TRUE((co_await round.enter()).ok());
    entered.set();
    co_await done.wait();
    EXPECT_TRUE((co_await round.leave()).ok());
  }(a, entered, done));
  w.spawn(b, [](Client& b, World& w, Signal entered, Signal done) -> Task<> {
    DoubleBarrier round(b, kDir, 2);
    EXPECT_TRUE((co_await round.enter()).ok());
    co_await entered.wait();
    EXPECT_EQ((co_await round.leave(100)).error(), Error::OperationTimeout);
    EXPECT_EQ(w.server().watches_of(b.session_id()), Lines{});
    done.set();
    EXPECT_TRUE((co_await round.leave()).ok());
  }(b, w, entered, done));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kDir);
}

// The removal retries across a ConnectionLoss (applied or not): the library
// keeps its watcher then, and the reconnect would arm the watch again.
TEST(GiveUp, ALockAcquireRemovesItsWatchAcrossAConnectionLoss) {
  for (FaultKind fault : {FaultKind::DropBeforeApply, FaultKind::DropAfterApply}) {
    ListDecisions d({});
    World w(quiet(), d);
    Client& holder = w.open("holder");
    Client& waiter = w.open("waiter");
    w.schedule(on_nth(fault, w.id(waiter), request_kind<RemoveWatchesRequest>));
    Signal ready, done;
    w.spawn(holder, hold_lock(holder, ready, done));
    w.spawn(waiter, [](Client& c, World& w, Signal ready, Signal done) -> Task<> {
      co_await ready.wait();
      Lock lock(c, kDir);
      EXPECT_EQ((co_await lock.acquire(100)).error(), Error::OperationTimeout);
      EXPECT_EQ(w.server().watches_of(c.session_id()), Lines{});
      done.set();
    }(waiter, w, ready, done));
    ASSERT_TRUE(w.run_until_done(100'000));
    std::string name(fault_kind_name(static_cast<std::int32_t>(fault)));
    int id = w.id(waiter);
    EXPECT_EQ(responses(w, id, request_kind<RemoveWatchesRequest>, Error::ConnectionLoss), 1) << name;
    EXPECT_EQ(responses(w, id, request_kind<RemoveWatchesRequest>, Error::Ok), 1) << name;
    EXPECT_EQ(watch_events_to(w, id), 0) << name;
    expect_no_leftovers(w, kDir);
  }
}

// Two readers of one Client wait on the same writer: one watch on the
// server for both. The one that gives up leaves it to the other, which is
// granted when the writer goes.
TEST(GiveUp, AReaderThatGivesUpLeavesTheWatchToAnotherReaderOfItsClient) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& writer = w.open("writer");
  Client& readers = w.open("readers");
  Signal written, reading, gave_up;  // a Signal has one waiter
  TimeMs released_at = -1, granted_at = -1;
  w.spawn(writer, [](Client& c, Signal written, Signal gave_up, TimeMs& released_at) -> Task<> {
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    written.set();
    co_await gave_up.wait();
    released_at = c.now();
    EXPECT_TRUE((co_await rw.release_write()).ok());
  }(writer, written, gave_up, released_at));
  w.spawn(readers, [](Client& c, Signal written, Signal reading, TimeMs& granted_at) -> Task<> {
    co_await written.wait();
    reading.set();
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_read()).ok());  // no deadline
    granted_at = c.now();
    EXPECT_TRUE((co_await rw.release_read()).ok());
  }(readers, written, reading, granted_at));
  w.spawn(readers, [](Client& c, World& w, Signal reading, Signal gave_up) -> Task<> {
    co_await reading.wait();
    co_await c.sleep(10);  // after the other reader set its watch
    ReadWriteLock rw(c, kDir);
    EXPECT_EQ((co_await rw.acquire_read(100)).error(), Error::OperationTimeout);
    EXPECT_EQ(w.server().watches_of(c.session_id()).size(), 1u);
    gave_up.set();
  }(readers, w, reading, gave_up));
  ASSERT_TRUE(w.run_until_done(100'000));
  ASSERT_GE(released_at, 0);
  EXPECT_GE(granted_at, released_at);
  EXPECT_LT(granted_at, released_at + 20);
  expect_no_leftovers(w, kDir);
}

// Two consumers of one Client wait on an empty queue: one child watch on the
// server for both. The one that gives up leaves it to the other, which
// takes the next item.
TEST(GiveUp, AConsumerThatGivesUpLeavesTheWatchToAnotherConsumerOfItsClient) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& producer = w.open("producer");
  Client& consumers = w.open("consumers");
  Signal gave_up;
  std::string taken;
  w.spawn(consumers, [](Client& c, std::string& taken) -> Task<> {
    Queue q(c, kDir);
    auto item = co_await q.take();  // no deadline
    EXPECT_TRUE(item.ok());
    if (item) taken = item->data;
  }(consumers, taken));
  w.spawn(consumers, [](Client& c, World& w, Signal gave_up) -> Task<> {
    co_await c.sleep(10);
    Queue q(c, kDir);
    EXPECT_EQ((co_await q.take(100)).error(), Error::OperationTimeout);
    EXPECT_EQ(w.server().watches_of(c.session_id()), Lines{"child " + kDir});
    gave_up.set();
  }(consumers, w, gave_up));
  w.spawn(producer, [](Client& c, Signal gave_up) -> Task<> {
    co_await gave_up.wait();
    Queue q(c, kDir);
    EXPECT_TRUE((co_await q.put("job")).ok());
  }(producer, gave_up));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(taken, "job");
  expect_no_leftovers(w, kDir);
}

// Two readers on handles sharing one session (World::share: two threads of
// one process with one zhandle) wait on the same writer: one watch on the
// server for both, and removeAllWatches would take both watchers. The one
// that gives up leaves it to the other, which is granted when the writer goes.
TEST(GiveUp, AReaderThatGivesUpLeavesTheWatchToAReaderOfAnotherHandleOnItsSession) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& writer = w.open("writer");
  Client& first = w.open("readers");
  Client& second = w.share(first, "readers-thread-2");
  Signal written, reading, gave_up;  // a Signal has one waiter
  TimeMs released_at = -1, granted_at = -1;
  w.spawn(writer, [](Client& c, Signal written, Signal gave_up, TimeMs& released_at) -> Task<> {
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    written.set();
    co_await gave_up.wait();
    released_at = c.now();
    EXPECT_TRUE((co_await rw.release_write()).ok());
  }(writer, written, gave_up, released_at));
  w.spawn(first, [](Client& c, Signal written, Signal reading, TimeMs& granted_at) -> Task<> {
    co_await written.wait();
    reading.set();
    ReadWriteLock rw(c, kDir);
    EXPECT_TRUE((co_await rw.acquire_read()).ok());  // no deadline
    granted_at = c.now();
    EXPECT_TRUE((co_await rw.release_read()).ok());
  }(first, written, reading, granted_at));
  w.spawn(second, [](Client& c, World& w, Signal reading, Signal gave_up) -> Task<> {
    co_await reading.wait();
    co_await c.sleep(10);  // after the other reader set its watch
    ReadWriteLock rw(c, kDir);
    EXPECT_EQ((co_await rw.acquire_read(100)).error(), Error::OperationTimeout);
    EXPECT_EQ(w.server().watches_of(c.session_id()).size(), 1u);
    gave_up.set();
  }(second, w, reading, gave_up));
  ASSERT_TRUE(w.run_until_done(100'000));
  ASSERT_GE(released_at, 0);
  EXPECT_GE(granted_at, released_at);
  EXPECT_LT(granted_at, released_at + 20);
  expect_no_leftovers(w, kDir);
}

}  // namespace
}  // namespace zksim::test
