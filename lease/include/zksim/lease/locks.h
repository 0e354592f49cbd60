// The lease locks, each against its own narrow client (clients.h), and
// their flawed variants from the public record. docs/lease.md has the
// sources.
#pragma once

#include "zksim/lease/clients.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace zksim::lease {

// A lock whose ownership is a lease. acquire() blocks until held and
// returns the hold's fencing token (0 when the lock gives none), or nullopt
// when it gave up (a lost session). release() lets go.
class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  virtual Task<std::optional<std::int64_t>> acquire() = 0;
  virtual Task<> release() = 0;
};

// SET key token NX PX ttl on one Redis node ("Distributed Locks with Redis",
// single instance). A call that got no answer is asked again by reading the
// key. Fenced: the token is INCR <key>:fence, taken once the key is set.
struct SetNxOptions {
  std::string key = "lock";
  TimeMs ttl_ms = 300;
  TimeMs retry_ms = 10;
  bool fenced = false;
  // Flawed: unlock with a plain DEL, asked again when it got no answer: a
  // lease that ran out, or an unlock retried after a newer holder took the
  // key, deletes that holder's key.
  bool plain_del_unlock = false;
};
std::unique_ptr<LeaseLock> make_set_nx_lock(Process& process, RedisClient& redis, SetNxOptions options);

// etcd's client/v3/concurrency Mutex (3.5) on a Session: a key
// <prefix>/<lease id in hex> under the session's lease; the holder is the
// key with the lowest create revision; a waiter watches the deletion of the
// key just before its own; the token is its key's create revision.
struct EtcdMutexOptions {
  std::string prefix = "/lock";
  std::int64_t ttl_s = 2;
  // Flawed (etcd 3.4's Lock): after the wait it does not check that its own
  // key still exists, so a waiter whose lease ran out while it waited takes
  // the lock without a key.
  bool skip_owner_check = false;
};
std::unique_ptr<LeaseLock> make_etcd_mutex(Process& process, EtcdClient& etcd, EtcdMutexOptions options);

}  // namespace zksim::lease
