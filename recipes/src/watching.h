// A recipe wait's watch, and taking it back when the wait gives up.
//
// A wait that times out leaves its watch on the server and its watcher in
// the client library; repeated attempts stack such watches, and the node's
// change then wakes clients that stopped waiting (Curator removes its
// watchers for the same reason). ZooKeeper keeps one watch per session,
// path and kind, and removeAllWatches takes every watcher the handle has
// there, so a wait removes the watch only when no other recipe wait of the
// same session still relies on it: each wait is counted while it lasts.
//
//   Watching watch(zk, path, WatcherType::Data);   // before the read is sent
//   co_await zk.get_data(path, signal_watcher(changed));
//   if (!co_await zk.wait_for(changed, left)) {
//     co_await watch.give_up();
//     co_return Error::OperationTimeout;
//   }
//
// Waits see each other through the same Client object, or Clients in the
// same session (World::share: threads of one process sharing a zhandle,
// whose removeAllWatches takes the others' watchers too); watchers set by
// code other than these recipes are not seen. REQUIRES: the coroutines of
// a client, and of every client sharing its session, run on one thread
// (both backends guarantee it); the count is per thread.
#pragma once

#include "zksim/client.h"

#include <string>

namespace zksim::recipes::detail {

// Whether a wait syncs before it looks (docs/ensemble.md).
enum class SyncFirst : bool { No, Yes };

// Waits until `path` does not exist (a barrier's wait): looks, and while it
// is there waits for it to change, then looks again. OperationTimeout when
// `timeout_ms` (negative: none) passes first. With SyncFirst::Yes each look
// comes after a sync: the client's server may lag the leader, and a waiter
// that starts after the node was made could otherwise read that it is not
// there (flawed/unsynced-barrier looks without).
Task<Result<void>> wait_until_gone(Client& zk, std::string path, TimeMs timeout_ms, SyncFirst sync);

// Waits for `path` to change (deleted, or its data set); true at once if it
// does not exist (getData leaves no watch then) or the connection was lost.
// False on timeout, after removing the watch.
Task<Result<bool>> wait_while_exists(Client& zk, std::string path, TimeMs deadline_ms);

class Watching {
 public:
  // Counts a wait about to set a `kind` watch (Data or Children) on `path`.
  Watching(Client& zk, std::string path, WatcherType kind);
  // Ends the count, leaving the watch (it fired, or a later change may use it).
  ~Watching();
  Watching(const Watching&) = delete;
  Watching& operator=(const Watching&) = delete;

  // The wait gave up: ends the count and, unless another counted wait of
  // this Client or its session watches the same path and kind, removes
  // the Client's watches of that kind on the path. One try: NoWatcher means it fired
  // already; after SessionExpired or InvalidState the watches are gone with
  // the session. After ConnectionLoss the library keeps the watcher and the
  // reconnect arms it again, so it will fire once, on a signal nobody waits
  // for; waiting for the connection to retry would hold the caller past
  // its deadline.
  Task<void> give_up();
  // As give_up, but retries across ConnectionLoss, each retry queued behind
  // the reconnect's setWatches: for callers that wait for the connection
  // anyway (to delete their node).
  Task<void> give_up_surely();

 private:
  // Ends the count; true if no other counted wait covers ours.
  bool leave();
  // Another counted wait of our Client, or of our session, covers our
  // path and kind.
  bool shared() const;
  Task<void> remove(bool retry);
  Client& zk_;
  std::string path_;
  WatcherType kind_;
  bool counted_ = true;
};

}  // namespace zksim::recipes::detail
