// The lease-lock checkers on histories that must pass and that must fail.
#include "zksim/lease/checkers.h"

#include <gtest/gtest.h>

namespace zksim::lease {
namespace {

LeaseHold hold(int process, TimeMs start, TimeMs end, TimeMs grounded = 0, TimeMs lease_end = kNever) {
  return {.process = process, .start = start, .end = end, .grounded = grounded, .lease_end = lease_end};
}

TEST(LeaseCheckers, ResourceExclusionHoldsWhenEachHoldsWritesAreTogether) {
  const std::vector<LeaseHold> h = {hold(0, 0, 10), hold(1, 20, 30), hold(0, 40, 50)};
  EXPECT_FALSE(check_resource_exclusion(h, {0, 0, 1, 1, 2, 2}));
  EXPECT_FALSE(check_resource_exclusion(h, {0, 1, 2}));
  EXPECT_FALSE(check_resource_exclusion(h, {}));
}

TEST(LeaseCheckers, ResourceExclusionFailsWhenAHoldWritesAfterAnothers) {
  const std::vector<LeaseHold> h = {hold(0, 0, 10), hold(1, 20, 30)};
  auto v = check_resource_exclusion(h, {0, 1, 1, 0});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->property, "resource-exclusion");
  EXPECT_EQ(v->message, "p0's hold 0 wrote after p1's hold 0 had written");
}

TEST(LeaseCheckers, BeliefExclusionHoldsForHoldsThatDoNotOverlap) {
  EXPECT_FALSE(check_belief_exclusion({hold(0, 0, 10), hold(1, 10, 20), hold(0, 20, 30)}));
}

TEST(LeaseCheckers, BeliefExclusionFailsForOverlappingHoldsOfTwoProcesses) {
  auto v = check_belief_exclusion({hold(0, 0, 10), hold(1, 5, 20)});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->property, "belief-exclusion");
  EXPECT_EQ(v->message, "p0 (hold 0) and p1 (hold 0) both held the lock at 5 ms");
}

TEST(LeaseCheckers, BeliefExclusionIgnoresOneProcesssOwnHolds) {
  EXPECT_FALSE(check_belief_exclusion({hold(0, 0, 10), hold(0, 5, 20)}));
}

TEST(LeaseCheckers, AHolderWhoseLeaseRanOutBeforeTheOverlapIsExcused) {
  // p0 heard the server at 1, its lease ended at 300, p1 took the lock at 310.
  EXPECT_FALSE(check_belief_exclusion({hold(0, 2, 500, 1, 300), hold(1, 310, 320, 305, 610)}));
}

TEST(LeaseCheckers, AHolderWhoseLeaseEndsOnlyAfterTheOverlapBeganIsNotExcused) {
  EXPECT_TRUE(check_belief_exclusion({hold(0, 2, 500, 1, 400), hold(1, 310, 320, 305, 610)}));
}

TEST(LeaseCheckers, AHolderThatHeardTheServerAfterItsLeaseEndedIsNotExcused) {
  // p0's lease ended at 300 while it waited; the server told it at 350 that
  // the key before it was gone, and it took the lock without a lease.
  EXPECT_TRUE(check_belief_exclusion({hold(0, 352, 500, 350, 300), hold(1, 400, 420, 398, 700)}));
}

TEST(LeaseCheckers, LeaseKeptHoldsWhenEveryReleaseFoundTheLockHeld) {
  EXPECT_FALSE(check_lease_kept({hold(0, 0, 10), hold(1, 20, 30)}));
}

TEST(LeaseCheckers, LeaseKeptFailsWhenAHolderNothingCutOffHadLostTheLock) {
  LeaseHold h = hold(1, 20, 30);
  h.lost_at_release = true;
  auto v = check_lease_kept({hold(0, 0, 10), h});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->property, "lease-kept");
  EXPECT_EQ(v->message, "p1 (hold 0) had lost the lock by its release at 30 ms though nothing had cut it off");
}

TEST(LeaseCheckers, LeaseKeptExcusesAHolderThatWasCutOff) {
  LeaseHold h = hold(1, 20, 30);
  h.lost_at_release = true;
  h.cut_off = true;
  EXPECT_FALSE(check_lease_kept({h}));
}

TEST(LeaseCheckers, HerdEffectHoldsWhenEachChangeWakesOneWaiter) {
  EXPECT_FALSE(check_herd({{.change = 1, .process = 1, .time = 10}, {.change = 2, .process = 2, .time = 20}}));
}

TEST(LeaseCheckers, HerdEffectFailsWhenOneChangeWakesTwoWaitersWhoseLeasesLasted) {
  const auto v = check_herd({{.change = 7, .process = 1, .time = 10}, {.change = 7, .process = 2, .time = 11}});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->property, "herd-effect");
  EXPECT_EQ(v->time, 10);
  EXPECT_EQ(v->clients, (std::vector<int>{1, 2}));
}

TEST(LeaseCheckers, HerdEffectIgnoresAWaiterWhoseLeaseHadRunOut) {
  const std::vector<LeaseWakeup> woke{{.change = 7, .process = 1, .time = 10, .lease_lasted = false},
                                      {.change = 7, .process = 2, .time = 11}};
  EXPECT_FALSE(check_herd(woke));
  EXPECT_EQ(worst_wakeups(woke), 2);
}

}  // namespace
}  // namespace zksim::lease
