// The lease locks, each against its own narrow client (clients.h), and
// their flawed variants from the public record. docs/lease.md has the
// sources.
#pragma once

#include "zksim/lease/clients.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zksim::lease {

// A lock whose ownership is a lease. acquire() blocks until held and
// returns the hold's fencing token (0 when the lock gives none), or nullopt
// when it gave up (a lost session). release() lets go, and returns false
// when the server answered that the lock was no longer the caller's (its
// lease had run out), true when it was or no answer said otherwise.
class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  virtual Task<std::optional<std::int64_t>> acquire() = 0;
  virtual Task<bool> release() = 0;
};

// SET key token NX PX ttl on one Redis node ("Distributed Locks with Redis",
// single instance). A SET that got no answer is tried again: its key, if it
// ran, is left to expire (reading it back would trust a lease that began
// earlier than the caller thinks: the lease-kept checker caught that).
// Fenced: the token is INCR <key>:fence, taken once the key is set.
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

// Redisson's RLock (RedissonLock) with its watchdog: the scripts of
// zksim/redis/lock_scripts.h, a lease of lease_ms renewed every lease_ms/3,
// waiters woken by the unlock message on redisson_lock__channel:{key}.
// Fenced: the token is INCR <key>:fence, taken once held.
struct RLockOptions {
  std::string key = "rlock";
  TimeMs lease_ms = 300;  // lockWatchdogTimeout (30 s by default; short here so faults outlast it)
  bool fenced = false;
  // Flawed (redisson/redisson #2515, PR #3334): the watchdog stops renewing
  // after one failed renewal (a timeout, a BUSY reply), so a holder that is
  // alive and connected loses its lease.
  bool watchdog_stops_on_error = false;
};
std::unique_ptr<LeaseLock> make_rlock(Process& process, RedisClient& redis, RedisSubscriber& subscriber,
                                      RLockOptions options);

// The Redis lease a command of these locks gave or extended, answered
// `reply`: its key and length. SET ... PX answered OK, an RLock's tryLock
// answered nil, its renewal answered 1; nullopt for any other. The lease
// world's observer (harness.cpp) and the real-server tests both count
// leases by it.
struct RedisLeaseGrant {
  std::string key;
  TimeMs ms = 0;
};
std::optional<RedisLeaseGrant> redis_lease_granted(const redis::Command& command, const redis::Reply& reply);

// RedLock over independent Redis nodes (redis.io, "Distributed Locks with
// Redis"): a majority of SET NX PX, and a validity of the TTL less the
// round's time (by the process's wall clock) and a drift allowance. No
// fencing token: RedLock has none to give.
struct RedLockOptions {
  std::string key = "redlock";
  TimeMs ttl_ms = 300;
  TimeMs retry_ms = 10;
};
std::unique_ptr<LeaseLock> make_redlock(Process& process, std::vector<RedisClient*> nodes, RedLockOptions options);

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
