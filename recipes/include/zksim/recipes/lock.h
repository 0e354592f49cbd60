// The exclusive lock, ZooKeeper's recipe done right (after Curator's
// InterProcessMutex): each attempt creates an ephemeral-sequential contender
// node named "_c_<unique id>-<name><seq>" under `dir`; the lowest sequence
// number holds; every other contender watches only its immediate
// predecessor (no herd). The unique id lets an attempt whose create reply
// was lost find its node again instead of leaving an orphan. Order is by
// sequence number, correct across the 2^31 wrap (ties, when ZooKeeper
// repeats 2147483647, by creation zxid).
//
//   zksim::recipes::Lock lock(zk, "/locks/printer");
//   auto grant = co_await lock.acquire(5000);      // ms; -1 waits forever
//   if (!grant) co_return;                         // OperationTimeout, SessionExpired, ...
//   co_await printer.write(grant->fence, job);     // reject older fences there
//   co_await lock.release();
//
// A Lock object is one owner: acquiring it again while holding only counts
// (reentrancy); release() deletes the node when the count reaches zero.
// The holder is told (HoldListener) when its session is suspended (it may
// no longer hold) and when it is lost (it does not); holds() turns false on
// loss. Use the fence, the contender node's czxid, to make a resource
// refuse a holder that no longer holds.
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"

#include <memory>
#include <optional>
#include <string>

namespace zksim::recipes {

namespace detail {
class HoldTracker;
}

struct LockOptions {
  std::string name = "lock-";  // the node-name marker before the sequence number
  std::string data;            // stored in the contender node
  HoldListener on_hold;        // session news while holding
};

// A granted lock: the contender node and its fencing token.
struct Grant {
  std::string node;       // full path of our contender node
  std::int64_t fence = 0; // the node's czxid: grows with every new grant
};

class Lock {
 public:
  Lock(Client& zk, std::string dir, LockOptions options = {});
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  // Waits until granted, or `timeout_ms` passes (negative: forever). On any
  // failure our contender node is deleted (if the session still lives); on
  // a timeout, first our watch on the predecessor, unless another waiter
  // through the same Client watches it too.
  // Errors: OperationTimeout; SessionExpired / InvalidState / Closing (the
  // session ended); NoNode (our node was deleted by someone else);
  // BadArguments (another acquire of this Lock is still waiting); and
  // errors creating `dir` (e.g. NoAuth).
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  // One release per successful acquire. The last one deletes the node,
  // retrying across connection losses; Ok also when the session already
  // ended (the node went with it). BadArguments when not held.
  Task<Result<void>> release();

  // Granted, not released, and the session not known to be lost.
  bool holds() const;
  // Holding, but disconnected: the session may be expiring.
  bool suspended() const;
  int hold_count() const { return count_; }
  const std::optional<Grant>& grant() const { return grant_; }
  const std::string& dir() const { return dir_; }

 private:
  Client& zk_;
  std::string dir_;
  LockOptions options_;
  std::optional<Grant> grant_;
  int count_ = 0;
  bool acquiring_ = false;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

}  // namespace zksim::recipes
