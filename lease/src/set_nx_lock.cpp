// The SET NX PX lock (locks.h).
#include "zksim/lease/locks.h"
#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

namespace zksim::lease {
namespace {

class SetNxLock final : public LeaseLock {
 public:
  SetNxLock(Process& p, RedisClient& r, SetNxOptions o) : process_(p), redis_(r), o_(std::move(o)) {}

  Task<std::optional<std::int64_t>> acquire() override {
    token_ = fmt::format("{}:{}", process_.name(), ++holds_);
    for (;;) {
      // (Commands are built before co_await: GCC 12 cannot take a braced
      // list of strings in a co_await's operand.)
      redis::Command set{"SET", o_.key, token_, "NX", "PX", std::to_string(o_.ttl_ms)};
      std::optional<redis::Reply> r = co_await redis_.call(std::move(set));
      // No answer: the SET may have run, but then its lease began when it
      // ran, not now, so the key is not trusted; it expires and is retaken.
      if (r && *r == redis::Reply::ok()) break;
      co_await process_.sleep(o_.retry_ms);
    }
    if (!o_.fenced) co_return 0;
    for (;;) {
      redis::Command incr{"INCR", o_.key + ":fence"};
      std::optional<redis::Reply> t = co_await redis_.call(std::move(incr));
      if (t && t->type == redis::Reply::Type::Integer) co_return t->integer;
      co_await process_.sleep(o_.retry_ms);
    }
  }

  Task<bool> release() override {
    bool unknown = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
      redis::Command unlock = o_.plain_del_unlock
                                  ? redis::Command{"DEL", o_.key}
                                  : redis::Command{"FCALL", std::string(redis::scripts::kCompareAndDelete), "1",
                                                   o_.key, token_};
      std::optional<redis::Reply> r = co_await redis_.call(std::move(unlock));
      if (!r) {
        unknown = true;
        continue;
      }
      co_return r->integer == 1 || unknown;
    }
    co_return true;
  }

 private:
  Process& process_;
  RedisClient& redis_;
  SetNxOptions o_;
  std::string token_;
  int holds_ = 0;
};

}  // namespace

std::unique_ptr<LeaseLock> make_set_nx_lock(Process& process, RedisClient& redis, SetNxOptions options) {
  return std::make_unique<SetNxLock>(process, redis, std::move(options));
}

}  // namespace zksim::lease
