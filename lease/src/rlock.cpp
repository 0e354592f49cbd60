// Redisson's RLock (locks.h), as RedissonLock of Redisson 3.x does it: the
// lock is a hash whose field "<client id>:<thread id>" counts re-entries,
// under a lease of lockWatchdogTimeout that a watchdog renews every third of
// it; a waiter subscribes to the lock's channel and tries again on each
// unlock message, or once the lease it was told of has run out.
#include "zksim/lease/locks.h"
#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

namespace zksim::lease {
namespace {

constexpr const char* kUnlockMessage = "0";  // LockPubSub.UNLOCK_MESSAGE

struct Watchdog {
  bool cancelled = false;
};

class RLock final : public LeaseLock {
 public:
  RLock(Process& p, RedisClient& r, RedisSubscriber& s, RLockOptions o)
      : process_(p), redis_(r), sub_(s), o_(std::move(o)),
        channel_(fmt::format("redisson_lock__channel:{{{}}}", o_.key)), holder_(p.name() + ":1") {}
  ~RLock() override {
    if (watchdog_) watchdog_->cancelled = true;
  }

  Task<std::optional<std::int64_t>> acquire() override {
    bool subscribed = false;
    for (;;) {
      // tryLockInnerAsync: nil when taken, else the holder's PTTL.
      redis::Command try_lock{"FCALL", std::string(redis::scripts::kRLockTryLock), "1", o_.key,
                              std::to_string(o_.lease_ms), holder_};
      std::optional<redis::Reply> r = co_await redis_.call(std::move(try_lock));
      if (r && r->is_nil()) break;
      if (!subscribed) {
        subscribed = co_await sub_.subscribe(channel_);
        continue;  // a message published before the subscription took hold is lost: try again first
      }
      const TimeMs wait = r && r->type == redis::Reply::Type::Integer && r->integer >= 0 ? r->integer : o_.lease_ms;
      co_await sub_.next_message(channel_, wait);
    }
    if (subscribed) co_await sub_.unsubscribe(channel_);
    watchdog_ = std::make_shared<Watchdog>();
    process_.spawn(renew(watchdog_));
    if (!o_.fenced) co_return 0;
    for (;;) {
      redis::Command incr{"INCR", o_.key + ":fence"};
      std::optional<redis::Reply> t = co_await redis_.call(std::move(incr));
      if (t && t->type == redis::Reply::Type::Integer) co_return t->integer;
    }
  }

  Task<bool> release() override {
    if (watchdog_) watchdog_->cancelled = true;
    watchdog_.reset();
    bool unknown = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
      redis::Command unlock{"FCALL", std::string(redis::scripts::kRLockUnlock), "2", o_.key, channel_,
                            kUnlockMessage, std::to_string(o_.lease_ms), holder_};
      std::optional<redis::Reply> r = co_await redis_.call(std::move(unlock));
      if (!r) {
        unknown = true;
        continue;
      }
      // nil: not held by this thread (Redisson: IllegalMonitorStateException).
      co_return !r->is_nil() || unknown;
    }
    co_return true;
  }

 private:
  // renewExpiration: every lease/3 while the lock is held.
  Task<> renew(std::shared_ptr<Watchdog> dog) {
    for (;;) {
      co_await process_.sleep(o_.lease_ms / 3);
      if (dog->cancelled) co_return;
      redis::Command renew{"FCALL", std::string(redis::scripts::kRLockRenew), "1", o_.key,
                           std::to_string(o_.lease_ms), holder_};
      std::optional<redis::Reply> r = co_await redis_.call(std::move(renew));
      if (dog->cancelled) co_return;
      if (!r) {
        if (o_.watchdog_stops_on_error) {
          process_.note("watchdog: renewal failed, stops");
          co_return;
        }
        continue;
      }
      if (r->integer != 1) co_return;  // no longer ours
    }
  }

  Process& process_;
  RedisClient& redis_;
  RedisSubscriber& sub_;
  RLockOptions o_;
  std::string channel_;
  std::string holder_;
  std::shared_ptr<Watchdog> watchdog_;
};

}  // namespace

std::unique_ptr<LeaseLock> make_rlock(Process& process, RedisClient& redis, RedisSubscriber& subscriber,
                                      RLockOptions options) {
  return std::make_unique<RLock>(process, redis, subscriber, std::move(options));
}

}  // namespace zksim::lease
