#include "zksim/redis/lock_scripts.h"

#include <string>

namespace zksim::redis::scripts {
namespace {

// A missing KEYS[i] or ARGV[i] is a nil argument to redis.call in Lua,
// which refuses it (script_lua.c, luaArgsToRedisArgv).
Reply missing_argument() { return Reply::error("ERR Lua redis lib command arguments must be strings or integers"); }

bool has(const ScriptContext& s, std::size_t keys, std::size_t args) {
  return s.keys().size() >= keys && s.args().size() >= args;
}

// if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then
//   redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil;
// end; return redis.call('pttl', KEYS[1]);
Reply rlock_try_lock(ScriptContext& s) {
  if (!has(s, 1, 2)) return missing_argument();
  const std::string& lock = s.keys()[0];
  const std::string& lease_ms = s.args()[0];
  const std::string& holder = s.args()[1];
  Reply exists = s.call({"exists", lock});
  if (exists.is_error()) return exists;
  bool take = exists.integer == 0;
  if (!take) {
    Reply mine = s.call({"hexists", lock, holder});
    if (mine.is_error()) return mine;
    take = mine.integer == 1;
  }
  if (!take) return s.call({"pttl", lock});
  if (Reply r = s.call({"hincrby", lock, holder, "1"}); r.is_error()) return r;
  if (Reply r = s.call({"pexpire", lock, lease_ms}); r.is_error()) return r;
  return Reply::nil();
}

// if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end;
// local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
// if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0;
// else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end;
Reply rlock_unlock(ScriptContext& s) {
  if (!has(s, 1, 3)) return missing_argument();
  const std::string& lock = s.keys()[0];
  const std::string& holder = s.args()[2];
  Reply mine = s.call({"hexists", lock, holder});
  if (mine.is_error()) return mine;
  if (mine.integer == 0) return Reply::nil();
  Reply counter = s.call({"hincrby", lock, holder, "-1"});
  if (counter.is_error()) return counter;
  if (counter.integer > 0) {
    if (Reply r = s.call({"pexpire", lock, s.args()[1]}); r.is_error()) return r;
    return Reply::of(0);
  }
  if (Reply r = s.call({"del", lock}); r.is_error()) return r;
  if (!has(s, 2, 3)) return missing_argument();
  if (Reply r = s.call({"publish", s.keys()[1], s.args()[0]}); r.is_error()) return r;
  return Reply::of(1);
}

// if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
//   redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;
Reply rlock_renew(ScriptContext& s) {
  if (!has(s, 1, 2)) return missing_argument();
  Reply mine = s.call({"hexists", s.keys()[0], s.args()[1]});
  if (mine.is_error()) return mine;
  if (mine.integer != 1) return Reply::of(0);
  if (Reply r = s.call({"pexpire", s.keys()[0], s.args()[0]}); r.is_error()) return r;
  return Reply::of(1);
}

// if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end
Reply compare_and_delete(ScriptContext& s) {
  if (!has(s, 1, 0)) return missing_argument();
  Reply value = s.call({"get", s.keys()[0]});
  if (value.is_error()) return value;
  // A missing ARGV[1] is nil in Lua, equal to no string.
  if (value.type == Reply::Type::Bulk && has(s, 1, 1) && value.text == s.args()[0]) {
    return s.call({"del", s.keys()[0]});
  }
  return Reply::of(0);
}

}  // namespace

void register_lock_scripts(RedisState& node) {
  node.register_script(std::string(kRLockTryLock), rlock_try_lock);
  node.register_script(std::string(kRLockUnlock), rlock_unlock);
  node.register_script(std::string(kRLockRenew), rlock_renew);
  node.register_script(std::string(kCompareAndDelete), compare_and_delete);
}

}  // namespace zksim::redis::scripts
