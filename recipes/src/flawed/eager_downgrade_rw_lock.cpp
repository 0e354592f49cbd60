#include "zksim/recipes/flawed/eager_downgrade_rw_lock.h"

#include "contender.h"
#include "zksim/recipes/rw_lock.h"

#include <utility>

namespace zksim::recipes::flawed {

namespace {
constexpr std::size_t kRead = 0, kWrite = 1;
}

EagerDowngradeReadWriteLock::EagerDowngradeReadWriteLock(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)) {
  tracker_ = std::make_unique<detail::HoldTracker>(
      zk_, std::move(on_hold), [this] { return read_.count > 0 || write_.count > 0; });
}

EagerDowngradeReadWriteLock::~EagerDowngradeReadWriteLock() = default;

bool EagerDowngradeReadWriteLock::holds(const Side& s) const { return s.count > 0 && !tracker_->lost(); }

Task<Result<Grant>> EagerDowngradeReadWriteLock::acquire_read(TimeMs timeout_ms) {
  return acquire(read_, kRead, timeout_ms);
}
Task<Result<Grant>> EagerDowngradeReadWriteLock::acquire_write(TimeMs timeout_ms) {
  if (read_.count > 0 && write_.count == 0) {
    return [](Error e) -> Task<Result<Grant>> { co_return e; }(Error::BadArguments);
  }
  return acquire(write_, kWrite, timeout_ms);
}
Task<Result<void>> EagerDowngradeReadWriteLock::release_read() { return release(read_); }
// The flaw: the write node goes at once, even under a read still held.
Task<Result<void>> EagerDowngradeReadWriteLock::release_write() { return release(write_); }

Task<Result<Grant>> EagerDowngradeReadWriteLock::acquire(Side& side, std::size_t kind, TimeMs timeout_ms) {
  if (side.count > 0) {
    if (!holds(side)) co_return Error::SessionExpired;
    ++side.count;
    co_return *side.grant;
  }
  if (side.acquiring) co_return Error::BadArguments;
  // A read under a write lost with its session would be granted as a
  // downgrade, ahead of writers queued since: refused like the write.
  if (kind == kRead && write_.count > 0 && !holds(write_)) co_return Error::SessionExpired;
  if (read_.count == 0 && write_.count == 0) tracker_->restart();
  side.acquiring = true;
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  detail::Rule rule;
  if (kind == kRead) {
    rule = [holding_write = write_.count > 0](const std::vector<detail::Contender>& all,
                                               std::size_t me) -> std::optional<std::string> {
      if (holding_write) return std::nullopt;
      for (std::size_t i = me; i-- > 0;) {
        if (all[i].kind == kWrite) return all[i].name;
      }
      return std::nullopt;
    };
  } else {
    rule = detail::predecessor_rule();
  }
  detail::Markers markers{ReadWriteLock::kReadMarker, ReadWriteLock::kWriteMarker};
  auto made = co_await detail::contend(zk_, dir_, markers, kind, "", rule, deadline);
  side.acquiring = false;
  if (!made) co_return made.error();
  side.grant = Grant{made->path, made->czxid};
  side.count = 1;
  co_return *side.grant;
}

Task<Result<void>> EagerDowngradeReadWriteLock::release(Side& side) {
  if (side.count == 0) co_return Error::BadArguments;
  if (tracker_->lost()) side.count = 1;
  if (--side.count > 0) co_return Result<void>();
  std::string node = side.grant->node;
  side.grant.reset();
  co_await detail::delete_surely(zk_, node);
  co_return Result<void>();
}

}  // namespace zksim::recipes::flawed
