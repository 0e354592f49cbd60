// Distributed queues (ZooKeeper's queue recipe; Curator's DistributedQueue).
//
// Queue: FIFO with at-most-once delivery. put() creates a persistent
// sequential node "…qn-<seq>" in one multi with an ephemeral marker that
// tells, after a lost reply, whether the item was added (so a lost reply
// neither loses nor doubles it, even if a consumer took the item before
// the producer could look); take() deletes the lowest item it can: the
// delete is the claim, so no item is delivered twice.
//
// LockingQueue: at-least-once. take() claims the lowest unclaimed item with
// an ephemeral node in <dir>/claims and leaves the item in <dir>/items until
// ack() deletes both in one multi. If the consumer's session dies before
// the ack, its claim goes with it and the item is handed out again.
//
//   zksim::recipes::LockingQueue jobs(zk, "/queues/jobs");
//   co_await jobs.put("resize img-42");
//   if (auto job = co_await jobs.take(1000)) {
//     process(job->data);
//     co_await jobs.ack(*job);
//   }
#pragma once

#include "zksim/client.h"

#include <map>
#include <optional>
#include <string>

namespace zksim::recipes {

struct Item {
  std::string node;  // full path of the item's node (it carries the sequence number)
  std::string data;
};

class Queue {
 public:
  Queue(Client& zk, std::string dir);
  // Appends exactly once; returns the item's node path ("" when a lost
  // reply hid it and a consumer took the item before put could look).
  // Fails (SessionExpired, ...) only if the session ended before put knew;
  // then the item may or may not have been added.
  Task<Result<std::string>> put(std::string data);
  // The head item, waiting while the queue is empty, up to `timeout_ms`
  // (negative: forever; then OperationTimeout, after removing the watch
  // on `dir` unless another take through the same Client waits on it too).
  // ConnectionLoss means the delete of the head's node may or may not have
  // applied: that item may have been taken by this call and is then lost
  // (at most once).
  Task<Result<Item>> take(TimeMs timeout_ms = -1);
  // After a take() that failed with ConnectionLoss: the item whose delete
  // it could not confirm. Empty after any other outcome.
  const std::optional<Item>& in_doubt() const { return in_doubt_; }
  static constexpr const char* kMarker = "qn-";

 private:
  Client& zk_;
  std::string dir_;
  std::optional<Item> in_doubt_;
};

class LockingQueue {
 public:
  LockingQueue(Client& zk, std::string dir);
  Task<Result<std::string>> put(std::string data);
  // Claims the lowest unclaimed item, waiting as Queue::take does.
  Task<Result<Item>> take(TimeMs timeout_ms = -1);
  // Removes a taken item for good. SessionExpired (and the like): the claim
  // went with the session and the item will be delivered again.
  Task<Result<void>> ack(Item item);  // by value: the Task may outlive the caller's object
  // Gives a taken item back unacknowledged (a consumer that could not
  // process it): deletes this consumer's claim, so the item is handed out
  // again, to a waiting take at once. BadArguments: not an item this queue
  // object took and has not acked or released. SessionExpired (and the
  // like): the claim went, or goes, with the session that made it.
  Task<Result<void>> release(Item item);
  std::string items_dir() const { return dir_ + "/items"; }
  std::string claims_dir() const { return dir_ + "/claims"; }

 private:
  Client& zk_;
  std::string dir_;
  // The claims of items taken and not yet acked or released: item node ->
  // the session the claim was made in and the attempt id it carries.
  struct Claim {
    SessionId session;
    std::string id;
  };
  std::map<std::string, Claim> claimed_;
};

}  // namespace zksim::recipes
