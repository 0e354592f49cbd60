// Waits that give up on the real server: after each timed-out call, while
// whatever blocked it is still there, the server holds no watch (`mntr`);
// two readers of one client that wait on one writer keep their shared
// watch for each other.
#include "real_recipe_fixture.h"

#include "zksim/recipes/lock.h"
#include "zksim/recipes/queue.h"
#include "zksim/recipes/rw_lock.h"

namespace zksim::test {
namespace {

using namespace zksim::recipes;

using RealGiveUp = RealRecipeTest;

TEST_F(RealGiveUp, TimedOutAcquiresLeaveNoWatchWhileTheHolderHolds) {
  const std::string dir = "/real/give-up/lock";
  Signal held, done;
  spawn([](Client& zk, std::string dir, Signal held, Signal done) -> Task<> {
    Lock lock(zk, dir);
    EXPECT_TRUE((co_await lock.acquire()).ok());
    held.set();
    co_await done.wait();
    EXPECT_TRUE((co_await lock.release()).ok());
  }(open(), dir, held, done));
  spawn([](Client& zk, std::string dir, Signal held, Signal done) -> Task<> {
    co_await held.wait();
    Lock lock(zk, dir);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ((co_await lock.acquire(200)).error(), Error::OperationTimeout);
      EXPECT_EQ(total_watches(), 0) << "attempt " << i;
    }
    done.set();
  }(open(), dir, held, done));
  run();
  expect_no_leftovers(dir);
}

TEST_F(RealGiveUp, ATimedOutTakeLeavesNoWatch) {
  const std::string dir = "/real/give-up/queue";
  spawn([](Client& zk, std::string dir) -> Task<> {
    Queue q(zk, dir);
    EXPECT_EQ((co_await q.take(200)).error(), Error::OperationTimeout);
    EXPECT_EQ(total_watches(), 0);
  }(open(), dir));
  run();
  expect_no_leftovers(dir);
}

TEST_F(RealGiveUp, AReaderThatGivesUpLeavesTheWatchToAnotherReaderOfItsClient) {
  const std::string dir = "/real/give-up/rw";
  Signal written, reading, gave_up;  // a Signal has one waiter
  bool granted = false;
  spawn([](Client& zk, std::string dir, Signal written, Signal gave_up) -> Task<> {
    ReadWriteLock rw(zk, dir);
    EXPECT_TRUE((co_await rw.acquire_write()).ok());
    written.set();
    co_await gave_up.wait();
    EXPECT_TRUE((co_await rw.release_write()).ok());
  }(open(), dir, written, gave_up));
  RealClient& readers = open();
  spawn([](Client& zk, std::string dir, Signal written, Signal reading, bool& granted) -> Task<> {
    co_await written.wait();
    reading.set();
    ReadWriteLock rw(zk, dir);
    granted = (co_await rw.acquire_read(10'000)).ok();
    EXPECT_TRUE((co_await rw.release_read()).ok());
  }(readers, dir, written, reading, granted));
  spawn([](Client& zk, std::string dir, Signal reading, Signal gave_up) -> Task<> {
    co_await reading.wait();
    co_await zk.sleep(100);  // after the other reader set its watch
    ReadWriteLock rw(zk, dir);
    EXPECT_EQ((co_await rw.acquire_read(200)).error(), Error::OperationTimeout);
    EXPECT_EQ(total_watches(), 1);
    gave_up.set();
  }(readers, dir, reading, gave_up));
  run();
  EXPECT_TRUE(granted);
  expect_no_leftovers(dir);
}

}  // namespace
}  // namespace zksim::test
