// RedLock over independent Redis nodes (locks.h), as "Distributed Locks
// with Redis" (redis.io) gives the algorithm: SET NX PX on every node in
// turn; held when a majority said OK and the time left (the TTL less the
// time the round took and the allowed clock drift) is positive; otherwise
// every node is unlocked and the client retries after a delay.
#include "zksim/lease/locks.h"
#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

namespace zksim::lease {
namespace {

class RedLock final : public LeaseLock {
 public:
  RedLock(Process& p, std::vector<RedisClient*> nodes, RedLockOptions o)
      : process_(p), nodes_(std::move(nodes)), o_(std::move(o)) {}

  Task<std::optional<std::int64_t>> acquire() override {
    token_ = fmt::format("{}:{}", process_.name(), ++holds_);
    const int quorum = static_cast<int>(nodes_.size()) / 2 + 1;
    // The drift allowed for: 1% of the TTL plus 2 ms (the reference
    // implementations' CLOCK_DRIFT_FACTOR = 0.01).
    const TimeMs drift = o_.ttl_ms / 100 + 2;
    for (;;) {
      const TimeMs start = process_.clock_ms();
      int ok = 0;
      for (RedisClient* node : nodes_) {
        redis::Command set{"SET", o_.key, token_, "NX", "PX", std::to_string(o_.ttl_ms)};
        std::optional<redis::Reply> r = co_await node->call(std::move(set));
        ok += r && *r == redis::Reply::ok();
      }
      const TimeMs validity = o_.ttl_ms - (process_.clock_ms() - start) - drift;
      if (ok >= quorum && validity > 0) break;
      co_await unlock_all();
      co_await process_.sleep(o_.retry_ms);
    }
    co_return 0;
  }

  Task<bool> release() override {
    const int released = co_await unlock_all();
    co_return released >= static_cast<int>(nodes_.size()) / 2 + 1;
  }

 private:
  // Unlocks every node (the safe compare-and-delete); how many had the key.
  Task<int> unlock_all() {
    int released = 0;
    for (RedisClient* node : nodes_) {
      redis::Command del{"FCALL", std::string(redis::scripts::kCompareAndDelete), "1", o_.key, token_};
      std::optional<redis::Reply> r = co_await node->call(std::move(del));
      released += !r || r->integer == 1;
    }
    co_return released;
  }

  Process& process_;
  std::vector<RedisClient*> nodes_;
  RedLockOptions o_;
  std::string token_;
  int holds_ = 0;
};

}  // namespace

std::unique_ptr<LeaseLock> make_redlock(Process& process, std::vector<RedisClient*> nodes, RedLockOptions options) {
  return std::make_unique<RedLock>(process, std::move(nodes), std::move(options));
}

}  // namespace zksim::lease
