// Hashes: HSET, HGET, HDEL, HEXISTS, HINCRBY, HLEN.
#include "model_fixture.h"

namespace zksim::redis {
namespace {

using RedisHashes = RedisModel;

TEST_F(RedisHashes, HsetCountsOnlyNewFields) {
  EXPECT_EQ(run({"HSET", "h", "a", "1", "b", "2"}), I(2));
  EXPECT_EQ(run({"HSET", "h", "a", "3", "c", "4", "c", "5"}), I(1));
  EXPECT_EQ(run({"HGET", "h", "a"}), B("3"));
  EXPECT_EQ(run({"HGET", "h", "c"}), B("5"));
  EXPECT_EQ(run({"HLEN", "h"}), I(3));
}

TEST_F(RedisHashes, HsetNeedsWholePairs) {
  EXPECT_EQ(run({"HSET", "h", "a", "1", "b"}), E("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(run({"EXISTS", "h"}), I(0));
}

TEST_F(RedisHashes, ReadsOfAMissingHashAreEmpty) {
  EXPECT_EQ(run({"HGET", "h", "f"}), kNil);
  EXPECT_EQ(run({"HEXISTS", "h", "f"}), I(0));
  EXPECT_EQ(run({"HLEN", "h"}), I(0));
  EXPECT_EQ(run({"HDEL", "h", "f"}), I(0));
}

TEST_F(RedisHashes, HexistsTellsAField) {
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"HEXISTS", "h", "f"}), I(1));
  EXPECT_EQ(run({"HEXISTS", "h", "g"}), I(0));
}

TEST_F(RedisHashes, HdelOfTheLastFieldDeletesTheKey) {
  run({"HSET", "h", "a", "1", "b", "2"});
  run({"PEXPIRE", "h", "100"});
  EXPECT_EQ(run({"HDEL", "h", "a", "x", "a"}), I(1));
  EXPECT_EQ(run({"HDEL", "h", "b"}), I(1));
  EXPECT_EQ(run({"EXISTS", "h"}), I(0));
  EXPECT_EQ(run({"PTTL", "h"}), I(-2));
  run({"HSET", "h", "a", "1"});
  EXPECT_EQ(run({"PTTL", "h"}), I(-1));  // the old deadline went with the key
}

TEST_F(RedisHashes, HincrbyCountsUpAndDown) {
  EXPECT_EQ(run({"HINCRBY", "h", "f", "1"}), I(1));
  EXPECT_EQ(run({"HINCRBY", "h", "f", "5"}), I(6));
  EXPECT_EQ(run({"HINCRBY", "h", "f", "-7"}), I(-1));
  EXPECT_EQ(run({"HGET", "h", "f"}), B("-1"));
}

TEST_F(RedisHashes, HincrbyRefusesANonIntegerIncrementBeforeLookingAtTheKey) {
  run({"SET", "s", "v"});
  EXPECT_EQ(run({"HINCRBY", "s", "f", "x"}), kNotInteger);
  EXPECT_EQ(run({"HINCRBY", "h", "f", "1.0"}), kNotInteger);
  EXPECT_EQ(run({"EXISTS", "h"}), I(0));
}

TEST_F(RedisHashes, HincrbyOfANonIntegerFieldIsRefused) {
  run({"HSET", "h", "f", "abc"});
  EXPECT_EQ(run({"HINCRBY", "h", "f", "1"}), E("ERR hash value is not an integer"));
}

TEST_F(RedisHashes, HincrbyOverflowIsRefused) {
  run({"HSET", "h", "f", "-9223372036854775808"});
  EXPECT_EQ(run({"HINCRBY", "h", "f", "-1"}), E("ERR increment or decrement would overflow"));
  EXPECT_EQ(run({"HGET", "h", "f"}), B("-9223372036854775808"));
}

TEST_F(RedisHashes, HashCommandsOnAStringAreWrongType) {
  run({"SET", "s", "v"});
  for (const Command& c : std::vector<Command>{{"HSET", "s", "f", "v"}, {"HGET", "s", "f"}, {"HDEL", "s", "f"},
                                               {"HEXISTS", "s", "f"}, {"HINCRBY", "s", "f", "1"}, {"HLEN", "s"}}) {
    EXPECT_EQ(run(c), kWrongType) << c[0];
  }
  EXPECT_EQ(run({"GET", "s"}), B("v"));
}

}  // namespace
}  // namespace zksim::redis
