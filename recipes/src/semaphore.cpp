#include "zksim/recipes/semaphore.h"

#include "contender.h"

#include <algorithm>

namespace zksim::recipes {

Semaphore::Semaphore(Client& zk, std::string dir, int leases, HoldListener on_hold)
    : zk_(zk),
      leases_dir_(detail::join(dir, kLeases)),
      leases_(leases),
      lock_(zk, detail::join(dir, kLocks)) {
  tracker_ = std::make_unique<detail::HoldTracker>(
      zk_, std::move(on_hold), [this] { return !held_.empty(); });
}

Semaphore::~Semaphore() = default;

int Semaphore::held() const {
  return tracker_->lost() ? 0 : static_cast<int>(held_.size());
}

Task<Result<Grant>> Semaphore::acquire(TimeMs timeout_ms) {
  if (leases_ < 1) co_return Error::BadArguments;
  if (held_.empty()) tracker_->restart();
  const TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  auto locked = co_await lock_.acquire(detail::time_left(zk_, deadline));
  if (!locked) co_return locked.error();
  // Only the lock's holder waits on the leases (one waiter per change): a
  // lease made in a new session waits without it.
  const SessionId locked_in = zk_.session_id();
  // Curator's test: our node among at most N lease nodes.
  const std::size_t n = static_cast<std::size_t>(leases_);
  detail::Rule rule = [n](const std::vector<detail::Contender>& all,
                          std::size_t) -> std::optional<std::string> {
    if (all.size() <= n) return std::nullopt;
    return std::string();
  };
  detail::Markers markers{kMarker};
  auto made =
      co_await detail::contend(zk_, leases_dir_, std::move(markers), 0, "", std::move(rule), deadline, locked_in);
  const SessionId granted_in = zk_.session_id();
  co_await lock_.release();
  if (!made) co_return made.error();
  // Releasing the lock took a round trip. A lease is granted only while
  // still connected in the session that holds its node; otherwise it is
  // given back, as Curator's acquire fails when its lock's release does: a
  // session that ended meanwhile took the node with it, and a broken
  // connection may be that session ending unseen.
  if (zk_.session_id() != granted_in || zk_.state() != SessionState::Connected) {
    auto gone = co_await detail::delete_surely(zk_, made->path);
    if (!gone || zk_.session_id() != granted_in) co_return Error::SessionExpired;
    co_return Error::ConnectionLoss;
  }
  held_.push_back(Grant{made->path, made->czxid});
  co_return held_.back();
}

Task<Result<void>> Semaphore::release(Grant lease) {
  auto it = std::find_if(held_.begin(), held_.end(),
                         [&](const Grant& g) { return g.node == lease.node; });
  if (it == held_.end()) co_return Error::BadArguments;
  std::string node = it->node;
  held_.erase(it);
  co_await detail::delete_surely(zk_, node);
  co_return Result<void>();
}

}  // namespace zksim::recipes
