// The lock-like recipes on the real server when the holder's session is
// expired from outside (RealClient::expire_from_outside, the holder kept
// away by a TcpGate meanwhile): the waiting contender is granted, and the
// old holder hears Suspended then Lost and stops believing it holds.
#include "real_recipe_fixture.h"
#include "tcp_gate.h"

#include "zksim/recipes/election.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/rw_lock.h"
#include "zksim/recipes/semaphore.h"

#include <fmt/format.h>

#include <optional>

namespace zksim::test {
namespace {

using namespace zksim::recipes;

// The four recipes seen as one holder: acquire, release, holds.
struct LockHolder {
  static LockOptions told(HoldListener l) {
    LockOptions o;
    o.on_hold = std::move(l);
    return o;
  }
  LockHolder(Client& zk, std::string dir, HoldListener l) : r(zk, std::move(dir), told(std::move(l))) {}
  Task<Result<Grant>> acquire(TimeMs t) { return r.acquire(t); }
  Task<Result<void>> release() { return r.release(); }
  bool holds() const { return r.holds(); }
  Lock r;
};

struct WriteHolder {
  WriteHolder(Client& zk, std::string dir, HoldListener l) : r(zk, std::move(dir), std::move(l)) {}
  Task<Result<Grant>> acquire(TimeMs t) { return r.acquire_write(t); }
  Task<Result<void>> release() { return r.release_write(); }
  bool holds() const { return r.holds_write(); }
  ReadWriteLock r;
};

struct LeaseHolder {
  LeaseHolder(Client& zk, std::string dir, HoldListener l) : r(zk, std::move(dir), 1, std::move(l)) {}
  Task<Result<Grant>> acquire(TimeMs t) {
    auto g = co_await r.acquire(t);
    if (g) lease = *g;
    co_return g;
  }
  // A coroutine, so the Grant that Semaphore::release takes by reference
  // lives until the release ends.
  Task<Result<void>> release() {
    Grant g = lease.value_or(Grant{});
    co_return co_await r.release(g);
  }
  bool holds() const { return r.held() > 0; }
  Semaphore r;
  std::optional<Grant> lease;
};

struct LeaderHolder {
  LeaderHolder(Client& zk, std::string dir, HoldListener l)
      : r(zk, std::move(dir), zk.unique_id(), std::move(l)) {}
  Task<Result<Grant>> acquire(TimeMs t) { return r.campaign(t); }
  Task<Result<void>> release() { return r.resign(); }
  bool holds() const { return r.is_leader(); }
  LeaderElection r;
};

struct Outcome {
  std::vector<HoldEvent> told;   // to the expired holder
  bool expiring = false;         // set just before the expiry starts
  bool a_holds_after = true;
  bool b_granted = false;
  bool b_granted_before_expiry = false;
};

template <class H>
Task<> expired_holder(RealClient& zk, TcpGate& gate, std::string dir, Outcome& o, Signal holds) {
  H h(zk, dir, [&o](HoldEvent e) { o.told.push_back(e); });
  auto g = co_await h.acquire(10'000);
  EXPECT_TRUE(g.ok()) << error_name(g.error());
  if (!g) co_return;
  holds.set();
  co_await zk.sleep(200);  // the other contender queues behind us meanwhile
  o.expiring = true;
  gate.hold(true);
  auto expired = co_await zk.expire_from_outside(zk_server().hosts());
  EXPECT_TRUE(expired.ok()) << error_name(expired.error());
  gate.hold(false);
  bool ended = co_await until_state(zk, SessionState::Expired);
  EXPECT_TRUE(ended);
  o.a_holds_after = h.holds();
  co_await h.release();  // the node went with the session
}

template <class H>
Task<> next_holder(Client& zk, std::string dir, Outcome& o, Signal a_holds) {
  co_await a_holds.wait();
  H h(zk, dir, {});
  auto g = co_await h.acquire(10'000);
  EXPECT_TRUE(g.ok()) << error_name(g.error());
  if (!g) co_return;
  o.b_granted = true;
  o.b_granted_before_expiry = !o.expiring;
  auto released = co_await h.release();
  EXPECT_TRUE(released.ok());
}

class RealRecipeExpiry : public RealRecipeTest {
 protected:
  // `left`: the directories the recipe's nodes live in (dir itself if none
  // given), to be empty at the end.
  template <class H>
  void holder_expires(const std::string& dir, std::vector<std::string> left = {}) {
    TcpGate gate(zk_server().port());
    Outcome o;
    Signal a_holds;
    spawn(expired_holder<H>(open(gate.hosts()), gate, dir, o, a_holds));
    spawn(next_holder<H>(open(), dir, o, a_holds));
    run();
    EXPECT_TRUE(o.b_granted);
    EXPECT_FALSE(o.b_granted_before_expiry);
    EXPECT_EQ(o.told, (std::vector<HoldEvent>{HoldEvent::Suspended, HoldEvent::Lost}));
    EXPECT_FALSE(o.a_holds_after);
    if (left.empty()) left.push_back(dir);
    for (const std::string& d : left) expect_no_leftovers(d);
  }
};

TEST_F(RealRecipeExpiry, LockHolderExpiredIsToldAndTheNextIsGranted) {
  holder_expires<LockHolder>("/real-expiry/lock");
}
TEST_F(RealRecipeExpiry, WriteHolderExpiredIsToldAndTheNextIsGranted) {
  holder_expires<WriteHolder>("/real-expiry/rw");
}
TEST_F(RealRecipeExpiry, SingleLeaseHolderExpiredIsToldAndTheNextIsGranted) {
  holder_expires<LeaseHolder>("/real-expiry/sem", {fmt::format("/real-expiry/sem/{}", Semaphore::kLocks),
                                                   fmt::format("/real-expiry/sem/{}", Semaphore::kLeases)});
}
TEST_F(RealRecipeExpiry, LeaderExpiredIsToldAndTheNextLeads) {
  holder_expires<LeaderHolder>("/real-expiry/election");
}

}  // namespace
}  // namespace zksim::test
