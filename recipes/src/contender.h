// The machinery the lock-like recipes share: GUID-protected sequential
// nodes, listing contenders in issue order, waiting for one's turn while
// watching one node only, deleting a node across connection losses, and
// turning session events into HoldEvents.
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::recipes::detail {

std::string join(std::string_view dir, std::string_view name);

// The deadline `timeout_ms` from now on the backend's clock; -1 (none) for
// a negative timeout.
inline TimeMs deadline_after(const Client& zk, TimeMs timeout_ms) {
  return timeout_ms < 0 ? -1 : zk.now() + timeout_ms;
}
// What is left until `deadline_ms`, never negative; -1 when there is none.
inline TimeMs time_left(const Client& zk, TimeMs deadline_ms) {
  return deadline_ms < 0 ? -1 : std::max<TimeMs>(deadline_ms - zk.now(), 0);
}

// Creates `path` and its missing ancestors as persistent nodes.
Task<Result<void>> ensure_path(Client& zk, std::string path);

struct Created {
  std::string path;
  std::int64_t czxid = 0;
  SessionId owner;  // an ephemeral's session, from its Stat; none otherwise
};

// Creates `dir`/`prefix` with a sequential `mode`; `prefix` must contain a
// name unique to this attempt (Client::unique_id), so that after a
// ConnectionLoss the node is found among the children if the create was
// applied, and created again if not. Creates `dir` if it is missing.
Task<Result<Created>> create_protected(Client& zk, std::string dir, std::string prefix,
                                       std::string data, CreateMode mode);

// Deletes `path`, retrying across ConnectionLoss: Ok once it is gone,
// whoever deleted it. Other errors (SessionExpired, InvalidState) pass.
Task<Result<void>> delete_surely(Client& zk, std::string path);

struct Contender {
  std::string name;        // child name
  std::int32_t seq = 0;
  std::size_t kind = 0;    // which of the markers it carries
};

// Node-name markers before the sequence number, e.g. {"read-", "write-"}.
using Markers = std::vector<std::string>;

// The children of `dir` named with one of `markers` and a sequence suffix,
// in the order they were created: by sequence number across the 2^31 wrap,
// and by creation zxid among equal numbers (the counter stuck at 2^31-1).
// A `watcher`, if given, is set as a child watch by the listing.
Task<Result<std::vector<Contender>>> contenders(Client& zk, std::string dir, Markers markers,
                                                Watcher watcher = {});

// Given the contenders and our index among them: nullopt when it is our
// turn, else the name of the one contender whose deletion we wait for, or
// "" to wait for any change among them (a child watch on their directory).
using Rule = std::function<std::optional<std::string>(const std::vector<Contender>&, std::size_t me)>;
// An exclusive lock's rule: our turn when first, else wait for the one just before us.
Rule predecessor_rule();

// sync(path), retried across connection losses. A recipe that reads to
// learn the fate of a write whose reply was lost, or to judge something
// another client did before, syncs first: the client's server may lag the
// leader, and the client never saw that write's zxid (docs/ensemble.md).
Task<Result<void>> sync_surely(Client& zk, std::string path);

// The child of `dir` whose name starts with `prefix` (a name unique to an
// attempt, or to a candidate), with its creation zxid; nullopt if none.
// Syncs first (sync_surely).
Task<Result<std::optional<Created>>> find_own(Client& zk, std::string dir, std::string prefix);

// Ends a hold that has one node: deletes `grant`'s node (delete_surely; a
// session that ended took it already) and clears `grant`. BadArguments
// when nothing is held.
Task<Result<void>> release_grant(Client& zk, std::optional<Grant>& grant);

// Waits until `rule` says it is the turn of `name` (a child of `dir`).
// Each round lists the contenders and sets a data watch on the node the rule
// names (getData leaves no watch if that node is already gone; then the
// round repeats), or a child watch on `dir` by listing them again. Errors: OperationTimeout at `deadline_ms` (negative: no
// deadline), after removing that watch (Watching::give_up_surely, so across
// a ConnectionLoss it waits for the connection, as the node's delete does);
// NoNode if our node disappeared while the session it was made in
// (`made_in`; SessionId{}: not known) lives, SessionExpired if it went with
// that session or the client left it (a client that opened a new one lists
// in that, and may still see the old session's node there until the server
// expires it) or when the session ended, InvalidState, and any unexpected
// error from a read.
Task<Result<void>> wait_turn(Client& zk, std::string dir, std::string name, Markers markers,
                             Rule rule, TimeMs deadline_ms, SessionId made_in);

// Coroutine parameters are taken by value: a Task may outlive the caller's
// temporaries only if it is stored, but by value it never matters.

// One whole attempt: creates a protected ephemeral-sequential node
// "_c_<unique id>-<markers[kind]><seq>" under `dir` and waits for its turn
// by `rule`. On failure the node is deleted (while the session lives).
// `bound`: the attempt is part of a hold of that session (the semaphore's
// internal lock), so a node made in another (a client that opened a new
// session while its create was in doubt) is deleted and the attempt fails
// with SessionExpired instead of waiting without that hold.
Task<Result<Created>> contend(Client& zk, std::string dir, Markers markers, std::size_t kind,
                              std::string data, Rule rule, TimeMs deadline_ms, SessionId bound = SessionId{});

// Turns session events into HoldEvents while `holding()` is true, and
// remembers a loss: the session expired while holding, or it is over.
class HoldTracker {
 public:
  HoldTracker(Client& zk, HoldListener listener, std::function<bool()> holding);
  ~HoldTracker();
  HoldTracker(const HoldTracker&) = delete;
  HoldTracker& operator=(const HoldTracker&) = delete;
  bool suspended() const { return suspended_; }
  // The session was lost while holding, or has ended.
  bool lost() const {
    return lost_ || zk_.state() == SessionState::Expired || zk_.state() == SessionState::Closed;
  }
  // A new hold begins with nothing held: forget an old loss.
  void restart() { lost_ = false; }

 private:
  void on_session(const WatchedEvent& e);
  Client& zk_;
  HoldListener listener_;
  std::function<bool()> holding_;
  std::uint64_t id_ = 0;
  bool suspended_ = false;
  bool lost_ = false;
};

}  // namespace zksim::recipes::detail
