// The lock scripts: the Lua on the real server (by EVAL, as Redisson sends
// it, and by FCALL of the same bodies loaded as a function library), the
// C++ on the model, replies compared. An error raised inside a script is
// the model's error followed, on the server, by " script: <name>, on
// @<source>:<line>.", which Lua adds.
#include "real_fixture.h"

#include <algorithm>

namespace zksim::redis {
namespace {

enum class Via { Eval, Fcall };

class RealScripts : public RedisConformance, public ::testing::WithParamInterface<Via> {
 protected:
  // Runs the script `name` on both and expects the same reply; returns the model's.
  Reply script(std::string_view name, std::vector<std::string> keys, std::vector<std::string> args) {
    Command fcall{"FCALL", std::string(name), std::to_string(keys.size())};
    fcall.insert(fcall.end(), keys.begin(), keys.end());
    fcall.insert(fcall.end(), args.begin(), args.end());
    Command sent = fcall;
    if (GetParam() == Via::Eval) {
      const auto& lua = lock_scripts_lua();
      auto it = std::find_if(lua.begin(), lua.end(), [&](const LuaScript& s) { return s.name == name; });
      sent[0] = "EVAL";
      sent[1] = it->body;
    }
    const Reply r = real(sent);
    const Reply m = sim(fcall);
    if (m.is_error() && r.is_error()) {
      EXPECT_TRUE(r.text == m.text || r.text.starts_with(m.text + " script: ")) << to_string(r) << " vs " << to_string(m);
    } else {
      EXPECT_EQ(m, r) << show(fcall);
    }
    return m;
  }
  // The same for a script whose reply is a PTTL: within a few ms.
  void script_pttl(std::string_view name, std::vector<std::string> keys, std::vector<std::string> args) {
    Command fcall{"FCALL", std::string(name), std::to_string(keys.size())};
    fcall.insert(fcall.end(), keys.begin(), keys.end());
    fcall.insert(fcall.end(), args.begin(), args.end());
    const Reply r = real(fcall);
    const Reply m = sim(fcall);
    ASSERT_EQ(r.type, Reply::Type::Integer) << to_string(r);
    ASSERT_EQ(m.type, Reply::Type::Integer) << to_string(m);
    EXPECT_NEAR(static_cast<double>(m.integer), static_cast<double>(r.integer), 20.0);
  }
};

using scripts::kCompareAndDelete;
using scripts::kRLockRenew;
using scripts::kRLockTryLock;
using scripts::kRLockUnlock;

const std::string kChannel = "redisson_lock__channel:{lock}";

TEST_P(RealScripts, RLockTryLockTakesReentersAndReportsTheHoldersTtl) {
  script(kRLockTryLock, {"lock"}, {"30000", "c1:1"});
  both({"HGET", "lock", "c1:1"});
  both_pttl("lock");
  script(kRLockTryLock, {"lock"}, {"30000", "c1:1"});
  both({"HGET", "lock", "c1:1"});
  sleep_ms(50);
  script_pttl(kRLockTryLock, {"lock"}, {"30000", "c2:1"});
  both({"HLEN", "lock"});
}

TEST_P(RealScripts, RLockTryLockAfterTheLeaseRanOut) {
  script(kRLockTryLock, {"lock"}, {"50", "c1:1"});
  sleep_ms(120);
  script(kRLockTryLock, {"lock"}, {"30000", "c2:1"});
  both({"HEXISTS", "lock", "c1:1"});
  both({"HGET", "lock", "c2:1"});
}

TEST_P(RealScripts, RLockUnlockCountsDownThenDeletesAndPublishes) {
  auto waiter = connect();
  EXPECT_EQ(waiter->command({"SUBSCRIBE", kChannel}), model.subscribe(SubscriberId{1}, kChannel));
  script(kRLockTryLock, {"lock"}, {"30000", "c1:1"});
  script(kRLockTryLock, {"lock"}, {"30000", "c1:1"});
  script(kRLockUnlock, {"lock", kChannel}, {"0", "30000", "c2:1"});
  script(kRLockUnlock, {"lock", kChannel}, {"0", "30000", "c1:1"});
  both({"HGET", "lock", "c1:1"});
  both_pttl("lock");
  EXPECT_TRUE(published.empty());
  script(kRLockUnlock, {"lock", kChannel}, {"0", "30000", "c1:1"});
  both({"EXISTS", "lock"});
  ASSERT_EQ(published, (std::vector<Message>{{SubscriberId{1}, kChannel, "0"}}));
  EXPECT_EQ(waiter->read(), Reply::array({Reply::bulk("message"), Reply::bulk(kChannel), Reply::bulk("0")}));
  script(kRLockUnlock, {"lock", kChannel}, {"0", "30000", "c1:1"});
}

TEST_P(RealScripts, RLockRenewRestartsOnlyTheHoldersLease) {
  script(kRLockRenew, {"lock"}, {"30000", "c1:1"});
  script(kRLockTryLock, {"lock"}, {"5000", "c1:1"});
  script(kRLockRenew, {"lock"}, {"30000", "c2:1"});
  both_pttl("lock");
  script(kRLockRenew, {"lock"}, {"30000", "c1:1"});
  both_pttl("lock");
}

TEST_P(RealScripts, CompareAndDeleteDeletesOnlyTheCallersToken) {
  script(kCompareAndDelete, {"lock"}, {"token-a"});
  both({"SET", "lock", "token-a", "NX", "PX", "30000"});
  script(kCompareAndDelete, {"lock"}, {"token-b"});
  both({"GET", "lock"});
  script(kCompareAndDelete, {"lock"}, {"token-a"});
  both({"EXISTS", "lock"});
  script(kCompareAndDelete, {"lock"}, {});
}

TEST_P(RealScripts, ErrorsInsideTheScripts) {
  both({"SET", "lock", "x"});
  script(kRLockTryLock, {"lock"}, {"30000", "c1:1"});
  script(kRLockUnlock, {"lock", kChannel}, {"0", "30000", "c1:1"});
  script(kRLockRenew, {"lock"}, {"30000", "c1:1"});
  both({"HSET", "h", "f", "v"});
  script(kCompareAndDelete, {"h"}, {"v"});
  script(kRLockTryLock, {}, {"30000", "c1:1"});
  script(kRLockTryLock, {"lock2"}, {"30000"});
  script(kRLockTryLock, {"lock2"}, {"soon", "c1:1"});
  both({"HGET", "lock2", "c1:1"});  // the hincrby before the failing pexpire stays
  script(kRLockUnlock, {"lock2"}, {"0", "30000"});
  script(kCompareAndDelete, {}, {});
}

// redis.call's own rules, a Lua line on the server next to a C++ script
// doing the same on the model.
TEST_F(RedisConformance, RedisCallInsideAScriptHasItsOwnErrorsAndNoRollback) {
  struct Case {
    const char* lua;
    Command call;
  };
  both({"HSET", "h", "f", "v"});
  for (const Case& c : std::vector<Case>{{"return redis.call('nope')", {"nope"}},
                                         {"return redis.call('get')", {"get"}},
                                         {"return redis.call('fcall', 'x', '0')", {"fcall", "x", "0"}},
                                         {"return redis.call()", {}},
                                         {"return redis.call('incr', 'h')", {"incr", "h"}}}) {
    const std::string marker = show(c.call);
    model.register_script("case", [&](ScriptContext& s) {
      s.call({"set", "written", marker});
      return s.call(c.call);
    });
    const Reply r = real({"EVAL", "redis.call('set', 'written', ARGV[1])\n" + std::string(c.lua), "0", marker});
    const Reply m = sim({"FCALL", "case", "0", marker});
    ASSERT_TRUE(r.is_error() && m.is_error()) << to_string(r) << " vs " << to_string(m);
    EXPECT_TRUE(r.text.starts_with(m.text + " script: ")) << to_string(r) << " vs " << to_string(m);
    both({"GET", "written"});
  }
}

INSTANTIATE_TEST_SUITE_P(Both, RealScripts, ::testing::Values(Via::Eval, Via::Fcall),
                         [](const auto& info) { return info.param == Via::Eval ? "Eval" : "Fcall"; });

}  // namespace
}  // namespace zksim::redis
