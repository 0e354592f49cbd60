// What Curator's framework does around every call of its recipes, as
// Curator 4.2 to 5.x write it (curator-framework, curator-client):
//   RetryLoop.callWithRetry with ExponentialBackoffRetry(1000, 3), the
//     policy Curator's documentation starts from: ConnectionLoss,
//     OperationTimeout, SessionMoved and SessionExpired are retried three
//     times, sleeping 1, 2, then 4 s (the policy draws up to that bound;
//     the port takes the bound, so the same decisions give the same run);
//   withProtection(): a create named "_c_<uuid>-<name>", whose retries
//     first look for a child with that prefix (findProtectedNodeInForeground);
//   delete().guaranteed(): a delete that failed goes on in the background
//     until it succeeds (FailedDeleteManager).
#pragma once

#include "bank.h"

#include <functional>

namespace bank::curator {

// RetryLoop.shouldRetry and the policy's allowRetry: true after sleeping
// when `e` may be retried and `count` retries are left (count is bumped).
Task<bool> retry_after(Client& zk, Error e, int& count);

// creatingParentContainersIfNeeded: `dir` and its ancestors, as containers.
Task<Result<void>> make_parents(Client& zk, std::string dir);

struct Made {
  std::string path;
  std::int64_t czxid = 0;
};
// create().creatingParentContainersIfNeeded().withProtection()
//   .withMode(mode).forPath(dir + "/" + name): the protected name is
// "_c_" + zk.unique_id() + "-" + name, drawn once per call.
Task<Result<Made>> create_protected(Client& zk, std::string dir, std::string name, CreateMode mode,
                                   std::string data = "");

// delete().guaranteed().forPath(path): NoNode is success; what still
// fails after the retries goes on in the background (and is reported
// as done, as Curator's foreground call throws but the background
// retry carries on: the callers here ignore the failure).
Task<void> delete_guaranteed(Client& zk, std::string path);

// getChildren().forPath(dir) under the retry loop; NoNode is an empty list.
Task<Result<std::vector<std::string>>> children(Client& zk, std::string dir);

}  // namespace bank::curator

namespace bank::curator {

// What StandardLockInternalsDriver.getsTheLock (or a recipe's own driver)
// answers for our node among the children sorted by sequence: whether it
// holds, else the node to watch. NoNode: our node is not among them.
struct Predicate {
  bool gets = false;
  std::string watch;
};
using Driver = std::function<Result<Predicate>(const std::vector<std::string>& sorted, const std::string& ours)>;
// maxLeases 1: held when first, else watch the node just before ours.
Result<Predicate> standard_driver(const std::vector<std::string>& sorted, const std::string& ours);

// LockInternals as Curator 4.2 writes it (curator42_mutex.cpp says how):
// attempt_lock makes a protected ephemeral-sequential `lock_name` node in
// `dir` and waits its turn; release_lock removes the pending watchers and
// deletes the node (guaranteed).
class LockInternals {
 public:
  // `owner_checked`: not Curator's. Before taking the lock the loop checks
  // that our node is of the session it runs in, and treats one of an
  // earlier session (still listed until the server expires it) as gone:
  // the fix CURATOR-604 lacks.
  LockInternals(Client& zk, std::string dir, std::string lock_name, Driver driver, bool owner_checked = false);
  // The node held, or OperationTimeout when the wait timed out (negative:
  // none), or the error that ended it.
  Task<Result<Made>> attempt_lock(TimeMs timeout_ms);
  Task<void> release_lock(std::string path);

 private:
  struct State {
    Monitor monitor;
    std::string pending_watch;  // a getData watch not yet triggered
  };
  Task<Result<bool>> lock_loop(TimeMs start, TimeMs timeout_ms, std::string ours);
  static Task<> notify_later(std::shared_ptr<State> s);

  Client& zk_;
  std::string dir_;
  std::string lock_name_;
  Driver driver_;
  bool owner_checked_;
  std::shared_ptr<State> state_;  // shared with watchers that may outlive the lock
};

}  // namespace bank::curator
