#include "zksim/recipes/lock.h"

#include "contender.h"

namespace zksim::recipes {

Lock::Lock(Client& zk, std::string dir, LockOptions options)
    : zk_(zk), dir_(std::move(dir)), options_(std::move(options)) {
  tracker_ = std::make_unique<detail::HoldTracker>(
      zk_, options_.on_hold, [this] { return count_ > 0; });
}

Lock::~Lock() = default;

bool Lock::holds() const {
  return count_ > 0 && !tracker_->lost();
}

bool Lock::suspended() const { return holds() && tracker_->suspended(); }

Task<Result<Grant>> Lock::acquire(TimeMs timeout_ms) {
  if (count_ > 0) {
    if (!holds()) co_return Error::SessionExpired;
    ++count_;
    co_return *grant_;
  }
  if (acquiring_) co_return Error::BadArguments;
  tracker_->restart();
  acquiring_ = true;
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  detail::Markers markers{options_.name};
  auto made = co_await detail::contend(zk_, dir_, std::move(markers), 0, options_.data, detail::predecessor_rule(), deadline);
  acquiring_ = false;
  if (!made) co_return made.error();
  grant_ = Grant{std::move(made->path), made->czxid};
  count_ = 1;
  co_return *grant_;
}

Task<Result<void>> Lock::release() {
  if (count_ == 0) co_return Error::BadArguments;
  if (tracker_->lost()) count_ = 1;  // nothing is held any more: one release ends it
  if (--count_ > 0) co_return Result<void>();
  std::string node = std::move(grant_->node);
  grant_.reset();
  auto gone = co_await detail::delete_surely(zk_, std::move(node));
  (void)gone;  // SessionExpired and the like: the ephemeral went with the session
  co_return Result<void>();
}

}  // namespace zksim::recipes
