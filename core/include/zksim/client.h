// The client interface recipes are written against. Two backends implement
// it: the simulated client (zksim::World) and, later, one over ZooKeeper's C
// client. A recipe cannot tell which one it runs on.
//
// Semantics are the C client's (3.8): paths are checked before sending
// (BadArguments); a request in flight when the connection drops completes
// with ConnectionLoss, whether or not the server applied it; after the
// session expired or the handle was closed every call returns InvalidState.
// Watch callbacks and session events run on the backend's one thread.
//
// GCC 12: build arguments in named locals, not as braced temporaries inside
// a co_await expression; GCC 12 may destroy such temporaries twice.
//
//   zksim::Task<> example(zksim::Client& zk) {
//     auto made = co_await zk.create("/lock/n-", "", CreateMode::EphemeralSequential);
//     if (!made) co_return;                        // made.error() says why
//     zksim::Signal gone;
//     auto st = co_await zk.exists(made->path, signal_watcher(gone));
//     co_await gone.wait();                        // NodeDeleted arrived
//   }
#pragma once

#include "zksim/request.h"
#include "zksim/result.h"
#include "zksim/task.h"
#include "zksim/types.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace zksim {

// Called once for a watch event on the path it was set on (one-shot), and
// for every session event while it is registered (type None, state set).
using Watcher = std::function<void(const WatchedEvent&)>;

// A Watcher that sets `s` on the first event of any kind.
inline Watcher signal_watcher(Signal s) {
  return [s](const WatchedEvent&) mutable { s.set(); };
}

// The client handle's own view of its session.
enum class SessionState {
  Connecting,  // not yet connected, or reconnecting after a disconnect
  Connected,
  Expired,     // final: the server expired the session
  Closed,      // final: close() was called, or the process crashed
};

// A multi's outcome: `error` is the first failing op's error (Ok if all
// succeeded) and `results` has one entry per op (empty if the request never
// got an answer, e.g. ConnectionLoss).
struct MultiResult {
  Error error = Error::Ok;
  std::vector<OpResult> results;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual Task<Result<CreateResponse>> create(std::string path, std::string data,
                                              CreateMode mode, AclList acl = open_acl(),
                                              std::int64_t ttl_ms = -1) = 0;
  virtual Task<Result<void>> remove(std::string path, Version version = kAnyVersion) = 0;
  // NoNode when absent; a watcher is then registered for the node's creation.
  virtual Task<Result<Stat>> exists(std::string path, Watcher watcher = {}) = 0;
  virtual Task<Result<DataResponse>> get_data(std::string path, Watcher watcher = {}) = 0;
  virtual Task<Result<Stat>> set_data(std::string path, std::string data,
                                      Version version = kAnyVersion) = 0;
  // Children in no particular order (the simulator chooses one).
  virtual Task<Result<ChildrenResponse>> get_children(std::string path, Watcher watcher = {}) = 0;
  virtual Task<MultiResult> multi(std::vector<MultiOp> ops) = 0;
  virtual Task<Result<void>> sync(std::string path) = 0;
  // A persistent (or persistent recursive) watch; `watcher` is called for
  // every event until the session ends.
  virtual Task<Result<void>> add_watch(std::string path, AddWatchMode mode, Watcher watcher) = 0;
  // ZooKeeper's removeAllWatches (local = false): removes every watcher this
  // handle has of `type` on `path`, on the server and in the library, by
  // whichever call set it. Data: exists and getData watchers (an exists
  // watch on a missing node too); Children: getChildren watchers; Any: both,
  // and add_watch watchers (Data or Children take that half of an add_watch
  // watch off the server but, as ZooKeeper's Java client, keep the library's
  // watcher). Removed watchers are not called. Errors:
  // NoWatcher when the server holds no such watch for the session (the
  // library's watchers are then left as they are, as the C client leaves
  // them); ConnectionLoss leaves the library's watchers too, so reconnecting
  // sets them again. A `type` outside the enum is NoWatcher (the C client
  // finds no watcher of it and sends nothing).
  virtual Task<Result<void>> remove_all_watches(std::string path, WatcherType type) = 0;
  // Closes the session: its ephemerals go at once. Pending calls fail.
  virtual Task<Result<void>> close() = 0;

  virtual SessionState state() const = 0;
  // 0 until the first connection is established.
  virtual SessionId session_id() const = 0;
  // The default watcher: receives every session event.
  virtual void set_default_watcher(Watcher watcher) = 0;
  // Another receiver of every session event (after the default watcher),
  // until removed: how a recipe learns of Disconnected and Expired without
  // owning the default watcher. Returns the id remove_session_listener takes.
  virtual std::uint64_t add_session_listener(Watcher listener) = 0;
  virtual void remove_session_listener(std::uint64_t id) = 0;
  // A name that no other call returns, on this or any other client of the
  // same ensemble: recipes put it in node names to recognise their own node
  // after a lost reply. Usable before the session is connected.
  // Deterministic on the simulator.
  virtual std::string unique_id() = 0;

  // The backend's clock (simulated or real), in ms, for timeouts.
  virtual TimeMs now() const = 0;
  // Resumes after `ms` of the backend's time.
  virtual Task<void> sleep(TimeMs ms) = 0;
  // Resumes when `s` is set (true) or once `timeout_ms` of the backend's
  // time has passed (false); a negative timeout waits for `s` only.
  virtual Task<bool> wait_for(Signal s, TimeMs timeout_ms) = 0;
  // A point where the recipe's thread could be interrupted, as any thread
  // can be (between a check and the act on it, say): a backend whose
  // library has other threads (watchers, listeners, background tasks) may
  // run their work here first. It has no other effect.
  virtual Task<void> preemption_point() = 0;
  // Runs `task` in the background on this client's behalf, as a library's
  // executor runs a background callback: it starts after the caller goes
  // on, and ends with the client's process. The caller's code goes on.
  virtual void post(Task<> task) = 0;
  // Makes `call` through the library's asynchronous API (Curator's
  // inBackground, kazoo's *_async with rawlink, the C client's zoo_a*):
  // its request goes out now, in order with the caller's other calls, and
  // the caller goes on at once. `done` is then called with its result where
  // the library runs completions (FlavourRules::completions): the C client
  // at the reply, on its one thread; Curator on the event thread, in
  // arrival order with the watchers; kazoo on a completion thread of its
  // own. A call answered without the server (refused, or on a closed
  // handle) completes the same way, but on the C client before
  // in_background returns. `done` is a plain function, as a callback is:
  // to wait for more it makes another background call or post()s a task.
  // It ends with the client's process.
  // REQUIRES: `call` is a request of this client, not yet awaited (any
  // call above from create to remove_all_watches).
  //
  //   zk.in_background(zk.create(dir + "/n-", "", CreateMode::EphemeralSequential),
  //                    [this](Result<CreateResponse> made) { if (made) ours_ = made->path; });
  template <class T, class F>
  void in_background(Task<T> call, F done) {
    background(complete_with(std::move(call), std::move(done)));
  }
  // Adds a line to the trace (simulator) or the log (real server).
  virtual void annotate(std::string text) = 0;

 protected:
  // in_background's half that the backend implements: starts `call` now
  // (its first request is the background call) and owns it until it ends.
  virtual void background(Task<> call) = 0;

 private:
  template <class T, class F>
  static Task<> complete_with(Task<T> call, F done) {
    T result = co_await call;
    done(std::move(result));
  }
};

}  // namespace zksim
