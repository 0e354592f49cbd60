// FLAWED ON PURPOSE — teaching material; do not use.
//
// A read/write lock whose downgrade admits a writer. It is ReadWriteLock
// (rw_lock.h) in every respect but one: holding the write lock and the read
// lock taken under it, release_write deletes the write node at once. The
// read node was created after every writer already queued, so the writer
// next in line, which waited for our write node, now finds itself first
// and is granted while we still read. (Curator's InterProcessReadWriteLock
// avoids this the same way ReadWriteLock does: the read taken under the
// write is ordered as if it came first, so releasing the write cannot let
// a queued writer past it.)
//
// Breaks: read/write exclusion, and only in a workload that downgrades
// (Workload::varied).
//
//   EagerDowngradeReadWriteLock rw(zk, "/locks/table");     // same calls as ReadWriteLock
//   co_await rw.acquire_write(); co_await rw.acquire_read();
//   co_await rw.release_write();  // a queued writer is granted here
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/rw_lock.h"

#include <string>

namespace zksim::recipes::flawed {

class EagerDowngradeReadWriteLock {
 public:
  EagerDowngradeReadWriteLock(Client& zk, std::string dir, HoldListener on_hold = {});

  Task<Result<Grant>> acquire_read(TimeMs timeout_ms = -1) { return rw_.acquire_read(timeout_ms); }
  Task<Result<void>> release_read() { return rw_.release_read(); }
  Task<Result<Grant>> acquire_write(TimeMs timeout_ms = -1);
  Task<Result<void>> release_write();
  bool holds_read() const { return rw_.holds_read(); }
  bool holds_write() const { return rw_.holds_write(); }

 private:
  Client& zk_;
  ReadWriteLock rw_;
  std::string write_node_;  // the node of the write lock last granted
};

}  // namespace zksim::recipes::flawed
