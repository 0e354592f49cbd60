// Every checker on hand-written histories that must pass and that must fail.
#include "zksim/scenarios/checkers.h"

#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

// Appends a completed op.
void op(History& h, int client, const std::string& f, TimeMs from, TimeMs to,
        Outcome outcome = Outcome::Ok, std::string value = {}, std::int64_t fence = 0) {
  auto i = h.invoke(client, f, from, value);
  if (outcome == Outcome::Ok) h.ok(i, to, value, fence);
  if (outcome == Outcome::Fail) h.fail(i, to, Error::OperationTimeout);
  if (outcome == Outcome::Info) h.info(i, to, Error::ConnectionLoss);
}

std::vector<Violation> exclusion(const History& h) {
  return check_at_most(beliefs(h, "acquire", "release"), 1, "mutual-exclusion");
}

TEST(MutualExclusionChecker, PassesHandOffs) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 0, "release", 20, 22);
  op(h, 1, "acquire", 5, 23, Outcome::Ok, "/l/b", 6);  // granted after the release began
  op(h, 1, "release", 30, 32);
  EXPECT_TRUE(exclusion(h).empty());
}

TEST(MutualExclusionChecker, FailsOverlappingHolders) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 1, "acquire", 5, 15, Outcome::Ok, "/l/b", 6);
  op(h, 0, "release", 20, 22);
  auto v = exclusion(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "mutual-exclusion");
  EXPECT_EQ(v[0].clients, (std::vector<int>{0, 1}));
  EXPECT_EQ(v[0].time, 15);
}

TEST(MutualExclusionChecker, AHolderToldLostNoLongerBelieves) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  h.note(0, 100, "suspended");
  op(h, 1, "acquire", 5, 150, Outcome::Ok, "/l/b", 6);
  h.note(0, 200, "lost");
  op(h, 0, "release", 300, 301);
  EXPECT_TRUE(exclusion(h).empty());
}

TEST(MutualExclusionChecker, ReentrantAcquiresNestUntilTheLastRelease) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 0, "acquire", 11, 11, Outcome::Ok, "/l/a", 5);
  op(h, 0, "release", 20, 20);
  op(h, 1, "acquire", 5, 25, Outcome::Ok, "/l/b", 6);  // while 0 still holds once
  op(h, 0, "release", 30, 31);
  EXPECT_EQ(exclusion(h).size(), 1u);
}

TEST(MutualExclusionChecker, FailedAndPendingAcquiresHoldNothing) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 1, "acquire", 1, 50, Outcome::Fail);
  h.invoke(2, "acquire", 2);
  EXPECT_TRUE(exclusion(h).empty());
}

TEST(MutualExclusionChecker, ExcusedWindowsAreLeftOut) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 1, "acquire", 5, 150, Outcome::Ok, "/l/b", 6);
  op(h, 1, "release", 160, 161);
  h.note(0, 200, "lost");
  auto b = beliefs(h, "acquire", "release");
  EXPECT_EQ(check_at_most(b, 1, "mutual-exclusion").size(), 1u);
  // Client 0's session was expired at 100 and it heard at 200: excused.
  EXPECT_TRUE(check_at_most(outside(b, {{0, 100, 200}}), 1, "mutual-exclusion").empty());
  // Heard at 155, but kept believing: the rest still counts.
  EXPECT_EQ(check_at_most(outside(b, {{0, 100, 155}}), 1, "mutual-exclusion").size(), 1u);
}

// A caller that heeds its library's connection news (Contract::Listener).
ListenerView heeding(const History& h) { return listener_view(h, {{"acquire", "release"}}); }

TEST(ListenerContract, AGrantReturnedWhileSuspendedIsHeldFromReconnected) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  h.note(1, 20, "suspended");
  op(h, 0, "release", 30, 31);
  op(h, 1, "acquire", 5, 25, Outcome::Ok, "/l/b", 6);  // while c0 still holds
  h.note(1, 40, "reconnected");
  op(h, 1, "release", 50, 51);
  const ListenerView view = heeding(h);
  EXPECT_EQ(view.granted_while_suspended, 1);
  auto b = beliefs(h, "acquire", "release");
  EXPECT_EQ(check_at_most(b, 1, "mutual-exclusion").size(), 1u);  // the strict contract
  const auto held = outside(b, view.windows);
  EXPECT_TRUE(check_at_most(held, 1, "mutual-exclusion").empty());
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[1].client, 1);
  EXPECT_EQ(held[1].from, 40);
}

TEST(ListenerContract, AGrantNotReconnectedBeforeLostIsNeverHeld) {
  History h;
  h.note(1, 20, "suspended");
  op(h, 1, "acquire", 5, 25, Outcome::Ok, "/l/b", 6);
  h.note(1, 40, "lost");
  op(h, 0, "acquire", 30, 45, Outcome::Ok, "/l/a", 7);
  op(h, 0, "release", 60, 61);
  op(h, 1, "release", 70, 71);
  const ListenerView view = heeding(h);
  EXPECT_EQ(view.granted_while_suspended, 1);
  EXPECT_TRUE(check_at_most(outside(beliefs(h, "acquire", "release"), view.windows), 1, "mutual-exclusion").empty());
}

TEST(ListenerContract, AReentrantGrantInsideAHoldToldLostIsNotANewHold) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  op(h, 0, "acquire", 11, 11, Outcome::Ok, "/l/a", 5);
  h.note(0, 20, "lost");
  op(h, 1, "acquire", 5, 25, Outcome::Ok, "/l/b", 6);
  op(h, 0, "release", 30, 30);
  op(h, 0, "acquire", 31, 31, Outcome::Ok, "/l/a", 5);  // nested in the hold it lost
  op(h, 0, "release", 40, 40);
  op(h, 0, "release", 41, 42);
  op(h, 1, "release", 50, 51);
  const ListenerView view = heeding(h);
  EXPECT_EQ(view.granted_while_suspended, 0);
  auto b = beliefs(h, "acquire", "release");
  EXPECT_EQ(check_at_most(b, 1, "mutual-exclusion").size(), 1u);  // the strict contract
  EXPECT_TRUE(check_at_most(outside(b, view.windows), 1, "mutual-exclusion").empty());
}

TEST(ListenerContract, AFreshAcquireAfterLostIsHeld) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  h.note(0, 20, "lost");
  op(h, 0, "release", 30, 31);
  op(h, 1, "acquire", 5, 25, Outcome::Ok, "/l/b", 6);
  op(h, 0, "acquire", 35, 40, Outcome::Ok, "/l/c", 7);  // a new hold, while c1 holds
  op(h, 1, "release", 50, 51);
  op(h, 0, "release", 60, 61);
  const ListenerView view = heeding(h);
  EXPECT_EQ(check_at_most(outside(beliefs(h, "acquire", "release"), view.windows), 1, "mutual-exclusion").size(),
            1u);
}

TEST(ListenerContract, AHolderIsUnsureFromSuspendedToReconnectedOnly) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "/l/a", 5);
  h.note(0, 20, "suspended");
  h.note(0, 30, "reconnected");
  op(h, 0, "release", 40, 41);
  const ListenerView view = heeding(h);
  ASSERT_EQ(view.windows.size(), 1u);
  EXPECT_EQ(view.windows[0].client, 0);
  EXPECT_EQ(view.windows[0].from, 20);
  EXPECT_EQ(view.windows[0].to, 30);
  EXPECT_EQ(view.granted_while_suspended, 0);
}

TEST(SemaphoreChecker, AllowsNAndCatchesNPlusOne) {
  History h;
  for (int c = 0; c < 3; ++c) op(h, c, "acquire", 0, 10 + c, Outcome::Ok, "", 5 + c);
  auto b = beliefs(h, "acquire", "release");
  EXPECT_TRUE(check_at_most(b, 3, "semaphore").empty());
  EXPECT_EQ(check_at_most(b, 2, "semaphore").size(), 1u);
}

TEST(ReadWriteChecker, ReadersShareWritersDoNot) {
  History ok_h;
  op(ok_h, 0, "acquire-read", 0, 5);
  op(ok_h, 1, "acquire-read", 0, 6);
  op(ok_h, 0, "release-read", 10, 11);
  op(ok_h, 1, "release-read", 10, 11);
  op(ok_h, 2, "acquire-write", 1, 12);
  EXPECT_TRUE(check_read_write(beliefs(ok_h, "acquire-read", "release-read"),
                               beliefs(ok_h, "acquire-write", "release-write")).empty());
  History bad;
  op(bad, 0, "acquire-read", 0, 5);
  op(bad, 2, "acquire-write", 1, 6);
  auto v = check_read_write(beliefs(bad, "acquire-read", "release-read"),
                            beliefs(bad, "acquire-write", "release-write"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].clients, (std::vector<int>{2, 0}));
}

TEST(ReadWriteChecker, TwoWritersAreOneViolation) {
  History bad;
  op(bad, 0, "acquire-write", 0, 5);
  op(bad, 1, "acquire-write", 0, 6);
  EXPECT_EQ(check_read_write({}, beliefs(bad, "acquire-write", "release-write")).size(), 1u);
}

TEST(ReadWriteChecker, OwnReadUnderOwnWriteIsADowngrade) {
  History h;
  op(h, 0, "acquire-write", 0, 5);
  op(h, 0, "acquire-read", 6, 7);
  op(h, 0, "release-write", 8, 9);
  EXPECT_TRUE(check_read_write(beliefs(h, "acquire-read", "release-read"),
                               beliefs(h, "acquire-write", "release-write")).empty());
}

TEST(FifoChecker, GrantsInFenceOrderPass) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "", 5);
  op(h, 1, "acquire", 1, 20, Outcome::Ok, "", 7);
  op(h, 0, "acquire", 21, 21, Outcome::Ok, "", 5);  // reentrant: same fence again
  op(h, 2, "acquire", 2, 30, Outcome::Ok, "", 9);
  EXPECT_TRUE(check_fifo_grants(h, "acquire").empty());
}

TEST(FifoChecker, AnOlderContenderGrantedLaterFails) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "", 7);
  op(h, 1, "acquire", 1, 20, Outcome::Ok, "", 5);
  auto v = check_fifo_grants(h, "acquire");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "fifo");
}

TEST(FifoChecker, AGrantInsideItsClientsExcusedWindowIsLeftOut) {
  History h;
  op(h, 0, "acquire", 0, 10, Outcome::Ok, "", 7);
  op(h, 1, "acquire", 1, 20, Outcome::Ok, "", 5);  // its session had expired: it could not know
  EXPECT_TRUE(check_fifo_grants(h, "acquire", {Window{1, 8, 21}}).empty());
  EXPECT_EQ(check_fifo_grants(h, "acquire", {Window{2, 8, 21}}).size(), 1u);
  EXPECT_EQ(check_fifo_grants(h, "acquire", {Window{1, 8, 20}}).size(), 1u);
}

TEST(LivenessChecker, PendingWaitersAreReported) {
  History h;
  op(h, 0, "acquire", 0, 10);
  h.invoke(1, "acquire", 5);
  h.invoke(2, "release", 5);
  auto v = check_no_pending(h, {"acquire"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_TRUE(check_no_pending(History{}, {"acquire"}).empty());
}

TEST(LivenessChecker, ACrashedClientsCallsDoNotCount) {
  History h;
  h.invoke(1, "acquire", 5);
  h.note(1, 9, "crashed");
  EXPECT_TRUE(check_no_pending(h, {"acquire"}).empty());
}

TEST(ProgressChecker, EveryAcquireWithoutTimeoutThatEndedEndedOk) {
  History h;
  op(h, 0, "acquire", 0, 10);
  op(h, 0, "release", 20, 21);
  op(h, 1, "release", 30, 31, Outcome::Fail);  // not an acquire
  h.invoke(2, "acquire", 40);                   // pending: liveness's to judge
  EXPECT_TRUE(check_all_ok(h, {"acquire"}).empty());

  op(h, 1, "acquire", 5, 6, Outcome::Fail);
  op(h, 3, "acquire", 7, 9, Outcome::Info);
  auto v = check_all_ok(h, {"acquire"});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].property, "progress");
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_EQ(v[0].time, 6);
  EXPECT_EQ(v[1].clients, std::vector<int>{3});
}

TEST(LeaderNamedChecker, ALeaderThatAsksWhoLeadsIsNamed) {
  History h;
  op(h, 2, "leader", 10, 12, Outcome::Ok, "c2");
  op(h, 1, "leader", 20, 22, Outcome::Fail);  // not answered: not judged
  op(h, 3, "acquire", 30, 31, Outcome::Ok, "c1");  // another call's value
  EXPECT_TRUE(check_leader_named(h).empty());

  op(h, 0, "leader", 40, 42, Outcome::Ok, "c3");
  auto v = check_leader_named(h);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "one-leader");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
  EXPECT_EQ(v[0].time, 42);
}

TEST(ProgressChecker, NoTakeWaitsWhileAnItemNobodyTookIsQueued) {
  History h;
  op(h, 1, "take", 0, 3000, Outcome::Ok, "a");  // waited on an empty queue
  op(h, 0, "put", 2990, 2995, Outcome::Ok, "a");
  op(h, 0, "put", 3000, 3001, Outcome::Ok, "b");
  op(h, 2, "take", 100, 3500, Outcome::Ok, "c");  // "b" went to client 3 at once
  op(h, 3, "take", 3002, 3004, Outcome::Ok, "b");
  op(h, 0, "put", 3300, 3301, Outcome::Ok, "c");
  op(h, 1, "take", 3010, 3100, Outcome::Fail);  // timed out, too soon to tell
  EXPECT_TRUE(check_prompt_takes(h, 1000).empty());

  History late;
  op(late, 0, "put", 10, 12, Outcome::Ok, "a");
  op(late, 1, "take", 0, 4000, Outcome::Ok, "a");  // woken only by its timeout
  op(late, 2, "take", 100, 4100, Outcome::Fail);   // "a" was free till t=4000
  auto v = check_prompt_takes(late, 1000);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].property, "progress");
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_EQ(v[0].time, 1012);
  EXPECT_EQ(v[1].clients, std::vector<int>{2});
  EXPECT_EQ(v[1].time, 1100);
}

TEST(ProgressChecker, AnItemGivenBackIsFreeToTakeAgain) {
  History h;
  op(h, 0, "put", 0, 2, Outcome::Ok, "a");
  op(h, 1, "take", 5, 10, Outcome::Ok, "a");
  op(h, 2, "take", 20, 620, Outcome::Ok, "a");  // waited while 1 held "a", then at once
  op(h, 1, "release", 600, 610, Outcome::Ok, "a");
  op(h, 2, "ack", 630, 640, Outcome::Ok, "a");
  EXPECT_TRUE(check_prompt_takes(h, 1000).empty());

  History late;
  op(late, 0, "put", 0, 2, Outcome::Ok, "a");
  op(late, 1, "take", 5, 10, Outcome::Ok, "a");
  op(late, 2, "take", 20, 4620, Outcome::Ok, "a");  // not woken when "a" came back
  op(late, 1, "release", 600, 610, Outcome::Ok, "a");
  auto v = check_prompt_takes(late, 1000);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "progress");
  EXPECT_EQ(v[0].clients, std::vector<int>{2});
  EXPECT_EQ(v[0].time, 1610);
  EXPECT_NE(v[0].message.find("given back at t=610"), std::string::npos) << v[0].message;
}

TEST(ProgressChecker, TheFirstEnterToFailEndsBeforeAllMembersArrivedLongAgo) {
  History h;
  op(h, 0, "enter", 0, 4000, Outcome::Fail, "r0");  // member 2 came late
  op(h, 1, "enter", 1, 4001, Outcome::Fail, "r0");
  op(h, 2, "enter", 3500, 4100, Outcome::Fail, "r0");
  for (int c = 0; c < 3; ++c) op(h, c, "enter", 5000 + c, 5010, Outcome::Ok, "r1");
  op(h, 0, "enter", 6000, 6010, Outcome::Fail, "r2");  // one of three: nobody to wait for
  EXPECT_TRUE(check_prompt_enters(h, 3, 1000).empty());

  History stuck;
  for (int c = 0; c < 3; ++c) op(stuck, c, "enter", c, 4000 + c, Outcome::Fail, "r0");
  auto v = check_prompt_enters(stuck, 3, 1000);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "progress");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
  EXPECT_EQ(v[0].time, 4000);
}

TEST(HoldsAfterLossChecker, ARecipeThatToldLostSaysHoldsOnlyAfterANewAcquire) {
  History h;
  op(h, 0, "acquire", 0, 10);
  h.note(0, 15, "holds");  // before any loss
  h.note(0, 20, "lost");
  op(h, 0, "release", 30, 31);
  op(h, 0, "acquire", 40, 50);  // granted anew (a new session)
  h.note(0, 60, "holds");
  h.note(1, 70, "lost");
  h.note(2, 75, "holds");  // another client's loss says nothing of it
  EXPECT_TRUE(check_holds_after_loss(h, {"acquire"}).empty());

  h.note(1, 80, "holds");
  h.note(1, 90, "holds");  // the same loss: reported once
  auto v = check_holds_after_loss(h, {"acquire"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "holds-after-loss");
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_EQ(v[0].time, 80);

  History same_instant;  // the listener asks at the instant it tells
  op(same_instant, 0, "acquire", 0, 10);
  same_instant.note(0, 20, "lost");
  same_instant.note(0, 20, "holds");
  EXPECT_EQ(check_holds_after_loss(same_instant, {"acquire"}).size(), 1u);
}

// An acquire that was waiting when its client was told "lost" and returned
// a grant afterwards (in a new session) began a new hold.
TEST(HoldsAfterLossChecker, AGrantReturnedAfterTheLossIsANewHold) {
  History h;
  auto waiting = h.invoke(0, "acquire", 0);
  h.note(0, 20, "lost");
  h.ok(waiting, 50, "/l/b", 6);
  h.note(0, 60, "holds");
  EXPECT_TRUE(check_holds_after_loss(h, {"acquire"}).empty());

  History failed;  // a failed acquire grants nothing
  auto refused = failed.invoke(0, "acquire", 0);
  failed.note(0, 20, "lost");
  failed.fail(refused, 50, Error::SessionExpired);
  failed.note(0, 60, "holds");
  EXPECT_EQ(check_holds_after_loss(failed, {"acquire"}).size(), 1u);
}

// An acquire failing with SessionExpired, at [from, to].
void expired_acquire(History& h, int client, const std::string& f, TimeMs from, TimeMs to) {
  h.fail(h.invoke(client, f, from), to, Error::SessionExpired);
}

TEST(HonestExpiryChecker, SessionExpiredNeedsAnExpirySinceTheClientLastHeldNothing) {
  History h;
  op(h, 0, "acquire", 0, 10);
  h.note(0, 20, "lost");
  expired_acquire(h, 0, "acquire", 25, 25);  // nested, in the hold that was lost at 18: true
  op(h, 0, "release", 30, 31);               // a lost hold ends with one release
  expired_acquire(h, 1, "acquire", 40, 70);  // c1's session expired during it
  const std::map<int, std::vector<TimeMs>> expiries{{0, {18}}, {1, {55}}};
  EXPECT_TRUE(check_honest_expiry(h, expiries).empty());

  expired_acquire(h, 0, "acquire", 40, 40);  // nothing held since 31, no expiry since
  auto v = check_honest_expiry(h, expiries);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "honest-expiry");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
  EXPECT_EQ(v[0].time, 40);
}

TEST(HonestExpiryChecker, AnAcquireWhoseSessionExpiredDuringItDoesNotFailWithNoNode) {
  History h;
  h.fail(h.invoke(0, "acquire", 10), 50, Error::NoNode);  // no expiry: another deleted its node
  EXPECT_TRUE(check_honest_expiry(h, {{0, {5, 60}}}).empty());
  h.fail(h.invoke(1, "acquire", 10), 50, Error::NoNode);
  auto v = check_honest_expiry(h, {{1, {30}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "honest-expiry");
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_EQ(v[0].time, 50);
}

TEST(HonestExpiryChecker, ANestedHoldEndsWithItsLastReleaseUnlessItWasLost) {
  History nested;
  op(nested, 0, "acquire", 0, 10);
  op(nested, 0, "acquire", 11, 12);
  op(nested, 0, "release", 20, 21);          // still held once
  expired_acquire(nested, 0, "acquire", 30, 30);
  EXPECT_TRUE(check_honest_expiry(nested, {{0, {25}}}).empty());  // the hold began before the expiry

  History sides;  // a read/write lock's sides end apart
  op(sides, 0, "acquire-write", 0, 10);
  op(sides, 0, "acquire-read", 11, 12);
  sides.note(0, 15, "lost");
  op(sides, 0, "release-write", 20, 21);
  expired_acquire(sides, 0, "acquire-write", 30, 30);  // the read side is still held
  EXPECT_TRUE(check_honest_expiry(sides, {{0, {14}}}).empty());
  op(sides, 0, "release-read", 40, 41);
  expired_acquire(sides, 0, "acquire-read", 50, 50);
  EXPECT_EQ(check_honest_expiry(sides, {{0, {14}}}).size(), 1u);
}

TEST(WakeupCount, AWakeUpWithoutProgressIsOneAfterWhichTheCallWaitedAgainOrFailed) {
  History h;
  op(h, 0, "acquire", 0, 50);                          // woken at 40, granted: progress
  op(h, 1, "acquire", 0, 100);                         // woken at 40 and 90: the first re-waited
  op(h, 2, "take", 0, 200, Outcome::Fail);             // woken at 60, then timed out
  op(h, 3, "acquire", 0, 10);                          // woken at 30, in no call: not a wake-up
  h.invoke(0, "acquire", 300);                         // woken at 310, never ended
  const std::vector<Delivery> d{{0, 40}, {1, 40}, {3, 30}, {2, 60}, {1, 90}, {0, 310}};
  const WakeupTally t = count_wakeups(h, d);
  EXPECT_EQ(t.wakeups, 5);
  EXPECT_EQ(t.without_progress, 3);

  History granted;
  op(granted, 0, "acquire", 0, 50);
  EXPECT_EQ(count_wakeups(granted, {{0, 40}}).without_progress, 0);
  EXPECT_EQ(count_wakeups(granted, {}).wakeups, 0);
}

TEST(ProgressChecker, EveryWakeUpOfAWaiterWhoseTurnCameIsFollowedByItsGrant) {
  History h;
  op(h, 1, "acquire", 0, 50);   // woken at 40 by its predecessor's release
  op(h, 2, "acquire", 0, 90);   // woken at 85
  op(h, 1, "release", 60, 61);  // a watch event outside any wait is no wake-up
  EXPECT_TRUE(check_wakeups_progress(h, {{1, 40}, {2, 85}, {1, 70}}).empty());

  // Woken at 40 and 60, it waited again and was granted only after the
  // next one: the first such wake-up stands for the client.
  auto v = check_wakeups_progress(h, {{2, 40}, {2, 60}, {2, 85}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "progress");
  EXPECT_EQ(v[0].clients, std::vector<int>{2});
  EXPECT_EQ(v[0].time, 40);
}

TEST(FencedCounterChecker, LostUpdatesFail) {
  EXPECT_TRUE(check_fenced_counter(4, 4).empty());
  EXPECT_EQ(check_fenced_counter(5, 4).size(), 1u);
}

TEST(HerdChecker, OneWakeUpPerReleaseIsAllowed) {
  EXPECT_TRUE(check_herd(Wakeups{1, 30, "/l/a", {2}}, 1).empty());
  EXPECT_TRUE(check_herd(Wakeups{}, 1).empty());
}

TEST(HerdChecker, AReleaseWakingSeveralFailsNamingThemAndWhen) {
  auto v = check_herd(Wakeups{3, 42, "/l/a", {1, 2, 3}}, 1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "herd-effect");
  EXPECT_EQ(v[0].time, 42);
  EXPECT_EQ(v[0].clients, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(v[0].message.find("/l/a"), std::string::npos);
}

// A herd finding names why each woken client watched: waiting in an
// acquire, or a watch an acquire that was over had left behind.
TEST(HerdChecker, EachWokenClientsWatchIsTracedToTheAcquireThatSetIt) {
  Trace t;
  auto read = [&](TimeMs at, int client, const std::string& path) {
    t.add(TraceEvent{.time = at, .kind = TraceKind::Request, .client = client,
                     .code = request_kind<GetDataRequest>, .path = path});
  };
  read(5, 1, "/l/a");
  read(12, 2, "/l/b");  // another path: not what woke it
  read(14, 2, "/l/a");
  History h;
  op(h, 1, "acquire", 0, 8, Outcome::Fail);  // timed out, its watch left
  h.invoke(2, "acquire", 10);                // still waiting
  Wakeups w{2, 20, "/l/a", {1, 2}};
  w.causes = wakeup_causes(w, t, h);
  EXPECT_EQ(w.causes, (std::vector<std::string>{
                          "c1 by a watch its acquire of t=0 set at t=5 and left when it ended ZOPERATIONTIMEOUT at t=8",
                          "c2 waiting in its acquire of t=10 (watch set at t=14)"}));
  auto v = check_herd(w, 1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("at most 1 allowed): c1 by a watch its acquire"), std::string::npos) << v[0].message;
}

TEST(SharedHerdChecker, AWriterReleaseWakingEveryReaderIsFine) {
  EXPECT_TRUE(check_shared_herd({SharedWakeups{10, "/rw/write-1", false, {}, {1, 2, 4, 5}}}).empty());
}

TEST(SharedHerdChecker, AWriterWokenByItsPredecessorReaderIsFine) {
  // Even while an older reader still holds: one watch cannot wait for the
  // last of several readers.
  EXPECT_TRUE(check_shared_herd({SharedWakeups{10, "/rw/read-2", true, {3}, {}}}).empty());
  EXPECT_TRUE(check_shared_herd({}).empty());
}

TEST(SharedHerdChecker, AChangeWakingTwoWritersFails) {
  auto v = check_shared_herd({SharedWakeups{5, "/rw/read-1", true, {}, {}},
                              SharedWakeups{20, "/rw/write-1", false, {0, 3}, {1}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "herd-effect");
  EXPECT_EQ(v[0].time, 20);
  EXPECT_EQ(v[0].clients, (std::vector<int>{0, 3}));
  EXPECT_NE(v[0].message.find("woke 2 writers"), std::string::npos) << v[0].message;
}

TEST(SharedHerdChecker, AReadersChangeWakingAReaderFails) {
  auto v = check_shared_herd({SharedWakeups{7, "/rw/read-1", true, {}, {2}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].clients, (std::vector<int>{2}));
  EXPECT_NE(v[0].message.find("wait only for writers"), std::string::npos) << v[0].message;
}

TEST(QueueChecker, DeliveredOnceInOrderPasses) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 0, "put", 6, 10, Outcome::Ok, "b");
  op(h, 1, "take", 11, 15, Outcome::Ok, "a");
  op(h, 1, "take", 16, 20, Outcome::Ok, "b");
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtMostOnce).empty());
}

TEST(QueueChecker, DuplicatesLossAndReorderFail) {
  History dup;
  op(dup, 0, "put", 0, 5, Outcome::Ok, "a");
  op(dup, 1, "take", 6, 8, Outcome::Ok, "a");
  op(dup, 2, "take", 6, 9, Outcome::Ok, "a");
  EXPECT_EQ(check_queue(dup, {}, QueueDelivery::AtMostOnce).front().property, "queue-no-duplicates");
  EXPECT_TRUE(check_queue(dup, {}, QueueDelivery::AtLeastOnce).empty());  // at-least-once allows it

  History lost;
  op(lost, 0, "put", 0, 5, Outcome::Ok, "a");
  EXPECT_EQ(check_queue(lost, {}, QueueDelivery::AtMostOnce).front().property, "queue-no-loss");
  EXPECT_TRUE(check_queue(lost, {"a"}, QueueDelivery::AtMostOnce).empty());  // still queued

  History reordered;
  op(reordered, 0, "put", 0, 5, Outcome::Ok, "a");
  op(reordered, 0, "put", 6, 10, Outcome::Ok, "b");
  op(reordered, 1, "take", 11, 15, Outcome::Ok, "b");
  auto v = check_queue(reordered, {"a"}, QueueDelivery::AtMostOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
}

TEST(QueueChecker, AnItemWhoseTakeEndedInInfoMayBeGone) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 1, "take", 6, 8, Outcome::Info, "a");
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtMostOnce).empty());
}

// A take without an answer may have removed an item for good: at most
// once that is the recipe's stated delivery, counted and not judged;
// exactly once (what a queue states by default) it is a loss.
TEST(QueueChecker, AnItemATakeRemovedUnseenIsLostUnlessTheRecipeIsAtMostOnce) {
  History named;
  op(named, 0, "put", 0, 5, Outcome::Ok, "a");
  op(named, 1, "take", 6, 8, Outcome::Info, "a");
  History unnamed;
  op(unnamed, 0, "put", 0, 5, Outcome::Ok, "b");
  unnamed.invoke(1, "take", 6);  // never ends: its client crashed
  for (const History* h : {&named, &unnamed}) {
    int lost = -1;
    EXPECT_TRUE(check_queue(*h, {}, QueueDelivery::AtMostOnce, {}, &lost).empty());
    EXPECT_EQ(lost, 1);
    auto v = check_queue(*h, {}, QueueDelivery::ExactlyOnce, {}, &lost);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].property, "queue-no-loss");
    EXPECT_NE(v[0].message.find("does not state at-most-once delivery"), std::string::npos) << v[0].message;
    EXPECT_EQ(lost, 0);
  }
  // Taken after all, or still queued: nothing lost in transit.
  int lost = -1;
  op(named, 2, "take", 9, 12, Outcome::Ok, "a");
  EXPECT_TRUE(check_queue(named, {}, QueueDelivery::AtMostOnce, {}, &lost).empty());
  EXPECT_EQ(lost, 0);
  EXPECT_TRUE(check_queue(unnamed, {"b"}, QueueDelivery::ExactlyOnce, {}, &lost).empty());
  EXPECT_EQ(lost, 0);
}

TEST(QueueChecker, AnItemPutByAClientThatCrashedMidPutIsNoPhantom) {
  History h;
  h.invoke(0, "put", 0, "a");  // never ends: its client crashed
  op(h, 1, "take", 6, 8, Outcome::Ok, "a");
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtMostOnce).empty());
  History failed;
  op(failed, 0, "put", 0, 5, Outcome::Fail, "a");  // did not happen
  op(failed, 1, "take", 6, 8, Outcome::Ok, "a");
  auto v = check_queue(failed, {}, QueueDelivery::AtMostOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-no-phantoms");
  EXPECT_EQ(check_queue(failed, {"a"}, QueueDelivery::AtLeastOnce).front().property, "queue-no-phantoms");  // queued, never put
}

TEST(QueueChecker, TakenAndStillQueuedOrQueuedTwiceAreDuplicatesAtMostOnce) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 1, "take", 6, 8, Outcome::Ok, "a");
  EXPECT_EQ(check_queue(h, {"a"}, QueueDelivery::AtMostOnce).front().property, "queue-no-duplicates");
  EXPECT_TRUE(check_queue(h, {"a"}, QueueDelivery::AtLeastOnce).empty());  // at least once: on its way back
  History twice;
  op(twice, 0, "put", 0, 5, Outcome::Info, "b");
  EXPECT_EQ(check_queue(twice, {"b", "b"}, QueueDelivery::AtMostOnce).front().property, "queue-no-duplicates");
  EXPECT_TRUE(check_queue(twice, {"b"}, QueueDelivery::AtMostOnce).empty());
}

TEST(QueueChecker, AtMostOnceATakeThatNeverEndedMayHaveRemovedOneItem) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 0, "put", 6, 10, Outcome::Ok, "b");
  h.invoke(1, "take", 11);  // its client crashed: it may have removed a
  op(h, 2, "take", 12, 15, Outcome::Ok, "b");
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtMostOnce).empty());  // a: lost with the take, and not skipped
  // One unresolved take covers one item, not two.
  History two;
  op(two, 0, "put", 0, 5, Outcome::Ok, "a");
  op(two, 0, "put", 6, 8, Outcome::Ok, "c");
  op(two, 0, "put", 9, 10, Outcome::Ok, "b");
  two.invoke(1, "take", 11);
  op(two, 2, "take", 12, 15, Outcome::Ok, "b");
  auto v = check_queue(two, {}, QueueDelivery::AtMostOnce);
  ASSERT_EQ(v.size(), 3u);  // a and c missing, and b taken while one of them was queued
  EXPECT_EQ(v[0].property, "queue-no-loss");
  EXPECT_EQ(v[2].property, "queue-fifo");
  // A take ending in info with no item named counts the same way.
  History info;
  op(info, 0, "put", 0, 5, Outcome::Ok, "a");
  op(info, 1, "take", 6, 8, Outcome::Info);
  EXPECT_TRUE(check_queue(info, {}, QueueDelivery::AtMostOnce).empty());
}

// Found by a varied campaign with Curator clients: c1's take claimed a, c1
// was paused past its session and the server expired it (the claim went
// with it), and the take, carried on in the client's new session, ended ok
// with c. While a was claimed, c2 rightly took b. Without the expiry, the
// same history takes b out of order.
TEST(QueueChecker, AtLeastOnceAnOkTakeWhoseSessionExpiredMayHaveHeldAnotherItemUntilThen) {
  History h;
  op(h, 0, "put", 0, 1, Outcome::Ok, "a");
  op(h, 0, "put", 2, 3, Outcome::Ok, "b");
  op(h, 1, "take", 5, 3000, Outcome::Ok, "c");
  op(h, 2, "take", 10, 12, Outcome::Ok, "b");
  op(h, 0, "put", 2500, 2600, Outcome::Ok, "c");
  op(h, 2, "take", 2900, 2950, Outcome::Ok, "a");
  History expired = h;
  expired.note(1, 2000, "expired");
  EXPECT_TRUE(check_queue(expired, {}, QueueDelivery::AtLeastOnce).empty());
  auto v = check_queue(h, {}, QueueDelivery::AtLeastOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
  // It held one item at most, and only until the expiry: b taken after it
  // is out of order again.
  History later = h;
  later.note(1, 8, "expired");
  EXPECT_EQ(check_queue(later, {}, QueueDelivery::AtLeastOnce).size(), 1u);
}

// Found by the matrix with c, curator and kazoo clients under blip-all: c1
// (Curator) claimed a, then its library declared the session lost and its
// take failed with SessionExpired, in a new session that could not delete
// the old session's claim; the server expired that session only later
// (late, as it does with such clients). Until then c2 rightly took b.
TEST(QueueChecker, AtLeastOnceATakeThatFailedWithSessionExpiredMayHoldAnItemUntilTheServerExpiresItsSession) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 0, "put", 6, 10, Outcome::Ok, "b");
  auto lost = h.invoke(1, "take", 11);
  h.fail(lost, 2067, Error::SessionExpired);
  op(h, 2, "take", 2834, 2846, Outcome::Ok, "b");
  op(h, 1, "take", 3201, 3209, Outcome::Ok, "a");
  History late = h;
  late.note(1, 3200, "expired");
  EXPECT_TRUE(check_queue(late, {}, QueueDelivery::AtLeastOnce).empty());
  // Expired on the server before the take failed (a C client hears of it
  // no sooner): the claim was gone by 2067, and b was taken out of order.
  History early = h;
  early.note(1, 2000, "expired");
  auto v = check_queue(early, {}, QueueDelivery::AtLeastOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
  // A take that failed otherwise deleted its claim before it ended.
  History timed_out;
  op(timed_out, 0, "put", 0, 5, Outcome::Ok, "a");
  op(timed_out, 0, "put", 6, 10, Outcome::Ok, "b");
  op(timed_out, 1, "take", 11, 2067, Outcome::Fail);
  timed_out.note(1, 3200, "expired");
  op(timed_out, 2, "take", 2834, 2846, Outcome::Ok, "b");
  op(timed_out, 1, "take", 3201, 3209, Outcome::Ok, "a");
  EXPECT_EQ(check_queue(timed_out, {}, QueueDelivery::AtLeastOnce).size(), 1u);
}

// Found by scripts/false_alarms.sh (locking-queue, seed 74243): c1's
// library opened a second session after the first, and the second expired
// on the server (at 2100) before the first (at 3200), in which c1 had
// claimed a. The claim stood until 3200: the last expiry of a session c1
// had while its take ran (it began before c1's first session was up).
TEST(QueueChecker, AtLeastOnceAFailedTakesClaimStandsUntilItsSessionsExpire) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 0, "put", 6, 10, Outcome::Ok, "b");
  h.fail(h.invoke(1, "take", 11), 2067, Error::SessionExpired);
  h.note(1, 2100, "expired");
  h.note(1, 3200, "expired");
  op(h, 2, "take", 2834, 2846, Outcome::Ok, "b");
  op(h, 1, "take", 3201, 3209, Outcome::Ok, "a");
  const SessionSpans sessions{{1, {SessionSpan{12, 3200}, SessionSpan{2068, 2100}, SessionSpan{2110}}}};
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtLeastOnce, sessions).empty());
  // Without the sessions: the first expiry after the take began.
  auto v = check_queue(h, {}, QueueDelivery::AtLeastOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
  // Every session c1 had while its take ran expired before b was taken:
  // b was out of order. (A session first used after the take ended holds
  // no claim of it.)
  const SessionSpans early{{1, {SessionSpan{12, 2100}, SessionSpan{2068, 2500}, SessionSpan{2110, 3200}}}};
  EXPECT_EQ(check_queue(h, {}, QueueDelivery::AtLeastOnce, early).size(), 1u);
}

// Found by scripts/false_alarms.sh (locking-queue, seed 320758): c1's
// claim of a was made but its reply lost; its library then opened a new
// session, and the same take went on there and took b, passing a, whose
// claim in the old session stood until the server expired it at 2200.
TEST(QueueChecker, AtLeastOnceATakeThatLeftASessionMayHaveLeftAClaimThereOnAnOlderItem) {
  History h;
  op(h, 0, "put", 0, 5, Outcome::Ok, "a");
  op(h, 0, "put", 6, 10, Outcome::Ok, "b");
  op(h, 1, "take", 11, 2056, Outcome::Ok, "b");
  h.note(1, 2200, "expired");
  op(h, 2, "take", 2300, 2310, Outcome::Ok, "a");
  const SessionSpans sessions{{1, {SessionSpan{3, 2200}, SessionSpan{2048}}}};
  EXPECT_TRUE(check_queue(h, {}, QueueDelivery::AtLeastOnce, sessions).empty());
  // Without the sessions nothing says the take left one: b was out of order.
  auto v = check_queue(h, {}, QueueDelivery::AtLeastOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
  // The old session expired before the take ended: its claim was gone.
  const SessionSpans gone{{1, {SessionSpan{3, 40}, SessionSpan{2048}}}};
  EXPECT_EQ(check_queue(h, {}, QueueDelivery::AtLeastOnce, gone).size(), 1u);
}

TEST(QueueChecker, AtLeastOnceNothingExcusesALossAndAClaimCountsForTakesItOverlaps) {
  History lost;
  op(lost, 0, "put", 0, 5, Outcome::Ok, "a");
  op(lost, 1, "take", 6, 8, Outcome::Info);
  EXPECT_EQ(check_queue(lost, {}, QueueDelivery::AtLeastOnce).front().property, "queue-no-loss");

  // c1's take claimed a and failed; while it ran, c2 rightly took b.
  History held;
  op(held, 0, "put", 0, 5, Outcome::Ok, "a");
  op(held, 0, "put", 6, 10, Outcome::Ok, "b");
  op(held, 1, "take", 11, 30, Outcome::Fail);
  op(held, 2, "take", 12, 15, Outcome::Ok, "b");
  EXPECT_TRUE(check_queue(held, {"a"}, QueueDelivery::AtLeastOnce).empty());
  // c2's take began while c1's claim stood and ended after it was gone:
  // it may have read the claims while a was held (found by a swarm
  // campaign: c1's session expired after c2 had passed a by).
  History overlapping;
  op(overlapping, 0, "put", 0, 5, Outcome::Ok, "a");
  op(overlapping, 0, "put", 6, 10, Outcome::Ok, "b");
  op(overlapping, 1, "take", 11, 94, Outcome::Fail);
  op(overlapping, 2, "take", 0, 136, Outcome::Ok, "b");
  EXPECT_TRUE(check_queue(overlapping, {"a"}, QueueDelivery::AtLeastOnce).empty());
  // c2's take began after c1's had ended: a was free all along it, and
  // taking b is out of order.
  History freed;
  op(freed, 0, "put", 0, 5, Outcome::Ok, "a");
  op(freed, 0, "put", 6, 10, Outcome::Ok, "b");
  op(freed, 1, "take", 11, 13, Outcome::Fail);
  op(freed, 2, "take", 14, 15, Outcome::Ok, "b");
  auto v = check_queue(freed, {"a"}, QueueDelivery::AtLeastOnce);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "queue-fifo");
  // A redelivered item was taken first in order; its second delivery is no reorder.
  History again;
  op(again, 0, "put", 0, 5, Outcome::Ok, "a");
  op(again, 0, "put", 6, 10, Outcome::Ok, "b");
  op(again, 1, "take", 11, 12, Outcome::Ok, "a");  // then c1 died before its ack
  op(again, 2, "take", 13, 15, Outcome::Ok, "b");
  op(again, 2, "take", 16, 20, Outcome::Ok, "a");
  EXPECT_TRUE(check_queue(again, {}, QueueDelivery::AtLeastOnce).empty());
}

TEST(ClaimExclusionChecker, AnItemIsHeldByOneConsumerAtATime) {
  History h;
  op(h, 1, "take", 0, 10, Outcome::Ok, "a");
  op(h, 1, "ack", 20, 30, Outcome::Fail, "a");   // held until the ack was invoked
  op(h, 2, "take", 15, 25, Outcome::Ok, "a");    // granted again once 1 let go
  op(h, 2, "ack", 40, 41, Outcome::Ok, "a");
  op(h, 3, "take", 0, 12, Outcome::Ok, "b");
  op(h, 3, "take", 50, 60, Outcome::Fail);        // a failed take holds nothing
  op(h, 4, "take", 70, 71, Outcome::Ok, "c");
  op(h, 5, "take", 80, 90, Outcome::Ok, "c");    // 4's session expired at 75: its claim went
  op(h, 6, "take", 70, 72, Outcome::Ok, "d");
  h.note(6, 76, "crashed");
  op(h, 7, "take", 80, 91, Outcome::Ok, "d");    // 6 crashed (and its session expired later)
  op(h, 8, "take", 100, 110, Outcome::Ok, "e");  // its session expired at 105, before the reply came
  op(h, 9, "take", 106, 108, Outcome::Ok, "e");
  op(h, 10, "take", 120, 121, Outcome::Ok, "f");
  op(h, 10, "release", 130, 131, Outcome::Ok, "f");  // given back: held until the release was invoked
  op(h, 11, "take", 125, 130, Outcome::Ok, "f");
  const std::map<int, std::vector<TimeMs>> expired{{4, {75}}, {6, {79}}, {8, {105}}};
  EXPECT_TRUE(check_exclusive_claims(h, expired).empty());

  op(h, 1, "take", 35, 38, Outcome::Ok, "a");    // while 2 still holds it
  op(h, 2, "take", 45, 46, Outcome::Ok, "b");    // 3 never acked "b"
  EXPECT_EQ(check_exclusive_claims(h, {{4, {75}}, {6, {79}}, {8, {105}}, {3, {20}}}).size(), 1u);  // 3's expiry came before
  auto v = check_exclusive_claims(h, expired);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].property, "claim-exclusion");
  EXPECT_EQ(v[0].clients, (std::vector<int>{1, 2}));
  EXPECT_EQ(v[0].time, 38);
  EXPECT_EQ(v[1].clients, (std::vector<int>{2, 3}));
  EXPECT_EQ(v[1].time, 46);
}

TEST(DoubleBarrierChecker, NobodyPassesEarly) {
  History ok_h;
  for (int c = 0; c < 3; ++c) op(ok_h, c, "enter", c, 10);
  for (int c = 0; c < 3; ++c) op(ok_h, c, "leave", 20 + c, 30);
  EXPECT_TRUE(check_double_barrier(ok_h, 3).empty());

  History early;
  op(early, 0, "enter", 0, 1);  // passed with one of three
  op(early, 1, "enter", 5, 10);
  op(early, 2, "enter", 6, 10);
  op(early, 0, "leave", 20, 21);  // left before the others began leaving
  op(early, 1, "leave", 25, 30);
  op(early, 2, "leave", 26, 30);
  auto v = check_double_barrier(early, 3);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].property, "barrier-enter");
  EXPECT_EQ(v[1].property, "barrier-leave");
}

TEST(DoubleBarrierChecker, RoundsAreCheckedApart) {
  History h;
  for (int c = 0; c < 2; ++c) op(h, c, "enter", 0, 10, Outcome::Ok, "r0");
  for (int c = 0; c < 2; ++c) op(h, c, "leave", 20, 30, Outcome::Ok, "r0");
  op(h, 0, "enter", 40, 41, Outcome::Ok, "r1");  // alone in round 1
  auto v = check_double_barrier(h, 2);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "barrier-enter");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
}

TEST(DoubleBarrierChecker, AMemberWhoseSessionEndedHasLeft) {
  History h;
  for (int c = 0; c < 3; ++c) op(h, c, "enter", c, 10, Outcome::Ok, "r0");
  op(h, 0, "leave", 20, 40, Outcome::Ok, "r0");
  op(h, 1, "leave", 21, 40, Outcome::Ok, "r0");
  History expired = h;
  expired.note(2, 30, "expired");  // its node went with its session at 30
  EXPECT_TRUE(check_double_barrier(expired, 3).empty());
  History late = h;
  late.note(2, 45, "crashed");  // gone only after the others had left
  EXPECT_EQ(check_double_barrier(late, 3).size(), 2u);
  EXPECT_EQ(check_double_barrier(h, 3).size(), 2u);  // never left at all
}

TEST(BarrierChecker, NobodyPassesARaisedBarrier) {
  History ok_h;
  op(ok_h, 0, "raise", 0, 5, Outcome::Ok, "b0");
  op(ok_h, 1, "wait", 6, 20, Outcome::Ok, "b0");
  op(ok_h, 0, "lower", 15, 17, Outcome::Ok, "b0");
  op(ok_h, 2, "wait", 0, 3, Outcome::Ok, "b1");  // not raised when it began
  op(ok_h, 1, "wait", 21, 22, Outcome::Fail, "b2");  // timed out: passed nothing
  EXPECT_TRUE(check_barrier(ok_h).empty());

  History early;
  op(early, 0, "raise", 0, 5, Outcome::Ok, "b0");
  op(early, 1, "wait", 6, 10, Outcome::Ok, "b0");  // before the lower began
  op(early, 0, "lower", 15, 17, Outcome::Ok, "b0");
  op(early, 0, "lower", 1, 2, Outcome::Ok, "b1");   // another barrier's lower does not count
  auto v = check_barrier(early);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "barrier-wait");
  EXPECT_EQ(v[0].clients, std::vector<int>{1});
  EXPECT_EQ(v[0].time, 10);
}

TEST(LeakChecker, LeftoversAreNamed) {
  EXPECT_TRUE(check_no_leaks({}, 0).empty());
  auto v = check_no_leaks({"/l/_c_1-1-lock-0000000003"}, 2);
  EXPECT_EQ(v.size(), 2u);
}


// Mutual exclusion as the server's nodes say it, at each grant.
TEST(ServerExclusionChecker, PassesGrantsOfTheFirstContender) {
  std::vector<ServerGrant> g{{0, 10, "/l/a", true, 0}, {1, 30, "/l/b", true, 0}};
  EXPECT_TRUE(check_server_grants(g, 1, {}).empty());
}

TEST(ServerExclusionChecker, FailsAGrantWithAnEarlierContenderLeft) {
  std::vector<ServerGrant> g{{0, 10, "/l/a", true, 0}, {1, 12, "/l/b", true, 1}};
  auto v = check_server_grants(g, 1, {});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "server-exclusion");
  EXPECT_EQ(v[0].clients, (std::vector<int>{1}));
  EXPECT_EQ(v[0].time, 12);
}

TEST(ServerExclusionChecker, FailsAGrantOfANodeTheServerNoLongerHas) {
  std::vector<ServerGrant> g{{2, 40, "/l/c", false, 0}};
  auto v = check_server_grants(g, 1, {});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].clients, (std::vector<int>{2}));
}

TEST(ServerExclusionChecker, AllowsLimitMinusOneAheadForLeases) {
  std::vector<ServerGrant> g{{0, 10, "/s/a", true, 1}};
  EXPECT_TRUE(check_server_grants(g, 2, {}).empty());
  EXPECT_EQ(check_server_grants(g, 1, {}).size(), 1u);
}

TEST(ServerExclusionChecker, ExcusesAGrantInsideTheClientsWindowOnly) {
  std::vector<ServerGrant> g{{1, 50, "/l/b", false, 0}};
  EXPECT_TRUE(check_server_grants(g, 1, {Window{1, 40, 60}}).empty());
  EXPECT_EQ(check_server_grants(g, 1, {Window{0, 40, 60}}).size(), 1u);
  EXPECT_EQ(check_server_grants(g, 1, {Window{1, 51, 60}}).size(), 1u);
  EXPECT_EQ(check_server_grants(g, 1, {Window{1, 40, 50}}).size(), 1u);
}

}  // namespace
}  // namespace zksim::scenarios
