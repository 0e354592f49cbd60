// The Lua the C++ lock scripts (zksim/redis/lock_scripts.h) stand for: the
// reference the conformance tests run on the real server, by EVAL as the
// libraries send it and by FCALL from a function library.
#include "real_fixture.h"

namespace zksim::redis {

const std::vector<LuaScript>& lock_scripts_lua() {
  static const std::vector<LuaScript> all = {
      // Redisson, RedissonLock.tryLockInnerAsync.
      {scripts::kRLockTryLock, R"lua(
if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1);
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return nil;
end;
return redis.call('pttl', KEYS[1]);
)lua"},
      // Redisson, RedissonLock.unlockInnerAsync.
      {scripts::kRLockUnlock, R"lua(
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
  return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
  redis.call('pexpire', KEYS[1], ARGV[2]);
  return 0;
else
  redis.call('del', KEYS[1]);
  redis.call('publish', KEYS[2], ARGV[1]);
  return 1;
end;
return nil;
)lua"},
      // Redisson, RedissonBaseLock.renewExpirationAsync.
      {scripts::kRLockRenew, R"lua(
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return 1;
end;
return 0;
)lua"},
      // redis.io, SET and "Distributed Locks with Redis": the safe unlock.
      {scripts::kCompareAndDelete, R"lua(
if redis.call("get",KEYS[1]) == ARGV[1] then
  return redis.call("del",KEYS[1])
else
  return 0
end
)lua"},
  };
  return all;
}

std::string lock_library() {
  std::string lib = "#!lua name=zksim_locks\n";
  for (const LuaScript& s : lock_scripts_lua()) {
    lib += fmt::format("redis.register_function('{}', function(KEYS, ARGV)\n{}\nend)\n", s.name, s.body);
  }
  return lib;
}

}  // namespace zksim::redis
