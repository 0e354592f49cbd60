// FLAWED ON PURPOSE — teaching material; do not use.
//
// ZooKeeper's own recipe WriteLock (org.apache.zookeeper.recipes.lock, as
// quoted in ../shared/seeds/001_*): contender nodes "x-<sessionId>-<seq>",
// a predecessor watch, and contenders sorted by ZNodeName, whose compareTo
// orders by the name's prefix ("…/x-<sessionId>") *before* the sequence
// number. The post's author found the bug: the session with the smaller id
// sorts first whatever the arrival order. A contender whose session is older
// than the holder's sorts before the holder, finds nobody "less than me",
// and takes the lock while the holder still holds it.
//
// Breaks: mutual exclusion (and FIFO fairness). Kept faithful otherwise:
// the lost-reply recovery by the session-id prefix, and re-running the whole
// lock() on any watch event.
//
//   PrefixWriteLock lock(zk, "/locks/w");                   // same calls as Lock
//   if (co_await lock.acquire()) { ... co_await lock.release(); }
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/lock.h"

#include <string>

namespace zksim::recipes::flawed {

class PrefixWriteLock {
 public:
  PrefixWriteLock(Client& zk, std::string dir);
  // Waits until this contender is the owner by ZNodeName order. The timeout
  // is ignored (the recipe has none).
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  // unlock(): one delete; NoNode ignored.
  Task<Result<void>> release();
  bool holds() const { return owner_; }

  // ZNodeName::compareTo of ZooKeeper's recipe: < 0 when `a` sorts first.
  static int compare_names(const std::string& a, const std::string& b);

 private:
  Client& zk_;
  std::string dir_;
  std::string id_;  // our node's full path, once created
  std::int64_t czxid_ = 0;
  bool owner_ = false;
};

}  // namespace zksim::recipes::flawed
