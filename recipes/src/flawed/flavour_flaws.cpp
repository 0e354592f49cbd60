#include "zksim/recipes/flawed/flavour_flaws.h"

#include "../contender.h"
#include "../watching.h"
#include "zksim/path.h"

#include <algorithm>
#include <functional>
#include <memory>

namespace zksim::recipes::flawed {

namespace {

const detail::Markers& election_markers() {
  static const detail::Markers m{"n_"};
  return m;
}

// How a lock_loop waits for its predecessor: `watcher` gives the watcher
// to set on the predecessor's node; `wake_on`, called once getData has
// returned, what to wait for.
struct PredecessorWait {
  std::function<Watcher()> watcher;
  std::function<Signal()> wake_on;
};

// Curator's LockInternals.internalLockLoop, as the flawed locks below have
// it: a protected ephemeral-sequential node, granted when first, else a
// wait for the node just before it.
Task<Result<Grant>> lock_loop(Client& zk, std::string dir, TimeMs timeout_ms, PredecessorWait how) {
  const TimeMs deadline = detail::deadline_after(zk, timeout_ms);
  std::string prefix = "_c_" + zk.unique_id() + "-lock-";
  auto made = co_await detail::create_protected(zk, dir, prefix, "", CreateMode::EphemeralSequential);
  if (!made) co_return made.error();
  const std::string name(name_of(made->path));
  for (;;) {
    detail::Markers markers{"lock-"};
    auto all = co_await detail::contenders(zk, dir, std::move(markers));
    if (!all) co_return all.error();
    auto me = std::find_if(all->begin(), all->end(), [&](const detail::Contender& c) { return c.name == name; });
    if (me == all->end()) co_return Error::NoNode;
    if (me == all->begin()) co_return Grant{made->path, made->czxid};
    std::string ahead = detail::join(dir, (me - 1)->name);
    auto watched = co_await zk.get_data(std::move(ahead), how.watcher());
    if (!watched && watched.error() != Error::NoNode && watched.error() != Error::ConnectionLoss) {
      co_return watched.error();
    }
    if (!watched) continue;
    if (!co_await zk.wait_for(how.wake_on(), detail::time_left(zk, deadline))) {
      co_await detail::delete_surely(zk, made->path);
      co_return Error::OperationTimeout;
    }
  }
}

}  // namespace

// Java's notifyAll() on a monitor nobody holds: it wakes those waiting
// now, and nobody who starts waiting later.
class Monitor {
 public:
  // What a wait() that starts now waits for.
  Signal next() const { return current_; }
  void notify_all() {
    current_.set();
    current_ = Signal();
  }

 private:
  Signal current_;
};

// --- StaleNodeElection ---

StaleNodeElection::StaleNodeElection(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)), prefix_("_c_" + zk.unique_id() + "-n_") {
  tracker_ = std::make_unique<detail::HoldTracker>(zk_, std::move(on_hold), [this] { return grant_.has_value(); });
}

StaleNodeElection::~StaleNodeElection() = default;

bool StaleNodeElection::is_leader() const { return grant_.has_value() && !tracker_->lost(); }

Task<Result<Grant>> StaleNodeElection::campaign(TimeMs timeout_ms) {
  tracker_->restart();
  const TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  for (;;) {
    // The flaw: a node with our id is taken for ours, whichever session made it.
    auto found = co_await detail::find_own(zk_, dir_, prefix_);
    if (!found && found.error() != Error::SessionExpired) co_return found.error();
    std::string node = found && *found ? (*found)->path : std::string();
    if (node.empty()) {
      auto made = co_await detail::create_protected(zk_, dir_, prefix_, "", CreateMode::EphemeralSequential);
      if (!made && made.error() == Error::SessionExpired) continue;
      if (!made) co_return made.error();
      node = made->path;
    }
    std::string name(name_of(node));
    auto turn = co_await detail::wait_turn(zk_, dir_, std::move(name), election_markers(), detail::predecessor_rule(), deadline,
                                            SessionId{});
    if (turn) {
      auto st = co_await zk_.exists(node);
      grant_ = Grant{node, st ? st->czxid : 0};
      co_return *grant_;
    }
    // Lost with the session, or gone: try again, as kazoo's retry does.
    if (turn.error() == Error::SessionExpired || turn.error() == Error::NoNode) continue;
    co_await detail::delete_surely(zk_, node);
    co_return turn.error();
  }
}

Task<Result<void>> StaleNodeElection::resign() { return detail::release_grant(zk_, grant_); }

// --- NodeEventsOnlyLock ---

NodeEventsOnlyLock::NodeEventsOnlyLock(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)) {
  tracker_ = std::make_unique<detail::HoldTracker>(zk_, std::move(on_hold), [this] { return grant_.has_value(); });
}

NodeEventsOnlyLock::~NodeEventsOnlyLock() = default;

bool NodeEventsOnlyLock::holds() const { return grant_.has_value() && !tracker_->lost(); }

Task<Result<Grant>> NodeEventsOnlyLock::acquire(TimeMs timeout_ms) {
  tracker_->restart();
  Signal deleted;
  PredecessorWait how{
      // The flaw: it trusts the library to set the watch again after a
      // reconnect, so of the session events it heeds only Expired.
      .watcher =
          [&deleted] {
            deleted = Signal();
            return Watcher([deleted](const WatchedEvent& e) mutable {
              if (e.type != EventType::None || e.state == KeeperState::Expired) deleted.set();
            });
          },
      .wake_on = [&deleted] { return deleted; },
  };
  auto got = co_await lock_loop(zk_, dir_, timeout_ms, std::move(how));
  if (got) grant_ = *got;
  co_return got;
}

Task<Result<void>> NodeEventsOnlyLock::release() { return detail::release_grant(zk_, grant_); }

// --- UnsyncedBarrier ---

// The flaw: it looks without a sync first (Barrier::wait syncs).
Task<Result<void>> UnsyncedBarrier::wait(TimeMs timeout_ms) {
  return detail::wait_until_gone(zk_, path_, timeout_ms, detail::SyncFirst::No);
}

// --- SessionEventBarrier ---

Task<Result<void>> SessionEventBarrier::wait(TimeMs timeout_ms) {
  for (;;) {
    Signal changed;
    auto st = co_await zk_.exists(path_, signal_watcher(changed));
    if (!st && st.error() == Error::NoNode) co_return Result<void>();
    if (!st && st.error() == Error::ConnectionLoss) continue;
    if (!st) co_return st.error();
    // The flaw: any call of the watcher is taken for the barrier's removal.
    if (!co_await zk_.wait_for(changed, timeout_ms)) co_return Error::OperationTimeout;
    co_return Result<void>();
  }
}


// --- UnsynchronizedWaitLock ---

UnsynchronizedWaitLock::UnsynchronizedWaitLock(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)), monitor_(std::make_shared<Monitor>()) {
  tracker_ = std::make_unique<detail::HoldTracker>(zk_, std::move(on_hold), [this] { return grant_.has_value(); });
}

UnsynchronizedWaitLock::~UnsynchronizedWaitLock() = default;

bool UnsynchronizedWaitLock::holds() const { return grant_.has_value() && !tracker_->lost(); }

Task<Result<Grant>> UnsynchronizedWaitLock::acquire(TimeMs timeout_ms) {
  tracker_->restart();
  PredecessorWait how{
      .watcher = [m = monitor_] { return Watcher([m](const WatchedEvent&) { m->notify_all(); }); },
      // The flaw: the wait starts only now, after getData returned, and
      // nothing holds the notify back until it has.
      .wake_on = [m = monitor_] { return m->next(); },
  };
  auto got = co_await lock_loop(zk_, dir_, timeout_ms, std::move(how));
  if (got) grant_ = *got;
  co_return got;
}

Task<Result<void>> UnsynchronizedWaitLock::release() { return detail::release_grant(zk_, grant_); }

}  // namespace zksim::recipes::flawed
