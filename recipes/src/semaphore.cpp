#include "zksim/recipes/semaphore.h"

#include "contender.h"

#include <algorithm>

namespace zksim::recipes {

Semaphore::Semaphore(Client& zk, std::string dir, int leases, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)), leases_(leases) {
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
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  const std::size_t n = static_cast<std::size_t>(leases_);
  detail::Rule rule = [n](const std::vector<detail::Contender>& all,
                          std::size_t me) -> std::optional<std::string> {
    if (me < n) return std::nullopt;
    return all[me - n].name;
  };
  detail::Markers markers{kMarker};
  auto made = co_await detail::contend(zk_, dir_, markers, 0, "", rule, deadline);
  if (!made) co_return made.error();
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
