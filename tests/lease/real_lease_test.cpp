// The lease locks of zksim/lease/locks.h, unchanged, on Debian's
// redis-server 7.0 and etcd 3.4 (label lease-real): the same recipe code
// the lease world runs, through the interfaces of real_clients.h. The
// program starts on 127.0.0.1 (free ports, temporary directories) one
// etcd, one redis-server, and five more for RedLock, and stops them at the
// end; every redis-server has the lock scripts' function library.
//
// Every correct lease lock (SET NX PX, Redisson's RLock, RedLock over five
// nodes, etcd's Mutex; plain and fenced), with the leases the harness gives
// them (harness.cpp: 300 ms on Redis, 2 s for etcd), must exclude: 3
// processes x 4 rounds, and the checkers of checkers.h find nothing. And
// the classic lease failure must happen here too: a holder stalled past its
// lease (a pause; for a lock that renews, its renewing helper suspended:
// etcd's keepalives, RLock's watchdog) still believes it holds when the
// next process takes the lock, and learns otherwise only at its release;
// only a fenced resource refuses its stale write.
//
// And RLock's waiters wake on the unlock message (RLockOnTheRealServer);
// and one behaviour of the real etcd that the lease world lacks: the
// lessor's revoke lag (EtcdMutexOnTheRealServer below).
#include "real_clients.h"

#include "zksim/lease/harness.h"
#include "zksim/lease/locks.h"

#include "etcd_server.h"
#include "redis_server.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iostream>

namespace zksim::lease {
// How googletest names a recipe in a failure.
void PrintTo(const LeaseRecipe& r, std::ostream* os) { *os << r.name; }
}  // namespace zksim::lease

namespace zksim::lease::test {
namespace {

constexpr TimeMs kRedisTtlMs = 300;
constexpr std::int64_t kEtcdTtlS = 2;
constexpr TimeMs kThinkMs = 5;

zksim::test::EtcdServer& etcd_server() {
  static zksim::test::EtcdServer server;
  return server;
}

class EtcdServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_TRUE(etcd_server().start()) << etcd_server().error(); }
  void TearDown() override { etcd_server().stop(); }
};

// RedLock's independent nodes (the main redis-server is not one of them).
std::array<zksim::test::RedisServer, 5>& redlock_servers() {
  static std::array<zksim::test::RedisServer, 5> servers;
  return servers;
}

class RedLockServersEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    for (zksim::test::RedisServer& s : redlock_servers()) {
      ASSERT_TRUE(s.start()) << s.error();
      redis::Connection c(s.port());
      const redis::Command load{"FUNCTION", "LOAD", "REPLACE", redis::lock_library()};
      ASSERT_EQ(c.command(load), redis::Reply::bulk("zksim_locks"));
    }
  }
  void TearDown() override {
    for (zksim::test::RedisServer& s : redlock_servers()) s.stop();
  }
};

// One run of a recipe: processes on one loop, each with its own client of
// the recipe's server, and the record the checkers read, kept as the
// harness keeps it (harness.cpp): holds in loop time, the resource's
// accepted writes (a fenced resource refuses a token lower than one it has
// seen).
class RealRun {
 public:
  // `name`: the lock's key (Redis) or prefix (etcd), unique in the program.
  RealRun(const LeaseRecipe& recipe, std::string name) : recipe_(recipe), name_(std::move(name)) {}

  // A process with its clients of the recipe's servers: etcd; one Redis
  // node (and a subscriber to it, for RLock); or RedLock's nodes.
  int add_process() {
    const int p = static_cast<int>(processes_.size());
    processes_.push_back(std::make_unique<RealProcess>(loop_, fmt::format("p{}", p)));
    RealProcess& self = *processes_.back();
    if (recipe_.etcd) {
      etcd_.push_back(std::make_unique<RealEtcd>(self, etcd_server().endpoint()));
      return p;
    }
    std::vector<std::unique_ptr<RealRedis>>& nodes = redis_.emplace_back();
    if (recipe_.redis_nodes > 1) {
      const int quorum = recipe_.redis_nodes / 2 + 1;
      for (int n = 0; n < recipe_.redis_nodes; ++n) {
        nodes.push_back(std::make_unique<RealRedis>(self, redlock_servers().at(n).port(), n, quorum));
      }
    } else {
      nodes.push_back(std::make_unique<RealRedis>(self, redis::redis_server().port()));
    }
    if (recipe_.renews) subscribers_.push_back(std::make_unique<RealSubscriber>(self, redis::redis_server().port()));
    return p;
  }
  RealProcess& process(int p) { return *processes_.at(p); }
  void spawn(int p, Task<> task) { loop_.spawn(process(p), std::move(task), /*helper=*/false); }
  bool run(TimeMs limit_ms) { return loop_.run(limit_ms); }

  // The recipe's lock, made as the harness makes it (harness.cpp).
  std::unique_ptr<LeaseLock> lock(int p) {
    if (recipe_.etcd) return make_etcd_mutex(process(p), *etcd_.at(p), {.prefix = "/" + name_, .ttl_s = kEtcdTtlS});
    if (recipe_.redis_nodes > 1) {
      std::vector<RedisClient*> nodes;
      for (const auto& n : redis_.at(p)) nodes.push_back(n.get());
      return make_redlock(process(p), std::move(nodes), {.key = name_, .ttl_ms = kRedisTtlMs});
    }
    if (recipe_.renews) {
      return make_rlock(process(p), *redis_.at(p).at(0), *subscribers_.at(p),
                        {.key = name_, .lease_ms = kRedisTtlMs, .fenced = recipe_.fenced});
    }
    return make_set_nx_lock(process(p), *redis_.at(p).at(0),
                            {.key = name_, .ttl_ms = kRedisTtlMs, .fenced = recipe_.fenced});
  }

  // `asked`: when its acquire was called.
  int begin_hold(int p, int round, TimeMs asked) {
    holds_.push_back({.process = p, .number = round, .start = loop_.now(), .grounded = process(p).last_heard()});
    asked_.push_back(asked);
    process(p).note(fmt::format("holds (hold {})", holds_.size() - 1));
    return static_cast<int>(holds_.size()) - 1;
  }
  void write(int h, std::int64_t token) {
    if (recipe_.fenced) {
      if (token < max_token_) {
        process(holds_[h].process).note(fmt::format("resource refuses token {}", token));
        ++refused_;
        return;
      }
      max_token_ = token;
    }
    writes_.push_back(h);
  }
  // Before the release is called: the hold ends.
  void end_hold(int h) {
    holds_[h].end = loop_.now();
    process(holds_[h].process).note("releases");
  }
  // What release() said, and whether the process had been cut off since
  // it asked for the lock (lease-kept).
  void released(int h, bool kept) {
    holds_[h].lost_at_release = !kept;
    holds_[h].cut_off = process(holds_[h].process).cut_off(asked_[h], loop_.now());
  }

  // After the run: the holds, completed with what the servers knew as the
  // harness does it: the end of the lease each was acquired under (its
  // process's latest lease begun by then), and whether a pause of its
  // process spanned that end.
  const std::vector<LeaseHold>& finish() {
    for (const auto& e : etcd_) e->settle_leases();
    for (LeaseHold& h : holds_) {
      for (const LeaseSpan& s : process(h.process).leases()) {
        if (s.start <= h.start) h.lease_end = s.end;
      }
      for (const auto& [from, to] : process(h.process).pauses()) {
        h.paused_as_lease_ended |= from <= h.lease_end && h.lease_end < to && from < h.start;
      }
    }
    return holds_;
  }
  const std::vector<int>& writes() const { return writes_; }
  int refused() const { return refused_; }

  // Every process's trace, merged in time order.
  std::string trace() const {
    std::vector<std::string> lines;
    for (const auto& p : processes_) lines.insert(lines.end(), p->trace().begin(), p->trace().end());
    std::ranges::stable_sort(lines, {}, [](const std::string& l) { return std::stoll(l); });
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }

 private:
  const LeaseRecipe& recipe_;
  std::string name_;
  std::vector<std::unique_ptr<RealProcess>> processes_;
  std::vector<std::vector<std::unique_ptr<RealRedis>>> redis_;  // per process, per node
  std::vector<std::unique_ptr<RealSubscriber>> subscribers_;
  std::vector<std::unique_ptr<RealEtcd>> etcd_;
  std::vector<LeaseHold> holds_;
  std::vector<TimeMs> asked_;  // per hold
  std::vector<int> writes_;
  std::int64_t max_token_ = 0;
  int refused_ = 0;
  // Last, so destroyed first: the tasks it still holds refer to the above.
  Loop loop_;
};

std::string message_of(const std::optional<Violation>& v) {
  return v ? v->property + ": " + v->message : std::string("none");
}

// A hold taken: its index in the run's holds, and its fencing token.
struct Held {
  int hold;
  std::int64_t token;
};

// Process p takes `lock` in `round` and the run records the hold; nullopt
// when the acquire gave up.
Task<std::optional<Held>> take(RealRun& run, LeaseLock& lock, int p, int round) {
  const TimeMs asked = run.process(p).loop().now();
  const std::optional<std::int64_t> token = co_await lock.acquire();
  if (!token) co_return std::nullopt;
  co_return Held{run.begin_hold(p, round, asked), *token};
}

// One round of process p: take the lock, write, hold for `hold_ms`, write,
// release. False when the acquire gave up.
Task<bool> hold_round(RealRun& run, LeaseLock& lock, int p, int round, TimeMs hold_ms) {
  const std::optional<Held> held = co_await take(run, lock, p, round);
  if (!held) {
    run.process(p).note("acquire gave up");
    co_return false;
  }
  run.write(held->hold, held->token);
  co_await run.process(p).sleep(hold_ms);
  run.write(held->hold, held->token);
  run.end_hold(held->hold);
  run.released(held->hold, co_await lock.release());
  co_return true;
}

// The harness's client loop without its nemesis: acquire, write, hold,
// write, release, think.
Task<> client(RealRun& run, int p, int rounds, TimeMs hold_ms) {
  std::unique_ptr<LeaseLock> lock = run.lock(p);
  for (int round = 0; round < rounds; ++round) {
    if (co_await hold_round(run, *lock, p, round, hold_ms)) co_await run.process(p).sleep(kThinkMs);
  }
}

// p0 takes the lock, first of all: a test failure when it cannot.
Task<std::optional<Held>> first_take(RealRun& run, LeaseLock& lock) {
  std::optional<Held> held = co_await take(run, lock, 0, 0);
  if (!held) ADD_FAILURE() << "p0 did not get the lock";
  co_return held;
}

// p0 of the classic failure: it takes the lock, writes, stalls for
// `stall_ms` (longer than its lease), writes again as if it still held.
Task<> stalled_holder(RealRun& run, bool renews, TimeMs stall_ms) {
  std::unique_ptr<LeaseLock> lock = run.lock(0);
  RealProcess& self = run.process(0);
  const std::optional<Held> held = co_await first_take(run, *lock);
  if (!held) co_return;
  const int h = held->hold;
  run.write(h, held->token);
  if (renews) {
    // Its work goes on (it sleeps through a long hold); its renewals
    // (keepalives, the watchdog's) stop.
    self.suspend_helpers(stall_ms);
    co_await self.sleep(stall_ms);
  } else {
    // Stop the world: a GC pause, from the next suspension on.
    self.pause(stall_ms);
    co_await self.sleep(0);
  }
  run.write(h, held->token);
  run.end_hold(h);
  run.released(h, co_await lock->release());
}

// Process p, once `start_ms` has passed: acquire, write, hold for
// `hold_ms`, write, release. Without keepalives: its helpers (an etcd
// session's keepalive loop) are suspended from before it asks.
Task<> hold_once(RealRun& run, int p, TimeMs start_ms, TimeMs hold_ms, bool keepalives = true) {
  std::unique_ptr<LeaseLock> lock = run.lock(p);
  RealProcess& self = run.process(p);
  co_await self.sleep(start_ms);
  if (!keepalives) self.suspend_helpers(60'000);
  co_await hold_round(run, *lock, p, 0, hold_ms);
}

// p0 of the revoke lag: it holds the lock until just after the deadline of
// p1's lease (p1's grant's reply + TTL: the server's deadline came no
// later), then releases it.
Task<> release_after_deadline_of_p1(RealRun& run) {
  std::unique_ptr<LeaseLock> lock = run.lock(0);
  RealProcess& self = run.process(0);
  const std::optional<Held> held = co_await first_take(run, *lock);
  if (!held) co_return;
  const int h = held->hold;
  while (run.process(1).leases().empty()) co_await self.sleep(5);
  const TimeMs deadline = run.process(1).leases().front().start + kEtcdTtlS * 1000;
  co_await self.sleep(deadline + 1 - self.loop().now());
  run.end_hold(h);
  run.released(h, co_await lock->release());
}

// The recipes run here: every correct one of the harness (harness.h).
std::vector<LeaseRecipe> recipes() {
  std::vector<LeaseRecipe> out;
  for (const LeaseRecipe& r : lease_recipes()) {
    if (r.breaks.empty()) out.push_back(r);
  }
  return out;
}

std::string identifier(std::string s) {
  std::ranges::replace_if(s, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return s;
}

class CorrectLeaseLock : public ::testing::TestWithParam<LeaseRecipe> {
 protected:
  // The lock's name: the test's, so that no run meets another's keys.
  static std::string lock_name() {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    return identifier(fmt::format("{}.{}", t->test_suite_name(), t->name()));
  }
};

TEST_P(CorrectLeaseLock, ExcludesOnTheRealServer) {
  const LeaseRecipe& recipe = GetParam();
  constexpr int kProcesses = 3, kRounds = 4;
  // A tenth of the lease: no hold outlives its lease.
  const TimeMs hold_ms = recipe.etcd ? kEtcdTtlS * 100 : kRedisTtlMs / 10;
  RealRun run(recipe, lock_name());
  for (int i = 0; i < kProcesses; ++i) {
    const int p = run.add_process();
    run.spawn(p, client(run, p, kRounds, hold_ms));
  }
  ASSERT_TRUE(run.run(20'000)) << "the clients had not finished by 20 s\n" << run.trace();
  const std::vector<LeaseHold>& holds = run.finish();
  EXPECT_EQ(holds.size(), std::size_t{kProcesses * kRounds}) << run.trace();
  const auto belief = check_belief_exclusion(holds);
  const auto resource = check_resource_exclusion(holds, run.writes());
  const auto kept = check_lease_kept(holds);
  EXPECT_FALSE(belief) << message_of(belief) << "\n" << run.trace();
  EXPECT_FALSE(resource) << message_of(resource) << "\n" << run.trace();
  EXPECT_FALSE(kept) << message_of(kept) << "\n" << run.trace();
  EXPECT_TRUE(std::ranges::none_of(holds, &LeaseHold::lost_at_release)) << run.trace();
  EXPECT_EQ(run.refused(), 0) << run.trace();
}

TEST_P(CorrectLeaseLock, AHolderStalledPastItsLeaseStillBelievesItHoldsWhenTheNextTakesTheLock) {
  const LeaseRecipe& recipe = GetParam();
  // Stalls of more than the lease, with room for etcd's lessor, which
  // revokes an expired lease up to 500 ms after its deadline.
  const TimeMs stall_ms = recipe.etcd ? kEtcdTtlS * 1000 + 1500 : 2 * kRedisTtlMs;
  const TimeMs next_hold_ms = recipe.etcd ? 300 : 100;
  RealRun run(recipe, lock_name());
  run.add_process();
  run.add_process();
  run.spawn(0, stalled_holder(run, recipe.renews, stall_ms));
  run.spawn(1, hold_once(run, 1, /*start_ms=*/50, next_hold_ms));
  ASSERT_TRUE(run.run(15'000)) << run.trace();
  const std::vector<LeaseHold>& holds = run.finish();
  ASSERT_EQ(holds.size(), 2u) << run.trace();
  const LeaseHold& stale = holds[0];
  const LeaseHold& next = holds[1];
  ASSERT_EQ(stale.process, 0) << run.trace();
  // The classic failure: p1 took the lock while p0 still believed it held
  // it, once p0's lease had ended (the server kept its word), and p0 had
  // heard from the server while its lease lasted: belief-exclusion excuses it.
  EXPECT_LT(next.start, stale.end) << run.trace();
  EXPECT_LE(stale.lease_end, next.start) << run.trace();
  EXPECT_LE(stale.grounded, stale.lease_end) << run.trace();
  const auto belief = check_belief_exclusion(holds);
  EXPECT_FALSE(belief) << message_of(belief) << "\n" << run.trace();
  // It learns at its release that the lock was no longer its own; having
  // been cut off, it is not held to lease-kept.
  EXPECT_TRUE(stale.lost_at_release) << run.trace();
  EXPECT_TRUE(stale.cut_off) << run.trace();
  EXPECT_FALSE(next.lost_at_release) << run.trace();
  const auto kept = check_lease_kept(holds);
  EXPECT_FALSE(kept) << message_of(kept) << "\n" << run.trace();
  // Only fencing keeps the stale write out.
  const auto resource = check_resource_exclusion(holds, run.writes());
  if (recipe.fenced) {
    EXPECT_EQ(run.refused(), 1) << run.trace();
    EXPECT_EQ(run.writes(), (std::vector<int>{0, 1, 1})) << run.trace();
    EXPECT_FALSE(resource) << message_of(resource) << "\n" << run.trace();
  } else {
    EXPECT_EQ(run.writes(), (std::vector<int>{0, 1, 1, 0})) << run.trace();
    EXPECT_TRUE(resource) << run.trace();
  }
  std::cout << fmt::format(
      "[ measured ] p0's lease ended at {} ms; p1 held from {} ms ({} ms later) to {} ms; p0 believed it held "
      "from {} to {} ms\n",
      stale.lease_end, next.start, next.start - stale.lease_end, next.end, stale.start, stale.end);
}

INSTANTIATE_TEST_SUITE_P(Recipes, CorrectLeaseLock, ::testing::ValuesIn(recipes()),
                         [](const ::testing::TestParamInfo<LeaseRecipe>& info) { return identifier(info.param.name); });

// Redisson's waiters sleep on the lock's channel, not on a timer: the
// unlock script's PUBLISH wakes the one waiting, and it takes the lock
// within a few ms of the release. p0 holds for 400 ms, past its 300 ms
// lease, which its watchdog renews every 100 ms; p1, asking at 20 ms,
// waits each time for the PTTL its try was answered (280 ms, then 200 ms or
// more), so its timer would have woken it only at about 500 ms, 100 ms or
// more after p0's release.
TEST(RLockOnTheRealServer, AWaiterTakesTheLockWhenTheUnlockMessageComesNotAtItsTimeout) {
  RealRun run(*find_lease_recipe("redisson-rlock"), "RLockWakeup");
  run.add_process();
  run.add_process();
  run.spawn(0, hold_once(run, 0, /*start_ms=*/0, /*hold_ms=*/400));
  run.spawn(1, hold_once(run, 1, /*start_ms=*/20, /*hold_ms=*/10));
  ASSERT_TRUE(run.run(5'000)) << run.trace();
  const std::vector<LeaseHold>& holds = run.finish();
  ASSERT_EQ(holds.size(), 2u) << run.trace();
  const LeaseHold& first = holds[0];
  const LeaseHold& next = holds[1];
  ASSERT_EQ(first.process, 0) << run.trace();
  EXPECT_FALSE(first.lost_at_release) << run.trace();
  EXPECT_GE(next.start, first.end) << run.trace();
  EXPECT_LT(next.start - first.end, 50) << run.trace();
  std::cout << fmt::format("[ measured ] p0 released at {} ms; p1 held from {} ms ({} ms later)\n", first.end,
                           next.start, next.start - first.end);
}

// etcd's lessor revokes an expired lease on a 500 ms tick, not at its
// deadline: until then the lease's keys are still there. p1's keepalives
// never go out, and p0 releases the lock just after p1's lease's deadline:
// p1's Mutex finds its own key (the owner check of 3.5) and takes the lock
// with a lease that can no longer be renewed; at the revoke, p2, waiting
// behind p1, takes it while p1 still holds. The lease world's etcd revokes
// at the deadline, so there p1's owner check fails and it gives up: judged
// with its lease ending at its deadline, this belief-exclusion violation
// does not happen in the simulated world.
TEST(EtcdMutexOnTheRealServer, AWaiterWhoseLeaseRanOutTakesTheLockUntilTheLessorRevokesItsKey) {
  // A revoke tick within the few ms between p1's deadline and its owner
  // check comes first (p1 gives up, as in the lease world): 1 time in 16
  // as measured, so four tries.
  for (int attempt = 0; attempt < 4; ++attempt) {
    RealRun run(*find_lease_recipe("etcd-mutex"), fmt::format("RevokeLag{}", attempt));
    for (int i = 0; i < 3; ++i) run.add_process();
    run.spawn(0, release_after_deadline_of_p1(run));
    run.spawn(1, hold_once(run, 1, /*start_ms=*/50, /*hold_ms=*/700, /*keepalives=*/false));
    run.spawn(2, hold_once(run, 2, /*start_ms=*/100, /*hold_ms=*/100));
    ASSERT_TRUE(run.run(15'000)) << run.trace();
    const std::vector<LeaseHold>& holds = run.finish();
    const auto late = std::ranges::find(holds, 1, &LeaseHold::process);
    if (late == holds.end()) continue;
    const auto next = std::ranges::find(holds, 2, &LeaseHold::process);
    ASSERT_NE(next, holds.end()) << run.trace();
    EXPECT_GT(late->start, late->lease_end) << run.trace();
    EXPECT_LT(next->start, late->end) << run.trace();
    EXPECT_TRUE(late->lost_at_release) << run.trace();
    const auto belief = check_belief_exclusion(holds);
    ASSERT_TRUE(belief) << run.trace();
    EXPECT_EQ(belief->property, "belief-exclusion");
    std::cout << fmt::format(
        "[ measured ] attempt {}: p1's lease's deadline {} ms; p1 held from {} ms; p2 took the lock at {} ms ({} ms "
        "after the deadline) while p1 held it until {} ms; {}\n",
        attempt, late->lease_end, late->start, next->start, next->start - late->lease_end, late->end, belief->message);
    return;
  }
  FAIL() << "in four tries the lessor revoked p1's lease before p1 took the lock every time";
}

}  // namespace
}  // namespace zksim::lease::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  ::testing::AddGlobalTestEnvironment(new zksim::redis::RedisServerEnvironment);
  ::testing::AddGlobalTestEnvironment(new zksim::lease::test::EtcdServerEnvironment);
  ::testing::AddGlobalTestEnvironment(new zksim::lease::test::RedLockServersEnvironment);
  const int rc = RUN_ALL_TESTS();
  curl_global_cleanup();
  return rc;
}
