// Every command and option of the subset, and every error the model claims,
// on the real server and on the model, replies compared exactly; TTLs
// compared within a few milliseconds.
#include "real_fixture.h"

namespace zksim::redis {
namespace {

using RealTtl = RedisConformance;

class Sequence : public RedisConformance {
 protected:
  void run(std::initializer_list<Command> commands) {
    for (const Command& c : commands) both(c);
  }
};
using RealStringsSeq = Sequence;
using RealHashesSeq = Sequence;
using RealTtlSeq = Sequence;
using RealErrorsSeq = Sequence;

TEST_F(RealStringsSeq, GetSetDelExists) {
  run({{"GET", "k"},
       {"SET", "k", std::string("a\0b\r\n", 5)},
       {"GET", "k"},
       {"sEt", "k", "v2"},
       {"get", "k"},
       {"EXISTS", "k", "k", "nope"},
       {"DEL", "k", "nope", "k"},
       {"EXISTS", "k"}});
}

TEST_F(RealStringsSeq, SetNxXxGet) {
  run({{"SET", "k", "a", "XX"},
       {"SET", "k", "a", "NX"},
       {"SET", "k", "b", "nx"},
       {"SET", "k", "b", "XX"},
       {"SET", "k", "c", "GET"},
       {"SET", "k", "d", "NX", "GET"},
       {"SET", "new", "d", "XX", "GET"},
       {"SET", "new", "d", "NX", "GET"},
       {"GET", "k"},
       {"GET", "new"},
       {"SET", "k", "e", "NX", "NX"},
       {"HSET", "h", "f", "v"},
       {"SET", "h", "v", "GET"},
       {"SET", "h", "v"},
       {"GET", "h"}});
}

TEST_F(RealStringsSeq, SetSyntaxErrors) {
  run({{"SET", "k", "v", "NX", "XX"},
       {"SET", "k", "v", "XX", "NX"},
       {"SET", "k", "v", "NOPE"},
       {"SET", "k", "v", "PX"},
       {"SET", "k", "v", "EX"},
       {"SET", "k", "v", "PX", "10", "EX", "10"},
       {"SET", "k", "v", "EX", "10", "PXAT", "10"},
       {"SET", "k", "v", "KEEPTTL", "PX", "10"},
       {"SET", "k", "v", "PX", "10", "KEEPTTL"},
       {"SET", "k", "v", "PX", "10", "PX", "20"},
       {"SET", "k", "v", "PERSIST"},
       {"EXISTS", "k"}});
}

TEST_F(RealStringsSeq, SetExpireErrors) {
  run({{"SET", "k", "v", "PX", "0"},
       {"SET", "k", "v", "PX", "-5"},
       {"SET", "k", "v", "EX", "0"},
       {"SET", "k", "v", "PX", "ten"},
       {"SET", "k", "v", "PX", "1.5"},
       {"SET", "k", "v", "PX", " 10"},
       {"SET", "k", "v", "EX", "9223372036854776"},
       {"SET", "k", "v", "PX", "9223372036854775807"},
       {"SET", "k", "v", "PXAT", "0"},
       {"SET", "k", "v", "EXAT", "-1"},
       {"SET", "k", "v", "NX", "PX", "0"},
       {"EXISTS", "k"}});
}

TEST_F(RealStringsSeq, Incr) {
  run({{"INCR", "n"},
       {"INCR", "n"},
       {"GET", "n"},
       {"SET", "n", "-5"},
       {"INCR", "n"},
       {"SET", "n", "9223372036854775806"},
       {"INCR", "n"},
       {"INCR", "n"},
       {"GET", "n"},
       {"HSET", "h", "f", "1"},
       {"INCR", "h"}});
  for (const char* v : {"x", "", " 1", "1 ", "+1", "01", "-0", "1.5", "99999999999999999999", "-9223372036854775809"}) {
    run({{"SET", "n", v}, {"INCR", "n"}});
  }
}

TEST_F(RealHashesSeq, HsetHgetHlenHexists) {
  run({{"HGET", "h", "a"},
       {"HLEN", "h"},
       {"HEXISTS", "h", "a"},
       {"HSET", "h", "a", "1", "b", "2"},
       {"HSET", "h", "a", "3", "c", "4", "c", "5"},
       {"HGET", "h", "a"},
       {"HGET", "h", "c"},
       {"HGET", "h", "zz"},
       {"HLEN", "h"},
       {"HEXISTS", "h", "b"},
       {"HEXISTS", "h", "zz"},
       {"HSET", "h", "a", "1", "b"}});
}

TEST_F(RealHashesSeq, HdelOfTheLastFieldTakesTheKeyAndItsTtl) {
  run({{"HDEL", "h", "a"},
       {"HSET", "h", "a", "1", "b", "2"},
       {"PEXPIRE", "h", "100000"},
       {"HDEL", "h", "a", "x", "a"},
       {"HDEL", "h", "b", "c"},
       {"EXISTS", "h"},
       {"HSET", "h", "a", "1"},
       {"PTTL", "h"}});
}

TEST_F(RealHashesSeq, Hincrby) {
  run({{"HINCRBY", "h", "f", "1"},
       {"HINCRBY", "h", "f", "5"},
       {"HINCRBY", "h", "f", "-7"},
       {"HGET", "h", "f"},
       {"HINCRBY", "h", "f", "x"},
       {"HINCRBY", "h", "f", "1.0"},
       {"HINCRBY", "new", "f", "x"},
       {"EXISTS", "new"},
       {"HSET", "h", "s", "abc"},
       {"HINCRBY", "h", "s", "1"},
       {"HSET", "h", "m", "-9223372036854775808"},
       {"HINCRBY", "h", "m", "-1"},
       {"HSET", "h", "p", "9223372036854775800"},
       {"HINCRBY", "h", "p", "8"},
       {"HGET", "h", "m"},
       {"SET", "s", "v"},
       {"HINCRBY", "s", "f", "x"},
       {"HINCRBY", "s", "f", "1"}});
}

TEST_F(RealHashesSeq, WrongTypes) {
  run({{"SET", "s", "v"},
       {"HSET", "s", "f", "v"},
       {"HGET", "s", "f"},
       {"HDEL", "s", "f"},
       {"HEXISTS", "s", "f"},
       {"HLEN", "s"},
       {"HSET", "h", "f", "v"},
       {"GET", "h"},
       {"INCR", "h"},
       {"GET", "s"}});
}

TEST_F(RealErrorsSeq, ArityAndUnknownCommands) {
  run({{"GET"},
       {"GeT", "a", "b"},
       {"SET", "k"},
       {"DEL"},
       {"EXISTS"},
       {"INCR"},
       {"INCR", "a", "b"},
       {"PEXPIRE", "k"},
       {"PTTL"},
       {"HSET", "h", "f"},
       {"HGET", "h"},
       {"HDEL", "h"},
       {"HEXISTS", "h"},
       {"HINCRBY", "h", "f"},
       {"HLEN"},
       {"PUBLISH", "ch"},
       {"FCALL", "f"},
       {"NOPE"},
       {"NOPE", "a", "b"},
       {"NOPE", "a\r\nb"},
       {"NOPE", std::string(200, 'x'), "y"},
       {"NOPE", std::string(100, 'x'), std::string(100, 'y'), "z"}});
}

TEST_F(RealErrorsSeq, FcallErrors) {
  run({{"FCALL", "nope", "0"},
       {"FCALL", std::string(scripts::kRLockRenew), "x"},
       {"FCALL", std::string(scripts::kRLockRenew), "2", "k"},
       {"FCALL", std::string(scripts::kRLockRenew), "-1"}});
}

TEST_F(RealTtlSeq, PexpireOptionsAndErrors) {
  run({{"PEXPIRE", "k", "100000"},
       {"SET", "k", "v"},
       {"PEXPIRE", "k", "100000", "XX"},
       {"PEXPIRE", "k", "100000", "GT"},
       {"PEXPIRE", "k", "100000", "LT"},
       {"PEXPIRE", "k", "100000", "NX"},
       {"PEXPIRE", "k", "200000", "NX"},
       {"PEXPIRE", "k", "50000", "GT"},
       {"PEXPIRE", "k", "200000", "gt"},
       {"PEXPIRE", "k", "300000", "LT"},
       {"PEXPIRE", "k", "150000", "LT", "XX"},
       {"PEXPIRE", "k", "100", "NX", "XX"},
       {"PEXPIRE", "k", "100", "NX", "GT"},
       {"PEXPIRE", "k", "100", "GT", "LT"},
       {"PEXPIRE", "k", "100", "soon"},
       {"PEXPIRE", "k", "1.5"},
       {"PEXPIRE", "k", "9223372036854775807"},
       {"PEXPIRE", "k", "-9223372036854775808"},
       {"EXISTS", "k"},
       {"SET", "a", "v"},
       {"SET", "b", "v"},
       {"PEXPIRE", "a", "0"},
       {"PEXPIRE", "b", "-10", "NX"},
       {"EXISTS", "a", "b"},
       {"PTTL", "a"},
       {"SET", "p", "v"},
       {"PTTL", "p"}});
}

TEST_F(RealTtl, PttlCountsDown) {
  both({"SET", "k", "v", "PX", "5000"});
  both_pttl("k");
  sleep_ms(100);
  both_pttl("k");
  both({"PEXPIRE", "k", "3000"});
  both_pttl("k");
  both_pttl("missing");
}

TEST_F(RealTtl, SetExEXatPxat) {
  both({"SET", "ex", "v", "EX", "7"});
  both({"SET", "px", "v", "px", "7000"});
  both({"SET", "pxat", "v", "PXAT", std::to_string(wall_ms() + 7000)});
  both({"SET", "exat", "v", "EXAT", std::to_string(wall_ms() / 1000 + 7)});
  for (const char* k : {"ex", "px", "pxat"}) both_pttl(k);
  both_pttl("exat", 1000);
}

TEST_F(RealTtl, APx50KeyIsGoneAfter120Ms) {
  both({"SET", "k", "v", "PX", "50"});
  both({"HSET", "h", "f", "1"});
  both({"PEXPIRE", "h", "50"});
  both({"EXISTS", "k", "h"});
  sleep_ms(120);
  both({"GET", "k"});
  both({"HGET", "h", "f"});
  both({"EXISTS", "k", "h"});
  both({"PTTL", "k"});
  both({"DEL", "k", "h"});
}

TEST_F(RealTtl, SetNxSucceedsOnceTheHolderExpired) {
  both({"SET", "lock", "a", "NX", "PX", "50"});
  both({"SET", "lock", "b", "NX", "PX", "50"});
  sleep_ms(120);
  both({"SET", "lock", "b", "NX", "PX", "5000"});
  both({"GET", "lock"});
}

TEST_F(RealTtl, KeepTtlKeepsAndPlainSetClears) {
  both({"SET", "k", "v", "PX", "5000"});
  both({"SET", "k", "w", "KEEPTTL"});
  both_pttl("k");
  both({"SET", "k", "x", "GET"});
  both({"PTTL", "k"});
  both({"SET", "n", "1", "PX", "5000"});
  both({"INCR", "n"});
  both_pttl("n");
  both({"HSET", "h", "f", "1"});
  both({"PEXPIRE", "h", "5000"});
  both({"HSET", "h", "g", "1"});
  both({"HINCRBY", "h", "f", "1"});
  both_pttl("h");
}

TEST_F(RealTtl, AnExpiredKeyComesBackWithoutItsDeadline) {
  both({"SET", "n", "5", "PX", "30"});
  sleep_ms(80);
  both({"INCR", "n"});
  both({"PTTL", "n"});
  both({"DEL", "n"});
}

}  // namespace
}  // namespace zksim::redis
