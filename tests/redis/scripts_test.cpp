// Scripts: FCALL of a registered C++ function, redis.call's rules inside
// it, and the lock recipes' four scripts.
#include "model_fixture.h"

#include <string>

namespace zksim::redis {
namespace {

using RedisScripts = RedisModel;
using scripts::kCompareAndDelete;
using scripts::kRLockRenew;
using scripts::kRLockTryLock;
using scripts::kRLockUnlock;

Command fcall(std::string_view name, std::vector<std::string> keys, std::vector<std::string> args) {
  Command c{"FCALL", std::string(name), std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

TEST_F(RedisScripts, FcallSplitsKeysFromArgsByNumkeys) {
  node.register_script("echo", [](ScriptContext& s) {
    std::vector<Reply> out;
    for (const auto& k : s.keys()) out.push_back(B("K" + k));
    for (const auto& a : s.args()) out.push_back(B("A" + a));
    return Reply::array(out);
  });
  EXPECT_EQ(run({"FCALL", "echo", "1", "k", "a", "b"}), Reply::array({B("Kk"), B("Aa"), B("Ab")}));
  EXPECT_EQ(run({"FCALL", "echo", "0"}), Reply::array({}));
}

TEST_F(RedisScripts, FcallRefusesUnknownFunctionsAndBadKeyCounts) {
  EXPECT_EQ(run({"FCALL", "nope", "0"}), E("ERR Function not found"));
  EXPECT_EQ(run({"FCALL", kRLockRenew.data(), "x"}), E("ERR Bad number of keys provided"));
  EXPECT_EQ(run({"FCALL", kRLockRenew.data(), "2", "k"}), E("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(run({"FCALL", kRLockRenew.data(), "-1"}), E("ERR Number of keys can't be negative"));
}

TEST_F(RedisScripts, InsideAScriptRedisCallHasItsOwnErrors) {
  node.register_script("bad", [](ScriptContext& s) {
    return Reply::array({s.call({"NOPE"}), s.call({"GET"}), s.call({"FCALL", "bad", "0"}), s.call({})});
  });
  EXPECT_EQ(run({"FCALL", "bad", "0"}),
            Reply::array({E("ERR Unknown Redis command called from script"),
                          E("ERR Wrong number of args calling Redis command from script"),
                          E("ERR This Redis command is not allowed from script"),
                          E("ERR Please specify at least one argument for this redis lib call")}));
}

TEST_F(RedisScripts, WritesBeforeAnErrorInAScriptStay) {
  node.register_script("half", [](ScriptContext& s) {
    s.call({"SET", "written", "1"});
    return s.call({"INCR", "written-not"});
  });
  run({"HSET", "written-not", "f", "v"});
  EXPECT_EQ(run({"FCALL", "half", "0"}), kWrongType);
  EXPECT_EQ(run({"GET", "written"}), B("1"));
}

TEST_F(RedisScripts, RegisteringANameAgainReplacesTheScript) {
  node.register_script("s", [](ScriptContext&) { return I(1); });
  node.register_script("s", [](ScriptContext&) { return I(2); });
  EXPECT_EQ(run({"FCALL", "s", "0"}), I(2));
}

TEST_F(RedisScripts, RLockTryLockTakesAFreeLockWithItsLease) {
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"})), kNil);
  EXPECT_EQ(run({"HGET", "lock", "c1:1"}), B("1"));
  EXPECT_EQ(run({"PTTL", "lock"}), I(30000));
}

TEST_F(RedisScripts, RLockTryLockIsReentrantAndRestartsTheLease) {
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  now += 10000;
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"})), kNil);
  EXPECT_EQ(run({"HGET", "lock", "c1:1"}), B("2"));
  EXPECT_EQ(run({"PTTL", "lock"}), I(30000));
}

TEST_F(RedisScripts, RLockTryLockHeldByAnotherRepliesItsRemainingTtl) {
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  now += 1234;
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"30000", "c2:1"})), I(30000 - 1234));
  EXPECT_EQ(run({"HLEN", "lock"}), I(1));
}

TEST_F(RedisScripts, RLockTryLockSucceedsOnceTheLeaseRanOut) {
  run(fcall(kRLockTryLock, {"lock"}, {"100", "c1:1"}));
  now += 101;
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"100", "c2:1"})), kNil);
  EXPECT_EQ(run({"HEXISTS", "lock", "c1:1"}), I(0));
}

TEST_F(RedisScripts, RLockUnlockByANonHolderIsNilAndChangesNothing) {
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  EXPECT_EQ(run(fcall(kRLockUnlock, {"lock", "redisson_lock__channel:{lock}"}, {"0", "30000", "c2:1"})), kNil);
  EXPECT_EQ(run({"HGET", "lock", "c1:1"}), B("1"));
}

TEST_F(RedisScripts, RLockUnlockCountsDownAReentrantHoldAndRestartsTheLease) {
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  now += 5000;
  EXPECT_EQ(run(fcall(kRLockUnlock, {"lock", "ch"}, {"0", "30000", "c1:1"})), I(0));
  EXPECT_EQ(run({"HGET", "lock", "c1:1"}), B("1"));
  EXPECT_EQ(run({"PTTL", "lock"}), I(30000));
  EXPECT_TRUE(published.empty());
}

TEST_F(RedisScripts, RLockUnlockOfTheLastHoldDeletesAndPublishes) {
  const SubscriberId waiter{7};
  node.subscribe(waiter, "redisson_lock__channel:{lock}");
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  EXPECT_EQ(run(fcall(kRLockUnlock, {"lock", "redisson_lock__channel:{lock}"}, {"0", "30000", "c1:1"})), I(1));
  EXPECT_EQ(run({"EXISTS", "lock"}), I(0));
  EXPECT_EQ(published, (std::vector<Message>{{waiter, "redisson_lock__channel:{lock}", "0"}}));
}

TEST_F(RedisScripts, RLockRenewRestartsOnlyTheHoldersLease) {
  run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"}));
  now += 10000;
  EXPECT_EQ(run(fcall(kRLockRenew, {"lock"}, {"30000", "c2:1"})), I(0));
  EXPECT_EQ(run({"PTTL", "lock"}), I(20000));
  EXPECT_EQ(run(fcall(kRLockRenew, {"lock"}, {"30000", "c1:1"})), I(1));
  EXPECT_EQ(run({"PTTL", "lock"}), I(30000));
}

TEST_F(RedisScripts, RLockScriptsOnAStringKeyAreWrongType) {
  run({"SET", "lock", "x"});
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"30000", "c1:1"})), kWrongType);
  EXPECT_EQ(run(fcall(kRLockUnlock, {"lock", "ch"}, {"0", "30000", "c1:1"})), kWrongType);
}

TEST_F(RedisScripts, ScriptsWithTooFewKeysOrArgsAreRefused) {
  const Reply refused = E("ERR Lua redis lib command arguments must be strings or integers");
  EXPECT_EQ(run(fcall(kRLockTryLock, {}, {"30000", "c1:1"})), refused);
  EXPECT_EQ(run(fcall(kRLockTryLock, {"lock"}, {"30000"})), refused);
  EXPECT_EQ(run(fcall(kCompareAndDelete, {}, {})), refused);
}

TEST_F(RedisScripts, CompareAndDeleteDeletesOnlyTheCallersToken) {
  run({"SET", "lock", "token-a", "NX", "PX", "1000"});
  EXPECT_EQ(run(fcall(kCompareAndDelete, {"lock"}, {"token-b"})), I(0));
  EXPECT_EQ(run({"GET", "lock"}), B("token-a"));
  EXPECT_EQ(run(fcall(kCompareAndDelete, {"lock"}, {"token-a"})), I(1));
  EXPECT_EQ(run({"EXISTS", "lock"}), I(0));
  EXPECT_EQ(run(fcall(kCompareAndDelete, {"lock"}, {"token-a"})), I(0));
}

TEST_F(RedisScripts, CompareAndDeleteSparesANewerHoldersKey) {
  run({"SET", "lock", "token-a", "NX", "PX", "100"});
  now += 101;  // a's lease ran out: b took the lock
  run({"SET", "lock", "token-b", "NX", "PX", "100"});
  EXPECT_EQ(run(fcall(kCompareAndDelete, {"lock"}, {"token-a"})), I(0));
  EXPECT_EQ(run({"GET", "lock"}), B("token-b"));
}

}  // namespace
}  // namespace zksim::redis
