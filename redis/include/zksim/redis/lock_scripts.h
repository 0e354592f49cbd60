// The scripts the Redis lock recipes run, as C++ functions standing for the
// Lua their libraries send (the Lua text is in tests/redis/, where the real
// server runs it next to these). Each returns what the Lua returns; an error
// of a redis.call inside is the script's reply.
#pragma once

#include "zksim/redis/state.h"

#include <string_view>

namespace zksim::redis::scripts {

// Redisson's RLock.tryLock (RedissonLock.tryLockInnerAsync).
// KEYS[1] the lock's hash; ARGV[1] the lease in ms, ARGV[2] the holder
// ("<client id>:<thread id>"). Free or already the holder's: the holder's
// count goes up, the lease starts again, nil. Held by another: its PTTL.
inline constexpr std::string_view kRLockTryLock = "rlock_try_lock";

// Redisson's RLock.unlock (RedissonLock.unlockInnerAsync).
// KEYS[1] the lock's hash, KEYS[2] its channel; ARGV[1] the unlock message,
// ARGV[2] the lease in ms, ARGV[3] the holder. Not the holder's: nil. Still
// held after one count down: the lease starts again, 0. Released: the hash is
// deleted, ARGV[1] is published on KEYS[2], 1.
inline constexpr std::string_view kRLockUnlock = "rlock_unlock";

// Redisson's watchdog renewal (RedissonBaseLock.renewExpirationAsync).
// KEYS[1] the lock's hash; ARGV[1] the lease in ms, ARGV[2] the holder.
// The holder's: the lease starts again, 1; else 0.
inline constexpr std::string_view kRLockRenew = "rlock_renew";

// The safe unlock of a SET key token NX PX lock (redis.io, SET; "Distributed
// Locks with Redis"): KEYS[1] the lock, ARGV[1] the caller's token. Deletes
// the key only if it holds the token: DEL's reply, else 0.
inline constexpr std::string_view kCompareAndDelete = "compare_and_delete";

// Registers the four scripts above on `node` under those names.
void register_lock_scripts(RedisState& node);

}  // namespace zksim::redis::scripts
