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

namespace bank::curator {

// RetryLoop.shouldRetry and the policy's allowRetry: true after sleeping
// when `e` may be retried and `count` retries are left (count is bumped).
Task<bool> retry_after(Client& zk, Error e, int& count);

struct Made {
  std::string path;
  std::int64_t czxid = 0;
};
// create().creatingParentContainersIfNeeded().withProtection()
//   .withMode(mode).forPath(dir + "/" + name): the protected name is
// "_c_" + zk.unique_id() + "-" + name, drawn once per call.
Task<Result<Made>> create_protected(Client& zk, std::string dir, std::string name, CreateMode mode);

// delete().guaranteed().forPath(path): NoNode is success; what still
// fails after the retries goes on in the background (and is reported
// as done, as Curator's foreground call throws but the background
// retry carries on: the callers here ignore the failure).
Task<void> delete_guaranteed(Client& zk, std::string path);

// getChildren().forPath(dir) under the retry loop; NoNode is an empty list.
Task<Result<std::vector<std::string>>> children(Client& zk, std::string dir);

}  // namespace bank::curator
