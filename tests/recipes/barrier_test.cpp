// The barrier (nobody passes while it is raised) and the double barrier
// (nobody leaves enter before all N entered, nor leave before all left).
#include "recipe_fixture.h"

#include "zksim/recipes/barrier.h"

#include <fmt/format.h>

namespace zksim::test {
namespace {

using recipes::Barrier;
using recipes::DoubleBarrier;

const std::string kBarrier = "/barriers/b";
const std::string kDouble = "/barriers/round";

void barrier(int members, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Client& coordinator = w.open("coordinator");
  TimeMs lowered_at = -1;
  int passed_early = 0, passed = 0;
  Signal raised;
  w.spawn(coordinator, [](Client& c, TimeMs& lowered_at, Signal raised) -> Task<> {
    Barrier b(c, kBarrier);
    EXPECT_TRUE((co_await b.raise()).ok());
    raised.set();
    co_await c.sleep(200);
    lowered_at = c.now();
    EXPECT_TRUE((co_await b.lower()).ok());
  }(coordinator, lowered_at, raised));
  std::vector<Signal> go(static_cast<std::size_t>(members));
  w.spawn(coordinator, [](std::vector<Signal>& go, Signal raised) -> Task<> {
    co_await raised.wait();
    for (Signal& s : go) s.set();
  }(go, raised));
  for (int i = 0; i < members; ++i) {
    Client& c = w.open(fmt::format("m{}", i));
    w.spawn(c, [](Client& c, Signal go, TimeMs& lowered_at, int& early, int& passed) -> Task<> {
      co_await go.wait();
      Barrier b(c, kBarrier);
      EXPECT_TRUE((co_await b.wait()).ok());
      // The delete is applied before any member can see the node gone.
      if (lowered_at < 0) ++early;
      ++passed;
    }(c, go[static_cast<std::size_t>(i)], lowered_at, passed_early, passed));
  }
  ASSERT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(passed_early, 0);
  EXPECT_EQ(passed, members);
  EXPECT_FALSE(w.server().node(kBarrier));
  EXPECT_EQ(w.server().watch_count(), 0u);
}

TEST(Barrier, OneMember) { barrier(1, 1); }
TEST(Barrier, TwoMembers) { barrier(2, 2); }
TEST(Barrier, TenMembersWaitUntilLowered) { barrier(10, 3); }
TEST(Barrier, HundredMembers) { barrier(100, 4); }

TEST(Barrier, WaitTimesOutWhileRaised) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.spawn(c, [](Client& c) -> Task<> {
    Barrier b(c, kBarrier);
    co_await b.raise();
    EXPECT_EQ((co_await b.wait(100)).error(), Error::OperationTimeout);
    co_await b.lower();  // fires the watch the timed-out wait left
    EXPECT_TRUE((co_await b.wait(100)).ok());
  }(c));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(w.server().watch_count(), 0u);
}

struct Phases {
  int entered = 0;   // returned from enter
  int leaving = 0;   // called leave
  int left = 0;      // returned from leave
  int early_enter = 0, early_leave = 0;
};

Task<> member(Client& zk, int n, Phases& p, TimeMs arrive_ms, TimeMs work_ms) {
  co_await zk.sleep(arrive_ms);
  DoubleBarrier b(zk, kDouble, n);
  auto in = co_await b.enter();
  EXPECT_TRUE(in.ok()) << error_name(in.error());
  ++p.entered;
  co_await zk.sleep(work_ms);
  ++p.leaving;
  auto out = co_await b.leave();
  EXPECT_TRUE(out.ok()) << error_name(out.error());
  if (p.leaving < n) ++p.early_leave;
  ++p.left;
}

// Checks, at each enter return, that all n had arrived.
void double_barrier(int n, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Phases p;
  int arrived = 0;
  for (int i = 0; i < n; ++i) {
    Client& c = w.open(fmt::format("m{}", i));
    TimeMs arrive = 10 * i, work = 5 * ((i * 7) % 5);
    w.spawn(c, [](Client& c, int n, Phases& p, int& arrived, TimeMs arrive, TimeMs work) -> Task<> {
      co_await c.sleep(arrive);
      ++arrived;
      DoubleBarrier b(c, kDouble, n);
      auto in = co_await b.enter();
      EXPECT_TRUE(in.ok()) << error_name(in.error());
      if (arrived < n) ++p.early_enter;
      ++p.entered;
      co_await c.sleep(work);
      ++p.leaving;
      auto out = co_await b.leave();
      EXPECT_TRUE(out.ok()) << error_name(out.error());
      if (p.leaving < n) ++p.early_leave;
      ++p.left;
    }(c, n, p, arrived, arrive, work));
  }
  ASSERT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(p.early_enter, 0);
  EXPECT_EQ(p.early_leave, 0);
  EXPECT_EQ(p.left, n);
  expect_no_leftovers(w, kDouble);
}

TEST(DoubleBarrier, OneMember) { double_barrier(1, 1); }
TEST(DoubleBarrier, TwoMembers) { double_barrier(2, 2); }
TEST(DoubleBarrier, TenMembersEnterAndLeaveTogether) { double_barrier(10, 3); }
TEST(DoubleBarrier, HundredMembers) { double_barrier(100, 4); }
TEST(DoubleBarrier, ManySeeds) {
  for (std::uint64_t seed = 10; seed < 40; ++seed) double_barrier(5, seed);
}

TEST(DoubleBarrier, EnterTimesOutWhenMembersAreMissingAndWithdraws) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.spawn(c, [](Client& c) -> Task<> {
    DoubleBarrier b(c, kDouble, 3);
    EXPECT_EQ((co_await b.enter(100)).error(), Error::OperationTimeout);
  }(c));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(w.server().children(kDouble), std::vector<std::string>{});
}

TEST(DoubleBarrier, LostCreateReplyOnEnterIsRecognised) {
  SeededDecisions d(5);
  World w({}, d);
  Phases p;
  for (int i = 0; i < 3; ++i) {
    Client& c = w.open(fmt::format("m{}", i));
    w.spawn(c, member(c, 3, p, 0, 5));
  }
  // Creates: the dir (NoNode), its parent, the dir, then the member node.
  w.schedule(on_nth(FaultKind::DropAfterApply, 1, request_kind<CreateRequest>, 4));
  ASSERT_TRUE(w.run_until_done(1'000'000));
  EXPECT_EQ(responses(w, 1, request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Response && e.client == 1 &&
        e.code == static_cast<std::int32_t>(Error::ConnectionLoss)) {
      EXPECT_TRUE(e.path.starts_with(kDouble + "/")) << "not the member node: " << e.path;
    }
  }
  EXPECT_EQ(p.left, 3);
  EXPECT_EQ(p.early_leave, 0);
  expect_no_leftovers(w, kDouble);
}

TEST(DoubleBarrier, ALostReadyCheckIsAskedAgainNotWaitedOut) {
  // The first member's watch on "ready" is lost with its request: it must
  // ask again, or it waits for an event that cannot come and times out
  // while the second member passes.
  ListDecisions d({});
  World w(quiet(), d);
  Phases p;
  std::vector<Error> entered;
  for (int i = 0; i < 2; ++i) {
    Client& c = w.open(fmt::format("m{}", i));
    w.spawn(c, [](Client& c, TimeMs arrive, std::vector<Error>& entered) -> Task<> {
      co_await c.sleep(arrive);
      DoubleBarrier b(c, kDouble, 2);
      auto in = co_await b.enter(1000);
      entered.push_back(in.error());
      if (in) co_await b.leave(1000);
    }(c, 50 * i, entered));
  }
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<ExistsRequest>, 1, kDouble + "/ready"));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<ExistsRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(entered, (std::vector<Error>{Error::Ok, Error::Ok}));
  expect_no_leftovers(w, kDouble);
}

TEST(DoubleBarrier, ReadyIsRemovedWhenTheOthersVanishInsteadOfLeaving) {
  // m0 (the lowest node) crashes inside the barrier; m1 leaves and waits
  // for m0's node, which goes when m0's session expires. Nobody was the
  // last one out, so m1, finding the round empty, removes "ready".
  ListDecisions d({});
  World w(quiet(), d);
  std::vector<Error> left;
  for (int i = 0; i < 2; ++i) {
    Client& c = w.open(fmt::format("m{}", i), 2000);
    w.spawn(c, [](Client& c, int i, std::vector<Error>& left) -> Task<> {
      DoubleBarrier b(c, kDouble, 2);
      EXPECT_TRUE((co_await b.enter()).ok());
      if (i == 0) co_await c.sleep(100'000);  // crashes before leaving
      left.push_back((co_await b.leave()).error());
    }(c, i, left));
  }
  w.schedule(at_time(FaultKind::Crash, 0, 500));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(left, std::vector<Error>{Error::Ok});
  expect_no_leftovers(w, kDouble);
}

}  // namespace
}  // namespace zksim::test
