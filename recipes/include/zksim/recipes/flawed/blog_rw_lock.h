// FLAWED ON PURPOSE — teaching material; do not use.
//
// The read/write lock of the blog post "java通过zookeeper实现分布式锁"
// (../shared/seeds/000_*), transcribed as written: nodes "lock-r-<seq>" and
// "lock-w-<seq>" under one directory; a contender is granted if its node is
// the first in getChildren's list, or if none of the names before it
// contains "w" — waiting, otherwise, on one CountDownLatch shared by the
// whole process, which the watcher opens on a NodeDeleted event.
//
// Its bugs, and the properties they break:
//  - As written, the search for our own position appends each child name to
//    the directory path without a '/' and never resets it, so it never
//    matches: every contender is granted at once. Breaks mutual exclusion
//    (and read/write exclusion). [Transcription::AsWritten]
//  - With that typo fixed [Transcription::IndexFixed], three more show:
//    * it trusts getChildren to come back sorted (ZooKeeper does not sort):
//      a later node listed first is granted while the holder holds — mutual
//      exclusion;
//    * a writer only waits for earlier *writers* ("contains w"), so it is
//      granted while readers hold — read/write exclusion;
//    * the latch waits for NodeDeleted, but the only watch set is a child
//      watch, which delivers NodeChildrenChanged: a waiter waits forever —
//      liveness. (And after any wake-up, `continue` resumes the for loop
//      instead of re-checking: a woken waiter is granted without looking.)
// The timeout arguments exist for the harness and are ignored, as the blog
// has none.
//
//   BlogReadWriteLock rw(zk, "/zk_lock/etl_lock");        // same calls as ReadWriteLock
//   if (co_await rw.acquire_write()) { ++num; co_await rw.release_write(); }
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/lock.h"

#include <string>

namespace zksim::recipes::flawed {

class BlogReadWriteLock {
 public:
  enum class Transcription { AsWritten, IndexFixed };
  BlogReadWriteLock(Client& zk, std::string dir, Transcription t = Transcription::AsWritten);

  Task<Result<Grant>> acquire_read(TimeMs timeout_ms = -1);
  Task<Result<void>> release_read();
  Task<Result<Grant>> acquire_write(TimeMs timeout_ms = -1);
  Task<Result<void>> release_write();
  bool holds_read() const { return !read_.empty(); }
  bool holds_write() const { return !write_.empty(); }

 private:
  Task<Result<Grant>> lock(std::string prefix);
  Client& zk_;
  std::string dir_;
  Transcription transcription_;
  Signal latch_;  // the process-wide lockSemaphore
  std::string read_, write_;
};

}  // namespace zksim::recipes::flawed
