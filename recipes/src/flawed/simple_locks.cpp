#include "zksim/recipes/flawed/simple_locks.h"

#include "../contender.h"

namespace zksim::recipes::flawed {

namespace {

const detail::Markers& lock_markers() {
  static const detail::Markers m{"lock-"};
  return m;
}

}  // namespace

Task<Result<void>> OneNodeLock::release() { return detail::release_grant(zk_, grant_); }

Task<Result<Grant>> HerdLock::acquire(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  std::string prefix = "_c_" + zk_.unique_id() + "-lock-";
  auto made = co_await detail::create_protected(zk_, dir_, prefix, "", CreateMode::EphemeralSequential);
  if (!made) co_return made.error();
  std::string name = made->path.substr(made->path.rfind('/') + 1);
  for (;;) {
    // The herd: a child watch on the directory, for every waiter.
    Signal changed;
    auto all = co_await detail::contenders(zk_, dir_, lock_markers(), signal_watcher(changed));
    if (!all) co_return all.error();
    if (!all->empty() && all->front().name == name) {
      grant_ = Grant{made->path, made->czxid};
      co_return *grant_;
    }
    TimeMs left = detail::time_left(zk_, deadline);
    if (!co_await zk_.wait_for(changed, left)) {
      co_await detail::delete_surely(zk_, made->path);
      co_return Error::OperationTimeout;
    }
  }
}


Task<Result<Grant>> NoGuidLock::acquire(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  detail::Created made;
  for (;;) {
    // The bug: after ConnectionLoss, just create again.
    auto r = co_await zk_.create(detail::join(dir_, "lock-"), "", CreateMode::EphemeralSequential);
    if (r) {
      made = detail::Created{r->path, r->stat.czxid};
      break;
    }
    if (r.error() == Error::NoNode) {
      auto parent = co_await detail::ensure_path(zk_, dir_);
      if (!parent) co_return parent.error();
      continue;
    }
    if (r.error() != Error::ConnectionLoss) co_return r.error();
  }
  std::string name = made.path.substr(made.path.rfind('/') + 1);
  auto turn = co_await detail::wait_turn(zk_, dir_, name, lock_markers(), detail::predecessor_rule(), deadline,
                                            zk_.session_id());
  if (!turn) {
    co_await detail::delete_surely(zk_, made.path);
    co_return turn.error();
  }
  grant_ = Grant{made.path, made.czxid};
  co_return *grant_;
}

Task<Result<Grant>> UnsyncedProtectedLock::acquire(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  const std::string prefix = "_c_" + zk_.unique_id() + "-" + lock_markers().front();
  const SessionId made_in = zk_.session_id();
  std::optional<detail::Created> made;
  while (!made) {
    auto r = co_await zk_.create(detail::join(dir_, prefix), "", CreateMode::EphemeralSequential);
    if (r) {
      made = detail::Created{r->path, r->stat.czxid};
      break;
    }
    if (r.error() == Error::NoNode) {
      auto parent = co_await detail::ensure_path(zk_, dir_);
      if (!parent) co_return parent.error();
      continue;
    }
    if (r.error() != Error::ConnectionLoss) co_return r.error();
    // The flaw: no sync before looking (find_own has one).
    Result<ChildrenResponse> listed = Error::ConnectionLoss;
    while (!listed && listed.error() == Error::ConnectionLoss) listed = co_await zk_.get_children(dir_);
    if (!listed) co_return listed.error();
    for (const std::string& c : listed->children) {
      if (!c.starts_with(prefix)) continue;
      const std::string path = detail::join(dir_, c);
      Result<Stat> st = Error::ConnectionLoss;
      while (!st && st.error() == Error::ConnectionLoss) st = co_await zk_.exists(path);
      if (st) made = detail::Created{path, st->czxid};
    }
  }
  std::string name = made->path.substr(made->path.rfind('/') + 1);
  auto turn = co_await detail::wait_turn(zk_, dir_, name, lock_markers(), detail::predecessor_rule(), deadline,
                                         made_in == SessionId{} ? zk_.session_id() : made_in);
  if (!turn) {
    co_await detail::delete_surely(zk_, made->path);
    co_return turn.error();
  }
  grant_ = Grant{made->path, made->czxid};
  co_return *grant_;
}

Task<Result<Grant>> OneNodeLock::acquire_in_turn(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  auto made = co_await detail::contend(zk_, dir_, lock_markers(), 0, "", detail::predecessor_rule(), deadline);
  if (!made) co_return made.error();
  grant_ = Grant{made->path, made->czxid};
  co_return *grant_;
}

Task<Result<Grant>> ForgetfulLock::acquire(TimeMs timeout_ms) { return acquire_in_turn(timeout_ms); }

Task<Result<Grant>> StubbornUnlockLock::acquire(TimeMs timeout_ms) { return acquire_in_turn(timeout_ms); }

Task<Result<void>> StubbornUnlockLock::release() {
  if (!grant_) co_return Error::BadArguments;
  std::string node = grant_->node;
  grant_.reset();
  // The bug: every error is taken for a passing one.
  while (!co_await zk_.remove(node)) {
  }
  co_return Result<void>();
}

}  // namespace zksim::recipes::flawed
