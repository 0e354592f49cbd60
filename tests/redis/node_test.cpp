// The node as a whole: bad input, snapshots and restarts, determinism.
#include "model_fixture.h"

namespace zksim::redis {
namespace {

using RedisNode = RedisModel;

TEST_F(RedisNode, AnUnknownCommandNamesItselfAndItsFirstArgs) {
  EXPECT_EQ(run({"NOPE", "a", "b"}), E("ERR unknown command 'NOPE', with args beginning with: 'a' 'b' "));
  EXPECT_EQ(run({"NOPE", "a\r\nb"}), E("ERR unknown command 'NOPE', with args beginning with: 'a  b' "));
  EXPECT_EQ(run({"NOPE", std::string(200, 'x'), "y"}),
            E("ERR unknown command 'NOPE', with args beginning with: '" + std::string(128, 'x') + "' "));
  EXPECT_EQ(run({}), E("ERR unknown command '', with args beginning with: "));
}

TEST_F(RedisNode, AWrongArgumentCountNamesTheCommandInLowerCase) {
  EXPECT_EQ(run({"GET"}), E("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(run({"GeT", "a", "b"}), E("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(run({"SET", "k"}), E("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(run({"DEL"}), E("ERR wrong number of arguments for 'del' command"));
  EXPECT_EQ(run({"HSET", "h", "f"}), E("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(run({"HINCRBY", "h", "f"}), E("ERR wrong number of arguments for 'hincrby' command"));
  EXPECT_EQ(run({"PUBLISH", "ch"}), E("ERR wrong number of arguments for 'publish' command"));
  EXPECT_EQ(run({"FCALL", "f"}), E("ERR wrong number of arguments for 'fcall' command"));
}

TEST_F(RedisNode, ConnectionCommandsAreNotKeyspaceCommands) {
  EXPECT_TRUE(run({"SUBSCRIBE", "ch"}).is_error());
}

TEST_F(RedisNode, RestoreBringsBackTheSnapshotAndLosesLaterWrites) {
  run({"SET", "saved", "1"});
  run({"HSET", "h", "f", "1"});
  const Snapshot rdb = node.snapshot();
  run({"SET", "unsaved", "1"});
  run({"HSET", "h", "g", "1"});
  run({"DEL", "saved"});
  node.restore(rdb, now);
  EXPECT_EQ(run({"GET", "saved"}), B("1"));
  EXPECT_EQ(run({"EXISTS", "unsaved"}), I(0));
  EXPECT_EQ(run({"HLEN", "h"}), I(1));
}

TEST_F(RedisNode, ASnapshotDoesNotChangeWithTheNode) {
  run({"SET", "k", "1"});
  const Snapshot rdb = node.snapshot();
  run({"INCR", "k"});
  node.restore(rdb, now);
  EXPECT_EQ(run({"GET", "k"}), B("1"));
}

TEST_F(RedisNode, DeadlinesAreAbsoluteSoDowntimeCountsAgainstThem) {
  run({"SET", "k", "v", "PX", "1000"});
  const Snapshot rdb = node.snapshot();
  now += 400;
  node.restore(rdb, now);
  EXPECT_EQ(run({"PTTL", "k"}), I(600));
}

TEST_F(RedisNode, KeysPastTheirDeadlineAtLoadAreDropped) {
  run({"SET", "gone", "v", "PX", "100"});
  run({"SET", "edge", "v", "PX", "200"});
  const Snapshot rdb = node.snapshot();
  EXPECT_EQ(rdb.key_count(), 2u);
  now += 200;  // gone's deadline is before now: dropped; edge's is now: loaded, and alive this millisecond
  node.restore(rdb, now);
  EXPECT_EQ(run({"EXISTS", "gone"}), I(0));
  EXPECT_EQ(run({"PTTL", "edge"}), I(0));
}

TEST_F(RedisNode, ARestartDropsEverySubscriptionAndKeepsTheScripts) {
  node.subscribe(SubscriberId{1}, "ch");
  const Snapshot rdb = node.snapshot();
  node.restore(rdb, now);
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), I(0));
  EXPECT_EQ(run({"FCALL", scripts::kRLockTryLock.data(), "1", "lock", "100", "c:1"}), kNil);
}

TEST_F(RedisNode, ACopyIsIndependent) {
  run({"SET", "k", "1"});
  RedisState copy = node;
  run({"INCR", "k"});
  EXPECT_EQ(copy.apply({"GET", "k"}, now), B("1"));
  EXPECT_EQ(copy.apply({"FCALL", scripts::kCompareAndDelete.data(), "1", "k", "1"}, now), I(1));
}

// The same calls give the same replies and messages, whatever the keys'
// and channels' names hash to.
TEST_F(RedisNode, TheSameCallsGiveTheSameRepliesAndMessages) {
  auto session = [](RedisState n) {
    std::string log;
    std::vector<Message> out;
    TimeMs t = 0;
    for (int i = 0; i < 200; ++i) {
      const std::string key = "k" + std::to_string((i * 7919) % 13);
      n.subscribe(SubscriberId{i % 5}, key);
      log += to_string(n.apply({"SET", key, std::to_string(i), "PX", std::to_string(1 + i % 17)}, t));
      log += to_string(n.apply({"HINCRBY", "h" + key, key, "1"}, t));
      log += to_string(n.apply({"PUBLISH", key, std::to_string(i)}, t, &out));
      log += to_string(n.apply({"PTTL", "k" + std::to_string(i % 13)}, t));
      t += i % 3;
    }
    for (const Message& m : out) log += std::to_string(m.to.value) + m.channel + m.payload;
    return log;
  };
  EXPECT_EQ(session(node), session(node));
}

TEST_F(RedisNode, RepliesPrintAsRedisCliShowsThem) {
  EXPECT_EQ(to_string(Reply::array({kNil, I(3), kOk, B("a\"b"), E("ERR x")})),
            "[(nil), (integer) 3, OK, \"a\\\"b\", (error) ERR x]");
}

}  // namespace
}  // namespace zksim::redis
