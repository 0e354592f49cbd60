// FLAWED ON PURPOSE — teaching material; do not use. Four exclusive locks
// that get wrong what the correct Lock (lock.h) gets right. Same interface
// as Lock.
//
// What all four get wrong (OneNodeLock below): none listens to session
// events, so a holder believes it holds from the grant until release(),
// even after its session expired and the server gave the lock to the next
// contender. So each breaks mutual exclusion as the clients believe it once
// a holder's session expires (`zksim matrix` shows it for each under
// expire-session); a fenced resource still refuses the stale holder.
// ForgetfulLock has only this bug; the other three have one more each, the
// one flawed_recipes() names them for.
//
// HerdLock — every waiter sets a child watch on the lock directory and
// re-lists on every change, instead of watching its predecessor (the
// "herd effect" the ZooKeeper recipes page warns about): each release wakes
// every waiter. Breaks: herd-effect freedom.
//
// NoGuidLock — contender nodes carry no unique id, so a create whose reply
// was lost (applied, then ConnectionLoss) is simply created again: the first
// node becomes an orphan owned by our own live session. Our new node then
// waits behind our orphan, forever, and so does everyone after us. Breaks:
// liveness, and leaves a leaked node (until the session ends). The bug
// Curator's "protection" mode exists for.
//
// UnsyncedProtectedLock — a protected create as Curator ships it
// (CreateBuilderImpl.findProtectedNodeInForeground): after a lost reply it
// lists the directory to find its node by its GUID, without a sync. On an
// ensemble the server it reconnected to may not have applied the create
// yet (the client never saw its zxid), so it creates a second node and the
// first one, owned by its own live session, blocks everyone behind it.
// Correct on one server. Breaks: liveness and no-leaks on an ensemble.
//
// StubbornUnlockLock — acquires correctly, but release() deletes its node
// again and again until a delete returns Ok, whatever the error: once a
// delete was applied and its reply lost, every retry gets NoNode, and once
// the session expired every retry gets InvalidState at once. The release
// never returns and the client never stops sending (the retry-on-any-error
// loop that ZooKeeper's docs warn about: NoNode and SessionExpired are not
// retryable). Breaks: the run never ends (runaway).
//
// ForgetfulLock — acquires correctly and has only the bug all four share:
// once granted it believes it holds until release(). Breaks: mutual
// exclusion as the clients believe it.
//
//   HerdLock lock(zk, "/locks/a");                          // same calls as Lock
//   if (auto g = co_await lock.acquire()) { ... co_await lock.release(); }
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/lock.h"

#include <optional>
#include <string>

namespace zksim::recipes::flawed {

// What the four share: one contender node, deleted by release(). holds()
// is true from the grant until release(), whatever happened to the session.
class OneNodeLock {
 public:
  Task<Result<void>> release();
  bool holds() const { return grant_.has_value(); }

 protected:
  OneNodeLock(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}
  // Acquires as Lock does (protected create, watch the predecessor).
  Task<Result<Grant>> acquire_in_turn(TimeMs timeout_ms);
  Client& zk_;
  std::string dir_;
  std::optional<Grant> grant_;
};

class HerdLock : public OneNodeLock {
 public:
  HerdLock(Client& zk, std::string dir) : OneNodeLock(zk, std::move(dir)) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
};

class NoGuidLock : public OneNodeLock {
 public:
  NoGuidLock(Client& zk, std::string dir) : OneNodeLock(zk, std::move(dir)) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
};

class UnsyncedProtectedLock : public OneNodeLock {
 public:
  UnsyncedProtectedLock(Client& zk, std::string dir) : OneNodeLock(zk, std::move(dir)) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
};

class StubbornUnlockLock : public OneNodeLock {
 public:
  StubbornUnlockLock(Client& zk, std::string dir) : OneNodeLock(zk, std::move(dir)) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  Task<Result<void>> release();
};

class ForgetfulLock : public OneNodeLock {
 public:
  ForgetfulLock(Client& zk, std::string dir) : OneNodeLock(zk, std::move(dir)) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
};

}  // namespace zksim::recipes::flawed
