#include "builtin_recipes.h"

#include "zksim/scenarios/property.h"

#include "zksim/fault.h"
#include "zksim/recipes/barrier.h"
#include "zksim/recipes/election.h"
#include "zksim/recipes/flawed/blog_rw_lock.h"
#include "zksim/recipes/flawed/eager_downgrade_rw_lock.h"
#include "zksim/recipes/flawed/flavour_flaws.h"
#include "zksim/recipes/flawed/prefix_write_lock.h"
#include "zksim/recipes/flawed/simple_locks.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/queue.h"
#include "zksim/recipes/rw_lock.h"
#include "zksim/recipes/semaphore.h"

namespace zksim::scenarios::detail {

namespace {

namespace fl = recipes::flawed;

// The semaphore's holder keeps the lease it was granted last, which its
// release gives back.
class Leases final : public LockHandle {
 public:
  explicit Leases(const HandleContext& c) : s_(c.zk, c.dir, c.leases, c.on_hold) {}
  Task<Result<recipes::Grant>> acquire(bool, TimeMs t) override {
    auto g = co_await s_.acquire(t);
    if (g) lease_ = *g;
    co_return g;
  }
  Task<Result<void>> release(bool) override { return s_.release(lease_); }
  bool holds(bool) const override { return s_.held() > 0; }

 private:
  recipes::Semaphore s_;
  recipes::Grant lease_;
};

template <class Q>
class QueueOf final : public QueueHandle {
 public:
  explicit QueueOf(const HandleContext& c) : q_(c.zk, c.dir) {}
  Task<Result<void>> put(std::string value) override {
    auto put = co_await q_.put(std::move(value));
    if (!put) co_return put.error();
    co_return Result<void>();
  }
  Task<Result<recipes::Item>> take(TimeMs timeout_ms) override { return q_.take(timeout_ms); }
  Task<Result<void>> ack(recipes::Item item) override {
    if constexpr (requires { q_.ack(item); }) {
      co_return co_await q_.ack(std::move(item));
    } else {
      co_return Error::Unimplemented;
    }
  }
  Task<Result<void>> give_back(recipes::Item item) override {
    if constexpr (requires { q_.release(item); }) {
      co_return co_await q_.release(std::move(item));
    } else {
      co_return Error::Unimplemented;
    }
  }
  std::optional<std::string> in_doubt() const override {
    if constexpr (requires { q_.in_doubt(); }) {
      if (q_.in_doubt()) return q_.in_doubt()->data;
    }
    return std::nullopt;
  }

 private:
  Q q_;
};

template <class B>
class BarrierOf final : public BarrierHandle {
 public:
  explicit BarrierOf(const HandleContext& c) : b_(c.zk, c.dir) {}
  Task<Result<void>> raise() override { return b_.raise(); }
  Task<Result<void>> lower() override { return b_.lower(); }
  Task<Result<void>> wait(TimeMs timeout_ms) override { return b_.wait(timeout_ms); }

 private:
  B b_;
};

class DoubleBarrierOf final : public DoubleBarrierHandle {
 public:
  explicit DoubleBarrierOf(const HandleContext& c) : b_(c.zk, c.dir, c.members) {}
  Task<Result<void>> enter(TimeMs timeout_ms) override { return b_.enter(timeout_ms); }
  Task<Result<void>> leave(TimeMs timeout_ms) override { return b_.leave(timeout_ms); }

 private:
  recipes::DoubleBarrier b_;
};

bool write_marked(std::string_view name) { return name.find("write") != std::string_view::npos; }

Recipe lock_like(std::string name, std::string summary, RecipeFamily family,
                 std::function<std::unique_ptr<LockHandle>(const HandleContext&)> make) {
  Recipe r;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.family = family;
  r.make_lock = std::move(make);
  return r;
}

// A flawed recipe's flaw under its nemesis; `fault` a FaultKind or TimedFault.
template <class F = std::int32_t>
Flaw flaw(Property property, F fault = 0, std::uint32_t per_mille = 0, TimeMs hold_ms = 5,
          Flavour flavour = Flavour::C, bool varied = false) {
  return Flaw{name(property), static_cast<std::int32_t>(fault), per_mille, hold_ms, flavour, varied};
}

}  // namespace

std::vector<Recipe> builtin_recipes() {
  std::vector<Recipe> out;
  auto add = [&out](Recipe r) -> Recipe& { return out.emplace_back(std::move(r)); };

  Recipe& lock = add(lock_like("lock", "exclusive lock after Curator's InterProcessMutex (lock.h)", RecipeFamily::Lock,
                               [](const HandleContext& c) {
                                 recipes::LockOptions o;
                                 o.on_hold = c.on_hold;
                                 return exclusive<recipes::Lock>(c.zk, c.dir, o);
                               }));
  lock.traits.reentrant = true;
  lock.traits.tells_loss = true;

  Recipe& rw = add(lock_like("rw-lock", "shared/exclusive lock, readers waiting only for writers (rw_lock.h)",
                             RecipeFamily::ReadWriteLock, [](const HandleContext& c) {
                               return read_write<recipes::ReadWriteLock>(c.zk, c.dir, c.on_hold);
                             }));
  rw.traits.reentrant = true;
  rw.traits.tells_loss = true;
  rw.traits.write_node = write_marked;

  Recipe& sem = add(lock_like("semaphore", "N leases after Curator's InterProcessSemaphoreV2 (semaphore.h)",
                              RecipeFamily::Semaphore,
                              [](const HandleContext& c) { return std::make_unique<Leases>(c); }));
  sem.traits.tells_loss = true;
  sem.traits.node_dirs = {recipes::Semaphore::kLocks, recipes::Semaphore::kLeases};
  sem.traits.lease_dir = recipes::Semaphore::kLeases;

  Recipe& elect = add(lock_like("election", "leader election: the lowest node leads, each watches its predecessor (election.h)",
                                RecipeFamily::Election, [](const HandleContext& c) {
                                  return election<recipes::LeaderElection>(c.zk, c.dir, c.id, c.on_hold);
                                }));
  elect.traits.tells_loss = true;

  Recipe& queue = add(Recipe{.name = "queue",
                             .summary = "FIFO queue, each item delivered at most once (queue.h)",
                             .family = RecipeFamily::Queue,
                             .make_queue = [](const HandleContext& c) {
                               return std::make_unique<QueueOf<recipes::Queue>>(c);
                             }});
  queue.traits.item_marker = recipes::Queue::kMarker;
  queue.traits.at_most_once = true;  // a take deletes the item before its caller has it

  Recipe& locking = add(Recipe{.name = "locking-queue",
                               .summary = "FIFO queue, each item held until acked, delivered at least once (queue.h)",
                               .family = RecipeFamily::LockingQueue,
                               .make_queue = [](const HandleContext& c) {
                                 return std::make_unique<QueueOf<recipes::LockingQueue>>(c);
                               }});
  locking.traits.item_marker = recipes::Queue::kMarker;
  locking.traits.items_dir = "items";
  locking.traits.claims_dir = "claims";
  locking.traits.node_dirs = {"items", "claims"};

  add(Recipe{.name = "barrier",
             .summary = "barrier: raised by a coordinator, waited on by the others (barrier.h)",
             .family = RecipeFamily::Barrier,
             .make_barrier = [](const HandleContext& c) { return std::make_unique<BarrierOf<recipes::Barrier>>(c); }});

  Recipe& dbl = add(Recipe{.name = "double-barrier",
                           .summary = "double barrier: all enter together, all leave together (barrier.h)",
                           .family = RecipeFamily::DoubleBarrier,
                           .make_double_barrier = [](const HandleContext& c) {
                             return std::make_unique<DoubleBarrierOf>(c);
                           }});
  dbl.traits.ready_node = recipes::DoubleBarrier::kReady;

  // The flawed ones (recipes/flawed/), each with the nemesis that shows it.
  Recipe& blog = add(lock_like("flawed/blog-rw-lock", "a blog's read/write lock, as written (blog_rw_lock.h)",
                               RecipeFamily::ReadWriteLock, [](const HandleContext& c) {
                                 return read_write<fl::BlogReadWriteLock>(c.zk, c.dir);
                               }));
  blog.traits.write_node = [](std::string_view name) { return name.find("-w-") != std::string_view::npos; };
  blog.flaw = flaw(Property::ReadWriteExclusion);

  Recipe& blog_fixed = add(lock_like("flawed/blog-rw-lock-index-fixed",
                                     "the blog's read/write lock with its index bug fixed (blog_rw_lock.h)",
                                     RecipeFamily::ReadWriteLock, [](const HandleContext& c) {
                                       return read_write<fl::BlogReadWriteLock>(
                                           c.zk, c.dir, fl::BlogReadWriteLock::Transcription::IndexFixed);
                                     }));
  blog_fixed.traits.write_node = blog.traits.write_node;
  blog_fixed.flaw = flaw(Property::ReadWriteExclusion);

  add(lock_like("flawed/prefix-write-lock", "a write lock ordering its nodes by name (prefix_write_lock.h)",
                RecipeFamily::Lock, [](const HandleContext& c) { return exclusive<fl::PrefixWriteLock>(c.zk, c.dir); }))
      .flaw = flaw(Property::MutualExclusion);
  add(lock_like("flawed/herd-lock", "every waiter watches the whole directory (simple_locks.h)", RecipeFamily::Lock,
                [](const HandleContext& c) { return exclusive<fl::HerdLock>(c.zk, c.dir); }))
      .flaw = flaw(Property::HerdEffect);
  add(lock_like("flawed/no-guid-lock", "contender nodes without a unique id (simple_locks.h)", RecipeFamily::Lock,
                [](const HandleContext& c) { return exclusive<fl::NoGuidLock>(c.zk, c.dir); }))
      .flaw = flaw(Property::Liveness, FaultKind::DropAfterApply, 50);
  // Holds long enough to go on working after a pause.
  add(lock_like("flawed/forgetful-lock", "a holder that never hears its session ended (simple_locks.h)",
                RecipeFamily::Lock, [](const HandleContext& c) { return exclusive<fl::ForgetfulLock>(c.zk, c.dir); }))
      .flaw = flaw(Property::MutualExclusion, FaultKind::Pause, 30, 600);
  add(lock_like("flawed/stubborn-unlock-lock", "a release that retries its delete on any error (simple_locks.h)",
                RecipeFamily::Lock,
                [](const HandleContext& c) { return exclusive<fl::StubbornUnlockLock>(c.zk, c.dir); }))
      .flaw = flaw(Property::Runaway, FaultKind::DropAfterApply, 50);

  // Runs long enough for time-triggered faults.
  Recipe& stale = add(lock_like("flawed/stale-node-election",
                                "an election that keeps its node across a new session (flavour_flaws.h)",
                                RecipeFamily::Election, [](const HandleContext& c) {
                                  return election<fl::StaleNodeElection>(c.zk, c.dir, c.on_hold);
                                }));
  stale.traits.tells_loss = true;
  stale.flaw = flaw(Property::OneLeader, TimedFault::BlipAll, 300, 300, Flavour::Curator);

  Recipe& node_events = add(lock_like("flawed/node-events-only-lock",
                                      "a lock whose wait hears node events only (flavour_flaws.h)", RecipeFamily::Lock,
                                      [](const HandleContext& c) {
                                        return exclusive<fl::NodeEventsOnlyLock>(c.zk, c.dir, c.on_hold);
                                      }));
  node_events.traits.tells_loss = true;
  node_events.flaw = flaw(Property::Liveness, TimedFault::BlipAll, 300, 300, Flavour::Kazoo);

  // Needs no fault: only a recipe on the caller's thread.
  Recipe& unsync = add(lock_like("flawed/unsynchronized-wait-lock",
                                 "Curator's lock loop without its synchronized block (flavour_flaws.h)",
                                 RecipeFamily::Lock, [](const HandleContext& c) {
                                   return exclusive<fl::UnsynchronizedWaitLock>(c.zk, c.dir, c.on_hold);
                                 }));
  unsync.traits.tells_loss = true;
  unsync.flaw = flaw(Property::Liveness, 0, 0, 5, Flavour::Curator);

  // Needs downgrades, which only varied workloads make.
  Recipe& eager = add(lock_like("flawed/eager-downgrade-rw-lock",
                                "a read/write lock whose downgrade admits a writer (eager_downgrade_rw_lock.h)",
                                RecipeFamily::ReadWriteLock, [](const HandleContext& c) {
                                  return read_write<fl::EagerDowngradeReadWriteLock>(c.zk, c.dir, c.on_hold);
                                }));
  eager.traits.tells_loss = true;
  eager.traits.write_node = write_marked;
  eager.flaw = flaw(Property::ReadWriteExclusion, 0, 0, 5, Flavour::C, true);

  add(Recipe{.name = "flawed/session-event-barrier",
             .summary = "a barrier wait that passes on any session event (flavour_flaws.h)",
             .family = RecipeFamily::Barrier,
             .make_barrier = [](const HandleContext& c) {
               return std::make_unique<BarrierOf<fl::SessionEventBarrier>>(c);
             },
             .flaw = flaw(Property::BarrierWait, TimedFault::AnyTime, 300, 300, Flavour::Curator)});

  // Flaws of the ensemble: correct on one server.
  Recipe& unsynced_barrier = add(Recipe{
      .name = "flawed/unsynced-barrier",
      .summary = "a barrier wait that checks without a sync (flavour_flaws.h)",
      .family = RecipeFamily::Barrier,
      .make_barrier = [](const HandleContext& c) { return std::make_unique<BarrierOf<fl::UnsyncedBarrier>>(c); }});
  unsynced_barrier.flaw = flaw(Property::BarrierWait);
  unsynced_barrier.flaw->servers = 3;
  // A lost reply moves the client to the next server, which may lag.
  Recipe& unsynced_lock = add(lock_like(
      "flawed/unsynced-protected-lock", "Curator's protected create, looking for its node without a sync (simple_locks.h)",
      RecipeFamily::Lock, [](const HandleContext& c) { return exclusive<fl::UnsyncedProtectedLock>(c.zk, c.dir); }));
  unsynced_lock.flaw = flaw(Property::Liveness, FaultKind::DropAfterApply, 50);
  unsynced_lock.flaw->servers = 3;
  return out;
}

}  // namespace zksim::scenarios::detail
