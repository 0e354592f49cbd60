// Workloads for the lock-like recipes: exclusive locks (correct and
// flawed), leader election, the semaphore, and read/write locks. Each
// client loops: acquire, a fenced read-modify-write of the shared counter
// while it believes it holds, release, think.
#include "workloads.h"

#include "zksim/recipes/election.h"
#include "zksim/recipes/flawed/blog_rw_lock.h"
#include "zksim/recipes/flawed/prefix_write_lock.h"
#include "zksim/recipes/flawed/simple_locks.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/rw_lock.h"
#include "zksim/recipes/semaphore.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace zksim::scenarios::detail {

namespace {

using recipes::Grant;
using recipes::HoldListener;

// One holder's handle on any lock-like recipe; `write` picks the write side
// of a read/write lock (ignored by the others).
class AnyLock {
 public:
  virtual ~AnyLock() = default;
  virtual Task<Result<Grant>> acquire(bool write, TimeMs timeout_ms) = 0;
  virtual Task<Result<void>> release(bool write) = 0;
  virtual bool holds(bool write) const = 0;
};

template <class L>
class Exclusive final : public AnyLock {
 public:
  template <class... A>
  explicit Exclusive(A&&... args) : l_(std::forward<A>(args)...) {}
  Task<Result<Grant>> acquire(bool, TimeMs t) override { return l_.acquire(t); }
  Task<Result<void>> release(bool) override { return l_.release(); }
  bool holds(bool) const override { return l_.holds(); }

 private:
  L l_;
};

class Election final : public AnyLock {
 public:
  Election(Client& zk, std::string id, HoldListener h) : e_(zk, kDir, std::move(id), std::move(h)) {}
  Task<Result<Grant>> acquire(bool, TimeMs t) override { return e_.campaign(t); }
  Task<Result<void>> release(bool) override { return e_.resign(); }
  bool holds(bool) const override { return e_.is_leader(); }

 private:
  recipes::LeaderElection e_;
};

class Leases final : public AnyLock {
 public:
  Leases(Client& zk, int n, HoldListener h) : s_(zk, kDir, n, std::move(h)) {}
  Task<Result<Grant>> acquire(bool, TimeMs t) override {
    auto g = co_await s_.acquire(t);
    if (g) lease_ = *g;
    co_return g;
  }
  Task<Result<void>> release(bool) override { return s_.release(lease_); }
  bool holds(bool) const override { return s_.held() > 0; }

 private:
  recipes::Semaphore s_;
  Grant lease_;
};

template <class L>
class ReadWrite final : public AnyLock {
 public:
  template <class... A>
  explicit ReadWrite(A&&... args) : l_(std::forward<A>(args)...) {}
  Task<Result<Grant>> acquire(bool write, TimeMs t) override {
    return write ? l_.acquire_write(t) : l_.acquire_read(t);
  }
  Task<Result<void>> release(bool write) override { return write ? l_.release_write() : l_.release_read(); }
  bool holds(bool write) const override { return write ? l_.holds_write() : l_.holds_read(); }

 private:
  L l_;
};

std::unique_ptr<AnyLock> make_lock(const Workload& w, Client& zk, int id, HoldListener on_hold) {
  namespace fl = recipes::flawed;
  const std::string& r = w.recipe;
  if (r == "lock") {
    recipes::LockOptions o;
    o.on_hold = std::move(on_hold);
    return std::make_unique<Exclusive<recipes::Lock>>(zk, kDir, o);
  }
  if (r == "election") return std::make_unique<Election>(zk, fmt::format("c{}", id), std::move(on_hold));
  if (r == "semaphore") return std::make_unique<Leases>(zk, w.leases, std::move(on_hold));
  if (r == "rw-lock") return std::make_unique<ReadWrite<recipes::ReadWriteLock>>(zk, kDir, std::move(on_hold));
  if (r == "flawed/blog-rw-lock") return std::make_unique<ReadWrite<fl::BlogReadWriteLock>>(zk, kDir);
  if (r == "flawed/blog-rw-lock-index-fixed") {
    return std::make_unique<ReadWrite<fl::BlogReadWriteLock>>(zk, kDir, fl::BlogReadWriteLock::Transcription::IndexFixed);
  }
  if (r == "flawed/prefix-write-lock") return std::make_unique<Exclusive<fl::PrefixWriteLock>>(zk, kDir);
  if (r == "flawed/herd-lock") return std::make_unique<Exclusive<fl::HerdLock>>(zk, kDir);
  if (r == "flawed/no-guid-lock") return std::make_unique<Exclusive<fl::NoGuidLock>>(zk, kDir);
  if (r == "flawed/forgetful-lock") return std::make_unique<Exclusive<fl::ForgetfulLock>>(zk, kDir);
  return nullptr;
}

bool session_over(const Client& zk) {
  return zk.state() == SessionState::Expired || zk.state() == SessionState::Closed;
}

void record(History& h, std::size_t op, TimeMs now, Error e) {
  // A write whose reply was lost may have happened: info. Anything else
  // that failed did not.
  if (e == Error::ConnectionLoss) {
    h.info(op, now, e);
  } else {
    h.fail(op, now, e);
  }
}

Task<> lock_client(Client& zk, int id, Workload w, Shared& s, std::unique_ptr<AnyLock> lock,
                   bool write) {
  const std::string suffix = w.recipe.find("rw-lock") != std::string::npos ? (write ? "-write" : "-read") : "";
  const std::string acquire = "acquire" + suffix, release = "release" + suffix;
  for (int round = 0; round < w.rounds && !session_over(zk); ++round) {
    auto op = s.history.invoke(id, acquire, zk.now());
    auto g = co_await lock->acquire(write, w.timeout_ms);
    if (!g) {
      record(s.history, op, zk.now(), g.error());
      co_await zk.sleep(w.think_ms);
      continue;
    }
    s.history.ok(op, zk.now(), std::move(g->node), g->fence);
    int depth = 1;
    // Reentrancy is the locks' (a second lease is not; resign ends a
    // leadership whatever the count).
    if (w.reentrant && w.recipe != "semaphore" && w.recipe != "election") {
      auto again = s.history.invoke(id, acquire, zk.now());
      auto g2 = co_await lock->acquire(write, w.timeout_ms);
      if (g2) {
        s.history.ok(again, zk.now(), std::move(g2->node), g2->fence);
        ++depth;
      } else {
        record(s.history, again, zk.now(), g2.error());
      }
    }
    // The critical section: a fenced read-modify-write, while we believe.
    // It works in three slices and gives up early once it no longer holds.
    const bool fenced = w.recipe != "semaphore" && (write || suffix.empty());
    std::optional<int> v;
    if (fenced) v = s.counter.read(g->fence);
    bool held = true;
    for (int slice = 0; slice < 3 && held; ++slice) {
      co_await zk.sleep(std::max<TimeMs>(w.hold_ms / 3, 1));
      held = lock->holds(write);
    }
    if (fenced && v && held) s.counter.write(g->fence, *v + 1);
    for (; depth > 0; --depth) {
      auto rel = s.history.invoke(id, release, zk.now());
      auto done = co_await lock->release(write);
      if (done) {
        s.history.ok(rel, zk.now());
      } else {
        record(s.history, rel, zk.now(), done.error());
      }
    }
    ++s.completed_rounds;
    co_await zk.sleep(w.think_ms);
  }
}

}  // namespace

bool spawn_lock_family(World& world, const Workload& w, Shared& s) {
  for (int i = 0; i < w.clients; ++i) {
    Client& zk = world.open(fmt::format("c{}", i), w.session_timeout_ms);
    int id = world.id(zk);
    HoldListener on_hold = [&s, &zk, id](recipes::HoldEvent e) {
      s.history.note(id, zk.now(), recipes::hold_event_name(e));
    };
    auto lock = make_lock(w, zk, id, std::move(on_hold));
    if (!lock) return false;
    bool write = i % 3 == 0;  // read/write locks: every third client writes
    world.spawn(zk, lock_client(zk, id, w, s, std::move(lock), write));
  }
  return true;
}

}  // namespace zksim::scenarios::detail
