#include "zksim/recipes/rw_lock.h"

#include "contender.h"

#include <algorithm>

#include <utility>

namespace zksim::recipes {

namespace {
constexpr std::size_t kRead = 0, kWrite = 1;
}

ReadWriteLock::ReadWriteLock(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), dir_(std::move(dir)) {
  tracker_ = std::make_unique<detail::HoldTracker>(
      zk_, std::move(on_hold), [this] { return read_.count > 0 || write_.count > 0; });
}

ReadWriteLock::~ReadWriteLock() = default;

bool ReadWriteLock::holds(const Side& s) const {
  return s.count > 0 && !tracker_->lost();
}

Task<Result<Grant>> ReadWriteLock::acquire_read(TimeMs timeout_ms) {
  return acquire(read_, kRead, timeout_ms);
}
Task<Result<Grant>> ReadWriteLock::acquire_write(TimeMs timeout_ms) {
  if (read_.count > 0 && write_.count == 0) {
    return [](Error e) -> Task<Result<Grant>> { co_return e; }(Error::BadArguments);
  }
  return acquire(write_, kWrite, timeout_ms);
}
Task<Result<void>> ReadWriteLock::release_read() {
  auto done = co_await release(read_);
  if (done && read_.count == 0 && !deferred_write_.empty()) {
    std::string node = std::exchange(deferred_write_, {});
    co_await detail::delete_surely(zk_, node);
  }
  co_return done;
}

Task<Result<void>> ReadWriteLock::release_write() {
  if (write_.count == 1 && read_.count > 0 && !tracker_->lost()) {
    write_.count = 0;
    deferred_write_ = write_.grant->node;
    write_.grant.reset();
    co_return Result<void>();
  }
  co_return co_await release(write_);
}

Task<Result<Grant>> ReadWriteLock::acquire(Side& side, std::size_t kind, TimeMs timeout_ms) {
  if (side.count > 0) {
    if (!holds(side)) co_return Error::SessionExpired;
    ++side.count;
    co_return *side.grant;
  }
  if (side.acquiring) co_return Error::BadArguments;
  // A read under a write lost with its session would be granted as a
  // downgrade, ahead of writers queued since: refused like the write.
  if (kind == kRead && write_.count > 0 && !holds(write_)) co_return Error::SessionExpired;
  if (read_.count == 0 && write_.count == 0) {
    tracker_->restart();
    deferred_write_.clear();
  }
  side.acquiring = true;
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  // Holding the write lock, our read is granted at once.
  std::string own_write;
  if (write_.count > 0) own_write = write_.grant->node;
  detail::Rule rule;
  if (kind == kRead) {
    // Under our write only while it is held, by the listing too: a read
    // begun just before the write's session was lost lists in the next one.
    std::string own_name = own_write.substr(own_write.rfind('/') + 1);
    rule = [this, own_name](const std::vector<detail::Contender>& all,
                            std::size_t me) -> std::optional<std::string> {
      const bool under_own_write =
          !own_name.empty() && holds(write_) &&
          std::any_of(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(me),
                      [&](const detail::Contender& c) { return c.name == own_name; });
      if (under_own_write) return std::nullopt;  // nobody else can be inside
      for (std::size_t i = me; i-- > 0;) {
        if (all[i].kind == kWrite) return all[i].name;
      }
      return std::nullopt;
    };
  } else {
    rule = [](const std::vector<detail::Contender>& all,
              std::size_t me) -> std::optional<std::string> {
      if (me == 0) return std::nullopt;
      return all[me - 1].name;
    };
  }
  detail::Markers markers{kReadMarker, kWriteMarker};
  auto made = co_await detail::contend(zk_, dir_, markers, kind, "", rule, deadline);
  side.acquiring = false;
  if (!made) co_return made.error();
  side.grant = Grant{made->path, made->czxid};
  side.count = 1;
  co_return *side.grant;
}

Task<Result<void>> ReadWriteLock::release(Side& side) {
  if (side.count == 0) co_return Error::BadArguments;
  if (tracker_->lost()) side.count = 1;
  if (--side.count > 0) co_return Result<void>();
  std::string node = side.grant->node;
  side.grant.reset();
  co_await detail::delete_surely(zk_, node);
  co_return Result<void>();
}

}  // namespace zksim::recipes
