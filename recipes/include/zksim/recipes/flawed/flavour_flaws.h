// FLAWED ON PURPOSE — teaching material; do not use. Four recipes whose bug
// shows only with a client library that behaves a certain way (flavour.h):
// each is correct with some real client and wrong with another.
//
// StaleNodeElection — a leader election that, like kazoo's Lock
// (_find_node) and Curator's LeaderLatch before CURATOR-696, names its
// node with an id fixed for the candidate and, when its session is lost,
// retries by looking for a node with that id: a client library that opens
// a new session by itself (Curator, kazoo) can find the node its old
// session left, which the server has not yet expired, and lead with it.
// When the server expires the old session, the node goes and the next
// candidate leads too. The correct LeaderElection deletes its node and
// starts over. Breaks: one leader (Curator, whose LOST may come before
// the server expires the session).
//
// NodeEventsOnlyLock — a lock whose waiter wakes only on its predecessor's
// node event or its session's expiry, and ignores a dropped connection (as
// kazoo's Barrier and DoubleBarrier ignore every session event). With the C client and Curator, setWatches re-arms the
// watch after a reconnect and the event still comes; kazoo sends no
// setWatches, so after a dropped connection the watch is gone and the
// waiter waits forever (kazoo PR #170 fixed the same in kazoo's Lock).
// Breaks: liveness (kazoo).
//
// SessionEventBarrier — a barrier whose wait returns on the first call of
// its watcher, whatever the event: the C and Java clients call every
// watcher with each session event, so a dropped connection lets waiters
// through a raised barrier (Curator GH-1290: DistributedDoubleBarrier
// passed on a SyncConnected event); kazoo calls each watcher once when the
// connection drops. Breaks: barrier-wait (every flavour).
//
// UnsyncedBarrier — a barrier whose wait checks for the barrier node on
// the client's own server without a sync first (check-then-act on a read
// that may be stale): on an ensemble, a waiter that starts after the
// barrier was raised can read it is not there yet and pass. Correct on one
// server. Breaks: barrier-wait on an ensemble (every flavour).
//
// UnsynchronizedWaitLock — Curator's lock loop (LockInternals.
// internalLockLoop) without its `synchronized (this)`: the watcher on the
// predecessor's node calls notifyAll() on the event thread, and the
// caller's thread starts its wait() once getData has returned. With the C
// client the recipe is the completion callback and nothing runs between
// the reply and the wait; with a recipe on the caller's thread (Curator,
// kazoo) the predecessor's deletion can reach the watcher first: its
// notifyAll wakes nobody, and the waiter waits forever. Curator holds the
// monitor from before getData until wait() releases it, so the notify
// cannot come in between. Breaks: liveness (curator, kazoo).
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/barrier.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <memory>
#include <optional>
#include <string>

namespace zksim::recipes::detail {
class HoldTracker;
}

namespace zksim::recipes::flawed {

class StaleNodeElection {
 public:
  StaleNodeElection(Client& zk, std::string dir, HoldListener on_hold = {});
  ~StaleNodeElection();
  Task<Result<Grant>> campaign(TimeMs timeout_ms = -1);
  Task<Result<void>> resign();
  bool is_leader() const;

 private:
  Client& zk_;
  std::string dir_;
  std::string prefix_;  // "_c_<id fixed for the candidate>-n_"
  std::optional<Grant> grant_;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

class NodeEventsOnlyLock {
 public:
  NodeEventsOnlyLock(Client& zk, std::string dir, HoldListener on_hold = {});
  ~NodeEventsOnlyLock();
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  Task<Result<void>> release();
  bool holds() const;

 private:
  Client& zk_;
  std::string dir_;
  std::optional<Grant> grant_;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

// A barrier raised and lowered as Barrier is, whose wait is its own.
class OwnWaitBarrier {
 public:
  OwnWaitBarrier(Client& zk, std::string path) : zk_(zk), path_(path), barrier_(zk, std::move(path)) {}
  Task<Result<void>> raise() { return barrier_.raise(); }
  Task<Result<void>> lower() { return barrier_.lower(); }

 protected:
  Client& zk_;
  std::string path_;

 private:
  Barrier barrier_;
};

class UnsyncedBarrier : public OwnWaitBarrier {
 public:
  using OwnWaitBarrier::OwnWaitBarrier;
  Task<Result<void>> wait(TimeMs timeout_ms = -1);
};

class SessionEventBarrier : public OwnWaitBarrier {
 public:
  using OwnWaitBarrier::OwnWaitBarrier;
  Task<Result<void>> wait(TimeMs timeout_ms = -1);
};

class Monitor;

class UnsynchronizedWaitLock {
 public:
  UnsynchronizedWaitLock(Client& zk, std::string dir, HoldListener on_hold = {});
  ~UnsynchronizedWaitLock();
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  Task<Result<void>> release();
  bool holds() const;

 private:
  Client& zk_;
  std::string dir_;
  std::shared_ptr<Monitor> monitor_;  // shared with the watchers, which may outlive the lock
  std::optional<Grant> grant_;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

}  // namespace zksim::recipes::flawed
