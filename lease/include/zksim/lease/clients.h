// The narrow interfaces the lease-lock recipes are written against: the
// process they run in (its clock, its sleeps), one connection to a Redis
// node, one etcd client. The simulated world implements them (world.h); a
// call that gets no answer within the client's timeout yields nullopt, as
// hiredis's timeout or the etcd client's deadline would.
#pragma once

#include "zksim/etcd/types.h"
#include "zksim/redis/reply.h"
#include "zksim/task.h"
#include "zksim/types.h"

#include <optional>
#include <string>
#include <string_view>

namespace zksim::lease {

class Process {
 public:
  virtual ~Process() = default;
  // A name unique in the run ("p2"), for tokens and lock values.
  virtual const std::string& name() const = 0;
  // The wall clock as this process reads it (ms): it may drift and jump.
  virtual TimeMs clock_ms() const = 0;
  // Lasts `ms` of this process's own monotonic time (drift, no jumps).
  virtual Task<> sleep(TimeMs ms) = 0;
  // A line in the run's trace.
  virtual void note(std::string_view text) = 0;
  // Runs `task` beside the caller in this process (a helper thread, such as
  // a lease's keepalive loop): paused with it, not waited for at the end.
  virtual void spawn(Task<> task) = 0;
};

class RedisClient {
 public:
  virtual ~RedisClient() = default;
  // One command; its reply, or nullopt when none came in time (the command
  // may or may not have run).
  virtual Task<std::optional<redis::Reply>> call(redis::Command command) = 0;
};

// A pub/sub connection to one Redis node (Redisson keeps one beside its
// command connections). Messages come at most once: one that is lost, or
// published before the subscription took effect, never comes.
class RedisSubscriber {
 public:
  virtual ~RedisSubscriber() = default;
  // SUBSCRIBE; true once the node confirmed it.
  virtual Task<bool> subscribe(std::string channel) = 0;
  virtual Task<> unsubscribe(std::string channel) = 0;
  // The next message on a subscribed channel, or nullopt when none came
  // within `timeout_ms` of the process's time.
  virtual Task<std::optional<std::string>> next_message(std::string channel, TimeMs timeout_ms) = 0;
};

class EtcdClient {
 public:
  virtual ~EtcdClient() = default;
  template <class T>
  using Answer = std::optional<etcd::Result<T>>;  // nullopt: no answer in time

  virtual Task<Answer<etcd::RangeResponse>> range(etcd::RangeRequest request) = 0;
  virtual Task<Answer<etcd::TxnResponse>> txn(etcd::TxnRequest request) = 0;
  virtual Task<Answer<etcd::DeleteRangeResponse>> delete_range(etcd::DeleteRangeRequest request) = 0;
  virtual Task<Answer<etcd::LeaseGrantResponse>> lease_grant(etcd::LeaseGrantRequest request) = 0;
  virtual Task<Answer<etcd::LeaseRevokeResponse>> lease_revoke(etcd::LeaseId id) = 0;
  virtual Task<std::optional<etcd::LeaseKeepAliveResponse>> lease_keep_alive(etcd::LeaseId id) = 0;
  // Waits until `key` is deleted at a revision >= `from_revision` (true), or
  // the watch stream is lost (false), as concurrency's waitDelete does.
  virtual Task<bool> wait_delete(std::string key, std::int64_t from_revision) = 0;
};

}  // namespace zksim::lease
