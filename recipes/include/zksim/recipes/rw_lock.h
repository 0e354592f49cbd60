// The shared read/write lock (ZooKeeper's "shared locks" recipe, after
// Curator's InterProcessReadWriteLock). Readers and writers create
// ephemeral-sequential nodes "…read-<seq>" and "…write-<seq>" in one
// directory; grants follow sequence order. A reader holds once no writer
// node precedes its own and waits for the last writer before it; a writer
// holds once its node is first and waits for the node just before it. So
// each deletion wakes only those it unblocks.
//
//   zksim::recipes::ReadWriteLock rw(zk, "/locks/table");
//   if (auto g = co_await rw.acquire_read()) {
//     ... read ...
//     co_await rw.release_read();
//   }
//
// One object is one owner. Holding the write lock, it may take the read
// lock too (a downgrade): the read node is granted at once. Releasing the
// write lock then keeps the write node until the read lock is released as
// well, so no writer queued in between slips in while we still read.
// Taking the write lock while holding only the read lock would deadlock,
// and is refused.
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <memory>
#include <optional>
#include <string>

namespace zksim::recipes {

class ReadWriteLock {
 public:
  ReadWriteLock(Client& zk, std::string dir, HoldListener on_hold = {});
  ~ReadWriteLock();
  ReadWriteLock(const ReadWriteLock&) = delete;
  ReadWriteLock& operator=(const ReadWriteLock&) = delete;

  // Errors as Lock::acquire; acquire_write also gives BadArguments while
  // this object holds only the read lock, and acquire_read SessionExpired
  // while it holds a write lock lost with its session (release it first).
  Task<Result<Grant>> acquire_read(TimeMs timeout_ms = -1);
  Task<Result<void>> release_read();
  Task<Result<Grant>> acquire_write(TimeMs timeout_ms = -1);
  Task<Result<void>> release_write();

  bool holds_read() const { return holds(read_); }
  bool holds_write() const { return holds(write_); }
  // The markers of the nodes' names, for the harness and the checkers.
  static constexpr const char* kReadMarker = "read-";
  static constexpr const char* kWriteMarker = "write-";

 private:
  struct Side {
    std::optional<Grant> grant;
    int count = 0;
    bool acquiring = false;
  };
  bool holds(const Side& s) const;
  Task<Result<Grant>> acquire(Side& side, std::size_t kind, TimeMs timeout_ms);
  Task<Result<void>> release(Side& side);

  Client& zk_;
  std::string dir_;
  Side read_, write_;
  std::string deferred_write_;  // a released write node kept while reading
  std::unique_ptr<detail::HoldTracker> tracker_;
};

}  // namespace zksim::recipes
