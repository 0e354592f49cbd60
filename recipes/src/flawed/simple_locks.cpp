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


namespace {

// Creates an ephemeral sequential node named `prefix` under `dir`, making
// `dir` if it is missing; any other error, ConnectionLoss included, is the
// caller's to judge.
Task<Result<detail::Created>> create_node(Client& zk, std::string dir, std::string prefix) {
  for (;;) {
    auto r = co_await zk.create(detail::join(dir, prefix), "", CreateMode::EphemeralSequential);
    if (r) co_return detail::Created{r->path, r->stat.czxid};
    if (r.error() != Error::NoNode) co_return r.error();
    auto parent = co_await detail::ensure_path(zk, dir);
    if (!parent) co_return parent.error();
  }
}

// Waits for `made`'s turn as Lock does (watching the predecessor); deletes
// it if the wait fails.
Task<Result<void>> wait_in_turn(Client& zk, std::string dir, detail::Created made, TimeMs deadline,
                                SessionId made_in) {
  std::string name = made.path.substr(made.path.rfind('/') + 1);
  auto turn = co_await detail::wait_turn(zk, dir, name, lock_markers(), detail::predecessor_rule(), deadline, made_in);
  if (!turn) {
    co_await detail::delete_surely(zk, made.path);
    co_return turn.error();
  }
  co_return Result<void>();
}

}  // namespace

Task<Result<Grant>> NoGuidLock::acquire(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  for (;;) {
    auto made = co_await create_node(zk_, dir_, "lock-");
    // The bug: after ConnectionLoss, just create again.
    if (!made && made.error() == Error::ConnectionLoss) continue;
    if (!made) co_return made.error();
    auto turn = co_await wait_in_turn(zk_, dir_, *made, deadline, zk_.session_id());
    if (!turn) co_return turn.error();
    grant_ = Grant{made->path, made->czxid};
    co_return *grant_;
  }
}

Task<Result<Grant>> UnsyncedProtectedLock::acquire(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  const std::string prefix = "_c_" + zk_.unique_id() + "-" + lock_markers().front();
  const SessionId made_in = zk_.session_id();
  std::optional<detail::Created> made;
  while (!made) {
    auto r = co_await create_node(zk_, dir_, prefix);
    if (r) {
      made = *r;
      break;
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
  auto turn = co_await wait_in_turn(zk_, dir_, *made, deadline, made_in == SessionId{} ? zk_.session_id() : made_in);
  if (!turn) co_return turn.error();
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
