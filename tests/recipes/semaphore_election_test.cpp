// The semaphore (at most N holders, FIFO, herd-free) and leader election
// (one leader at a time, predecessor watches, leadership tied to the session).
#include "recipe_fixture.h"

#include "zksim/recipes/election.h"
#include "zksim/recipes/semaphore.h"

#include <fmt/format.h>

namespace zksim::test {
namespace {

using recipes::HoldEvent;
using recipes::LeaderElection;
using recipes::Semaphore;

const std::string kSem = "/sem/pool";

// Nothing left in the semaphore's lock and lease directories (which stay).
void expect_no_lease_leftovers(World& w) {
  expect_no_leftovers(w, kSem + "/" + Semaphore::kLocks);
  expect_no_leftovers(w, kSem + "/" + Semaphore::kLeases);
}
const std::string kElect = "/election/svc";

// Holds of 50 ms: longer than an acquire's round trips through the internal
// lock, so that N leases are held at once.
Task<> lease_rounds(Client& zk, int leases, Critical& cs, int rounds) {
  Semaphore sem(zk, kSem, leases);
  for (int i = 0; i < rounds; ++i) {
    auto lease = co_await sem.acquire();
    EXPECT_TRUE(lease.ok()) << error_name(lease.error());
    if (!lease) co_return;
    cs.enter(0, lease->fence);
    co_await zk.sleep(50);
    cs.leave();
    EXPECT_TRUE((co_await sem.release(*lease)).ok());
  }
}

// Returns the most leases held at once.
int leases(int clients, int n, int rounds, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Critical cs;
  for (int i = 0; i < clients; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    w.spawn(c, lease_rounds(c, n, cs, rounds));
  }
  EXPECT_TRUE(w.run_until_done(10'000'000));
  EXPECT_LE(cs.max_inside, n);
  EXPECT_EQ(cs.entries, clients * rounds);
  // Herd-free: a lock release wakes its successor, a lease release the
  // lock's holder.
  EXPECT_LE(watch_events(w, EventType::NodeDeleted), clients * rounds);
  EXPECT_LE(watch_events(w, EventType::NodeChildrenChanged), clients * rounds);
  expect_no_lease_leftovers(w);
  return cs.max_inside;
}

TEST(Semaphore, OneClient) { EXPECT_EQ(leases(1, 2, 3, 1), 1); }
TEST(Semaphore, TwoClientsOneLease) { EXPECT_EQ(leases(2, 1, 5, 2), 1); }
// The leases are really shared out: N at once, never more.
TEST(Semaphore, TenClientsThreeLeases) { EXPECT_EQ(leases(10, 3, 4, 3), 3); }
TEST(Semaphore, HundredClientsFiveLeases) { EXPECT_EQ(leases(100, 5, 2, 4), 5); }
TEST(Semaphore, ManySeeds) {
  int most = 0;
  for (std::uint64_t seed = 10; seed < 40; ++seed) most = std::max(most, leases(7, 3, 3, seed));
  EXPECT_EQ(most, 3);
}

TEST(Semaphore, ExpiredHolderGivesItsLeaseUpAndIsTold) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 2000);
  Client& b = w.open("b");
  std::vector<HoldEvent> told;
  Signal a_holds;
  w.spawn(a, [](Client& c, std::vector<HoldEvent>& told, Signal holds) -> Task<> {
    Semaphore sem(c, kSem, 1, [&told](HoldEvent e) { told.push_back(e); });
    auto lease = co_await sem.acquire();
    EXPECT_TRUE(lease.ok());
    holds.set();
    co_await c.sleep(10'000);
    EXPECT_EQ(sem.held(), 0);
    EXPECT_TRUE((co_await sem.release(*lease)).ok());
  }(a, told, a_holds));
  w.spawn(b, [](Client& c, Signal a_holds) -> Task<> {
    co_await a_holds.wait();
    Semaphore sem(c, kSem, 1);
    auto lease = co_await sem.acquire();
    EXPECT_TRUE(lease.ok());
    co_await sem.release(*lease);
  }(b, a_holds));
  w.schedule(at_time(FaultKind::ExpireSession, 0, 500));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(told, (std::vector<HoldEvent>{HoldEvent::Suspended, HoldEvent::Lost}));
  expect_no_lease_leftovers(w);
}

TEST(Semaphore, LostCreateReplyDoesNotTakeTwoLeases) {
  ListDecisions d({});
  World w(quiet(), d);
  Critical cs;
  Client& a = w.open("a");
  Client& b = w.open("b");
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>, 3));
  w.spawn(a, lease_rounds(a, 2, cs, 3));
  w.spawn(b, lease_rounds(b, 2, cs, 3));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(cs.entries, 6);
  expect_no_lease_leftovers(w);
}

// Any lease freed ahead of a waiter can let it in, not only the one N
// places ahead: with leases held by a (long) and b (short), c waits, and
// gets b's lease when b releases it, not when a does.
TEST(Semaphore, ALeaseFreedByANearerHolderIsGrantedAtOnce) {
  ListDecisions d({});
  World w(quiet(), d);
  TimeMs c_granted = -1;
  auto holder = [](Client& zk, TimeMs start, TimeMs hold) -> Task<> {
    co_await zk.sleep(start);
    Semaphore sem(zk, kSem, 2);
    auto lease = co_await sem.acquire();
    EXPECT_TRUE(lease.ok());
    co_await zk.sleep(hold);
    co_await sem.release(*lease);
  };
  Client& a = w.open("a");
  Client& b = w.open("b");
  Client& c = w.open("c");
  w.spawn(a, holder(a, 0, 10'000));
  w.spawn(b, holder(b, 20, 100));
  w.spawn(c, [](Client& zk, TimeMs& granted) -> Task<> {
    co_await zk.sleep(40);
    Semaphore sem(zk, kSem, 2);
    auto lease = co_await sem.acquire();
    EXPECT_TRUE(lease.ok());
    granted = zk.now();
    co_await sem.release(*lease);
  }(c, c_granted));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_GE(c_granted, 120);
  EXPECT_LT(c_granted, 200) << "c waited for a's lease while b's stood free";
  expect_no_lease_leftovers(w);
}

struct Leaders {
  int current = 0;
  int max = 0;
  std::vector<std::string> order;
};

Task<> candidate(Client& zk, std::string id, Leaders& l, TimeMs lead_ms) {
  LeaderElection e(zk, kElect, id);
  auto won = co_await e.campaign();
  EXPECT_TRUE(won.ok()) << error_name(won.error());
  if (!won) co_return;
  l.max = std::max(l.max, ++l.current);
  l.order.push_back(id);
  auto leader = co_await e.leader();
  EXPECT_EQ(leader.ok() ? *leader : "", id);
  auto verified = co_await e.verify();
  EXPECT_TRUE(verified.ok() && *verified);
  co_await zk.sleep(lead_ms);
  --l.current;
  EXPECT_TRUE((co_await e.resign()).ok());
}

void elect(int clients, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Leaders l;
  for (int i = 0; i < clients; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    w.spawn(c, candidate(c, fmt::format("id{}", i), l, 5));
  }
  ASSERT_TRUE(w.run_until_done(10'000'000));
  EXPECT_EQ(l.max, 1);
  EXPECT_EQ(static_cast<int>(l.order.size()), clients);
  EXPECT_LE(watch_events(w, EventType::NodeDeleted), clients);
  expect_no_leftovers(w, kElect);
}

TEST(LeaderElection, OneCandidate) { elect(1, 1); }
TEST(LeaderElection, TwoCandidates) { elect(2, 2); }
TEST(LeaderElection, TenCandidatesOneLeaderAtATime) { elect(10, 3); }
TEST(LeaderElection, HundredCandidates) { elect(100, 4); }

TEST(LeaderElection, LeaderWhoseSessionExpiresStopsLeadingAndTheNextTakesOver) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 2000);
  Client& b = w.open("b");
  bool a_leads_at_end = true;
  bool a_verified_after = true;
  Signal a_leads;
  w.spawn(a, [](Client& c, bool& at_end, bool& verified, Signal leads) -> Task<> {
    LeaderElection e(c, kElect, "a");
    EXPECT_TRUE((co_await e.campaign()).ok());
    leads.set();
    co_await c.sleep(10'000);
    at_end = e.is_leader();
    auto v = co_await e.verify();
    verified = v.ok() && *v;
    co_await e.resign();
  }(a, a_leads_at_end, a_verified_after, a_leads));
  std::string seen_leader;
  w.spawn(b, [](Client& c, Signal a_leads, std::string& seen) -> Task<> {
    co_await a_leads.wait();
    LeaderElection e(c, kElect, "b");
    auto first = co_await e.leader();
    seen = first.ok() ? *first : "";
    EXPECT_TRUE((co_await e.campaign()).ok());
    EXPECT_EQ(*(co_await e.leader()), "b");
    co_await e.resign();
  }(b, a_leads, seen_leader));
  w.schedule(at_time(FaultKind::ExpireSession, 0, 500));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(seen_leader, "a");
  EXPECT_FALSE(a_leads_at_end);
  EXPECT_FALSE(a_verified_after);
  expect_no_leftovers(w, kElect);
}

TEST(LeaderElection, CrashedLeaderIsReplacedAfterItsSessionTimesOut) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a", 2000);
  Client& b = w.open("b");
  Leaders l;
  w.spawn(a, candidate(a, "a", l, 100'000));
  w.spawn(b, [](Client& c, Leaders& l) -> Task<> {
    co_await c.sleep(50);
    co_await candidate(c, "b", l, 5);
  }(b, l));
  w.schedule(at_time(FaultKind::Crash, 0, 100));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(l.order, (std::vector<std::string>{"a", "b"}));
  expect_no_leftovers(w, kElect);
}

}  // namespace
}  // namespace zksim::test
