#include "zksim/recipes/flawed/eager_downgrade_rw_lock.h"

#include "../contender.h"

#include <utility>

namespace zksim::recipes::flawed {

EagerDowngradeReadWriteLock::EagerDowngradeReadWriteLock(Client& zk, std::string dir, HoldListener on_hold)
    : zk_(zk), rw_(zk, std::move(dir), std::move(on_hold)) {}

Task<Result<Grant>> EagerDowngradeReadWriteLock::acquire_write(TimeMs timeout_ms) {
  auto granted = co_await rw_.acquire_write(timeout_ms);
  if (granted) write_node_ = granted->node;
  co_return granted;
}

Task<Result<void>> EagerDowngradeReadWriteLock::release_write() {
  auto done = co_await rw_.release_write();
  // The flaw: ReadWriteLock keeps a write node released under a read it
  // still holds until that read is released; this deletes it at once.
  if (done && !rw_.holds_write() && rw_.holds_read()) co_await detail::delete_surely(zk_, write_node_);
  co_return done;
}

}  // namespace zksim::recipes::flawed
