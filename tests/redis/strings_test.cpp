// Strings: GET, SET and its options, DEL, EXISTS, INCR.
#include "model_fixture.h"

namespace zksim::redis {
namespace {

using RedisStrings = RedisModel;

TEST_F(RedisStrings, GetOfAMissingKeyIsNil) { EXPECT_EQ(run({"GET", "k"}), kNil); }

TEST_F(RedisStrings, SetThenGetReturnsTheValueBinarySafe) {
  const std::string value("a\0b\r\n", 5);
  EXPECT_EQ(run({"SET", "k", value}), kOk);
  EXPECT_EQ(run({"GET", "k"}), B(value));
}

TEST_F(RedisStrings, CommandNamesAndOptionsIgnoreCase) {
  EXPECT_EQ(run({"sEt", "k", "v", "nX", "pX", "100"}), kOk);
  EXPECT_EQ(run({"get", "k"}), B("v"));
}

TEST_F(RedisStrings, SetNxSetsOnlyAMissingKey) {
  EXPECT_EQ(run({"SET", "k", "a", "NX"}), kOk);
  EXPECT_EQ(run({"SET", "k", "b", "NX"}), kNil);
  EXPECT_EQ(run({"GET", "k"}), B("a"));
}

TEST_F(RedisStrings, SetXxSetsOnlyAnExistingKey) {
  EXPECT_EQ(run({"SET", "k", "a", "XX"}), kNil);
  EXPECT_EQ(run({"EXISTS", "k"}), I(0));
  run({"SET", "k", "a"});
  EXPECT_EQ(run({"SET", "k", "b", "XX"}), kOk);
  EXPECT_EQ(run({"GET", "k"}), B("b"));
}

TEST_F(RedisStrings, SetNxWithXxIsASyntaxError) {
  EXPECT_EQ(run({"SET", "k", "a", "NX", "XX"}), kSyntax);
  EXPECT_EQ(run({"SET", "k", "a", "XX", "NX"}), kSyntax);
}

TEST_F(RedisStrings, SetGetRepliesTheOldValueWhetherOrNotItSets) {
  EXPECT_EQ(run({"SET", "k", "a", "GET"}), kNil);
  EXPECT_EQ(run({"SET", "k", "b", "GET"}), B("a"));
  EXPECT_EQ(run({"SET", "k", "c", "NX", "GET"}), B("b"));
  EXPECT_EQ(run({"GET", "k"}), B("b"));
}

TEST_F(RedisStrings, SetGetOnAHashIsWrongTypeAndSetsNothing) {
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"SET", "h", "v", "GET"}), kWrongType);
  EXPECT_EQ(run({"HGET", "h", "f"}), B("v"));
}

TEST_F(RedisStrings, SetReplacesAHash) {
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"SET", "h", "v"}), kOk);
  EXPECT_EQ(run({"GET", "h"}), B("v"));
}

TEST_F(RedisStrings, UnknownSetOptionIsASyntaxError) {
  EXPECT_EQ(run({"SET", "k", "v", "NOPE"}), kSyntax);
  EXPECT_EQ(run({"SET", "k", "v", "PX"}), kSyntax);  // PX without its number
  EXPECT_EQ(run({"SET", "k", "v", "PX", "10", "EX", "10"}), kSyntax);
  EXPECT_EQ(run({"SET", "k", "v", "KEEPTTL", "PX", "10"}), kSyntax);
  EXPECT_EQ(run({"EXISTS", "k"}), I(0));
}

TEST_F(RedisStrings, DelCountsTheKeysItRemoved) {
  run({"SET", "a", "1"});
  run({"HSET", "b", "f", "1"});
  EXPECT_EQ(run({"DEL", "a", "b", "c", "a"}), I(2));
  EXPECT_EQ(run({"EXISTS", "a", "b"}), I(0));
}

TEST_F(RedisStrings, ExistsCountsAKeyAsOftenAsItIsNamed) {
  run({"SET", "a", "1"});
  EXPECT_EQ(run({"EXISTS", "a", "a", "b"}), I(2));
}

TEST_F(RedisStrings, IncrStartsAMissingKeyAtZero) {
  EXPECT_EQ(run({"INCR", "n"}), I(1));
  EXPECT_EQ(run({"INCR", "n"}), I(2));
  EXPECT_EQ(run({"GET", "n"}), B("2"));
}

TEST_F(RedisStrings, IncrRefusesWhatIsNotACanonicalInteger) {
  for (const char* v : {"x", "", " 1", "1 ", "+1", "01", "-0", "1.5", "99999999999999999999"}) {
    run({"SET", "n", v});
    EXPECT_EQ(run({"INCR", "n"}), kNotInteger) << v;
  }
  run({"SET", "n", "-5"});
  EXPECT_EQ(run({"INCR", "n"}), I(-4));
}

TEST_F(RedisStrings, IncrPastInt64MaxOverflows) {
  run({"SET", "n", "9223372036854775807"});
  EXPECT_EQ(run({"INCR", "n"}), E("ERR increment or decrement would overflow"));
  EXPECT_EQ(run({"GET", "n"}), B("9223372036854775807"));
}

TEST_F(RedisStrings, StringCommandsOnAHashAreWrongType) {
  run({"HSET", "h", "f", "v"});
  EXPECT_EQ(run({"GET", "h"}), kWrongType);
  EXPECT_EQ(run({"INCR", "h"}), kWrongType);
}

}  // namespace
}  // namespace zksim::redis
