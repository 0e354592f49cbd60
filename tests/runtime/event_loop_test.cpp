// The event loop's rules (runtime/include/zksim/event_loop.h), one test each.
#include "zksim/event_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zksim::runtime {
namespace {

// Runs everything due by `limit`.
void run(EventLoop& loop, TimeMs limit = 1'000'000) {
  while (loop.step(limit)) {
  }
}

TEST(EventLoop, EventsRunInTimeOrderAndTiesInTheOrderScheduled) {
  EventLoop loop;
  std::string order;
  loop.call_at(5, [&] { order += 'c'; });
  loop.call_at(2, [&] { order += 'a'; });
  loop.call_at(5, [&] { order += 'd'; });
  loop.call_at(2, [&] { order += 'b'; });
  run(loop);
  EXPECT_EQ(order, "abcd");
  EXPECT_EQ(loop.now(), 5);
}

TEST(EventLoop, PostsAndCallsShareOneOrder) {
  EventLoop loop;
  std::vector<std::uint64_t> seen;
  const int ch = loop.add_channel(
      [](void* s, std::uint64_t arg) { static_cast<std::vector<std::uint64_t>*>(s)->push_back(arg); }, &seen);
  loop.post(3, ch, 30);
  loop.call_at(3, [&] { seen.push_back(31); });
  loop.post(1, ch, 10);
  run(loop);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{10, 30, 31}));
}

TEST(EventLoop, WhatIsScheduledInThePastRunsNow) {
  EventLoop loop;
  TimeMs ran_at = -1;
  loop.call_at(10, [&] { loop.call_at(3, [&] { ran_at = loop.now(); }); });
  run(loop);
  EXPECT_EQ(ran_at, 10);
}

TEST(EventLoop, ACancelledCallNeverRuns) {
  EventLoop loop;
  bool ran = false;
  const EventLoop::CallId id = loop.call_at(4, [&] { ran = true; });
  loop.cancel(id);
  run(loop);
  EXPECT_FALSE(ran);
}

TEST(EventLoop, AStaleIdCancelsNothing) {
  EventLoop loop;
  const EventLoop::CallId first = loop.call_at(1, [] {});
  run(loop);
  bool ran = false;
  const EventLoop::CallId second = loop.call_at(2, [&] { ran = true; });  // reuses the first's slot
  EXPECT_NE(first, second);
  loop.cancel(first);
  run(loop);
  EXPECT_TRUE(ran);
}

TEST(EventLoop, NothingRunsPastTheLimitAndTimeStaysAtTheLastEvent) {
  EventLoop loop;
  bool late = false;
  loop.call_at(3, [] {});
  loop.call_at(8, [&] { late = true; });
  run(loop, 5);
  EXPECT_FALSE(late);
  EXPECT_EQ(loop.now(), 3);
  loop.advance_to(5);
  EXPECT_EQ(loop.now(), 5);
  loop.advance_to(4);
  EXPECT_EQ(loop.now(), 5);
}

TEST(EventLoop, AStepLimitStopsTheLoopAndCountsStepsTakenOutsideIt) {
  EventLoop loop;
  int ran = 0;
  for (int i = 0; i < 5; ++i) loop.call_at(i, [&] { ++ran; });
  loop.set_step_limit(3);
  loop.count_step();
  run(loop);
  EXPECT_EQ(ran, 2);
  EXPECT_TRUE(loop.stopped());
  EXPECT_EQ(loop.steps(), 3u);
}

TEST(EventLoop, ACrashedProcessRunsNothing) {
  EventLoop loop;
  Process p;
  bool ran = false;
  EventLoop::CallId slot = 0;
  loop.at_process(p, 5, [&] { ran = true; }, &slot);
  EXPECT_NE(slot, 0u);
  loop.call_at(2, [&] { p.crashed = true; });
  run(loop);
  EXPECT_FALSE(ran);
  EXPECT_EQ(slot, 0u);
}

TEST(EventLoop, APausedProcessRunsItsCallWhenThePauseEnds) {
  EventLoop loop;
  Process p;
  TimeMs ran_at = -1;
  EventLoop::CallId slot = 0;
  loop.call_at(1, [&] { p.paused_until = 9; });
  loop.at_process(p, 4, [&] { ran_at = loop.now(); }, &slot);
  const EventLoop::CallId before = slot;
  run(loop, 4);
  EXPECT_EQ(ran_at, -1);
  EXPECT_NE(slot, 0u);
  EXPECT_NE(slot, before);  // the put-off call's id, for its owner to cancel
  run(loop);
  EXPECT_EQ(ran_at, 9);
  EXPECT_EQ(slot, 0u);
}

TEST(EventLoop, APutOffCallIsCancelledByTheIdItsOwnerHolds) {
  EventLoop loop;
  Process p;
  p.paused_until = 6;
  bool ran = false;
  EventLoop::CallId slot = 0;
  loop.at_process(p, 2, [&] { ran = true; }, &slot);
  run(loop, 2);
  loop.cancel(slot);
  run(loop);
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace zksim::runtime
