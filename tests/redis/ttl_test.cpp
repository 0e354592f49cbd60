// Millisecond TTLs: SET PX/EX/PXAT/EXAT/KEEPTTL, PEXPIRE, PTTL, lazy expiry.
#include "model_fixture.h"

namespace zksim::redis {
namespace {

using RedisTtl = RedisModel;

TEST_F(RedisTtl, AKeyExistsThroughItsDeadlineAndIsGoneAfterIt) {
  run({"SET", "k", "v", "PX", "50"});
  now += 50;  // now == deadline: db.c keyIsExpired expires only when now > when
  EXPECT_EQ(run({"GET", "k"}), B("v"));
  EXPECT_EQ(run({"PTTL", "k"}), I(0));
  now += 1;
  EXPECT_EQ(run({"GET", "k"}), kNil);
  EXPECT_EQ(run({"EXISTS", "k"}), I(0));
}

TEST_F(RedisTtl, PttlIsMinusTwoForNoKeyMinusOneForNoDeadline) {
  EXPECT_EQ(run({"PTTL", "k"}), I(-2));
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"PTTL", "k"}), I(-1));
  run({"PEXPIRE", "k", "300"});
  now += 100;
  EXPECT_EQ(run({"PTTL", "k"}), I(200));
}

TEST_F(RedisTtl, SetExCountsSeconds) {
  run({"SET", "k", "v", "EX", "2"});
  EXPECT_EQ(run({"PTTL", "k"}), I(2000));
}

TEST_F(RedisTtl, SetPxatAndExatAreAbsolute) {
  run({"SET", "a", "v", "PXAT", std::to_string(now + 700)});
  run({"SET", "b", "v", "EXAT", "5"});
  EXPECT_EQ(run({"PTTL", "a"}), I(700));
  EXPECT_EQ(run({"PTTL", "b"}), I(5000 - now));
}

TEST_F(RedisTtl, SetWithoutKeepTtlClearsTheDeadline) {
  run({"SET", "k", "v", "PX", "100"});
  run({"SET", "k", "w"});
  EXPECT_EQ(run({"PTTL", "k"}), I(-1));
}

TEST_F(RedisTtl, SetKeepTtlKeepsTheDeadline) {
  run({"SET", "k", "v", "PX", "100"});
  now += 40;
  EXPECT_EQ(run({"SET", "k", "w", "KEEPTTL"}), kOk);
  EXPECT_EQ(run({"PTTL", "k"}), I(60));
  EXPECT_EQ(run({"GET", "k"}), B("w"));
}

TEST_F(RedisTtl, SetExpireMustBeAPositiveInteger) {
  const Reply invalid = E("ERR invalid expire time in 'set' command");
  EXPECT_EQ(run({"SET", "k", "v", "PX", "0"}), invalid);
  EXPECT_EQ(run({"SET", "k", "v", "PX", "-1"}), invalid);
  EXPECT_EQ(run({"SET", "k", "v", "EX", "9223372036854776"}), invalid);  // * 1000 overflows
  EXPECT_EQ(run({"SET", "k", "v", "PX", "9223372036854775807"}), invalid);  // + now overflows
  EXPECT_EQ(run({"SET", "k", "v", "PX", "ten"}), kNotInteger);
  EXPECT_EQ(run({"EXISTS", "k"}), I(0));
}

TEST_F(RedisTtl, SetNxSucceedsOnceTheHolderExpired) {
  EXPECT_EQ(run({"SET", "lock", "a", "NX", "PX", "100"}), kOk);
  now += 100;
  EXPECT_EQ(run({"SET", "lock", "b", "NX", "PX", "100"}), kNil);
  now += 1;
  EXPECT_EQ(run({"SET", "lock", "b", "NX", "PX", "100"}), kOk);
}

TEST_F(RedisTtl, PexpireOfAMissingKeyIsZero) { EXPECT_EQ(run({"PEXPIRE", "k", "100"}), I(0)); }

TEST_F(RedisTtl, PexpireAtOrBeforeNowDeletesAtOnce) {
  run({"SET", "a", "v"});
  run({"SET", "b", "v"});
  EXPECT_EQ(run({"PEXPIRE", "a", "0"}), I(1));
  EXPECT_EQ(run({"PEXPIRE", "b", "-10"}), I(1));
  EXPECT_EQ(run({"EXISTS", "a", "b"}), I(0));
}

TEST_F(RedisTtl, PexpireOptionsCompareWithTheCurrentDeadline) {
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "XX"}), I(0));
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "GT"}), I(0));  // no deadline is infinite
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "NX"}), I(1));
  EXPECT_EQ(run({"PEXPIRE", "k", "200", "NX"}), I(0));
  EXPECT_EQ(run({"PEXPIRE", "k", "50", "GT"}), I(0));
  EXPECT_EQ(run({"PEXPIRE", "k", "200", "gt"}), I(1));
  EXPECT_EQ(run({"PEXPIRE", "k", "300", "LT"}), I(0));
  EXPECT_EQ(run({"PEXPIRE", "k", "150", "LT", "XX"}), I(1));
  EXPECT_EQ(run({"PTTL", "k"}), I(150));
}

TEST_F(RedisTtl, PexpireRefusesBadOptionsAndNumbers) {
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "NX", "XX"}), E("ERR NX and XX, GT or LT options at the same time are not compatible"));
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "GT", "LT"}), E("ERR GT and LT options at the same time are not compatible"));
  EXPECT_EQ(run({"PEXPIRE", "k", "100", "soon"}), E("ERR Unsupported option soon"));
  EXPECT_EQ(run({"PEXPIRE", "k", "1.5"}), kNotInteger);
  EXPECT_EQ(run({"PEXPIRE", "k", "9223372036854775807"}), E("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(run({"PTTL", "k"}), I(-1));
}

TEST_F(RedisTtl, WritesToAHashKeepItsDeadline) {
  run({"HSET", "h", "f", "1"});
  run({"PEXPIRE", "h", "100"});
  run({"HSET", "h", "g", "1"});
  run({"HINCRBY", "h", "f", "1"});
  EXPECT_EQ(run({"PTTL", "h"}), I(100));
}

TEST_F(RedisTtl, IncrKeepsTheDeadline) {
  run({"SET", "n", "1", "PX", "100"});
  run({"INCR", "n"});
  EXPECT_EQ(run({"PTTL", "n"}), I(100));
}

TEST_F(RedisTtl, AnExpiredKeyIsRecreatedWithoutItsOldDeadline) {
  run({"SET", "n", "5", "PX", "10"});
  now += 11;
  EXPECT_EQ(run({"INCR", "n"}), I(1));
  EXPECT_EQ(run({"PTTL", "n"}), I(-1));
}

TEST_F(RedisTtl, DelDoesNotCountAnExpiredKey) {
  run({"SET", "k", "v", "PX", "10"});
  now += 11;
  EXPECT_EQ(run({"DEL", "k"}), I(0));
}

}  // namespace
}  // namespace zksim::redis
