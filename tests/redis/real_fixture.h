// The conformance tests' side of a real redis-server: one server per test
// binary (RedisServerEnvironment), hiredis connections to it, and a fixture
// that sends the same command to the server and to a model node and
// compares the replies.
//
// hiredis (Debian's libhiredis-dev, 0.14) is the client because it is the
// Redis project's own C client: minimal, synchronous (a test reads its
// replies in order), binary-safe argv in (redisCommandArgv) and RESP2
// replies out that map one to one onto redis::Reply, so nothing in between
// reshapes what the server said.
#pragma once

#include "zksim/redis/lock_scripts.h"
#include "zksim/redis/state.h"

#include "print.h"

#include "redis_server.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

struct redisContext;

namespace zksim::redis {

// The binary's one server.
test::RedisServer& redis_server();

// Starts the server before the first test, loads the lock scripts' Lua
// library (kLockLibrary) into it, and stops it after the last.
class RedisServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
};

// One hiredis connection with a 2 s timeout; a failure to connect or read is
// an error reply starting "hiredis:".
class Connection {
 public:
  explicit Connection(int port);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Reply command(const Command& argv);
  // The next reply pushed to this connection (a subscriber's message).
  Reply read();

 private:
  redisContext* context_ = nullptr;
};

// The Lua each lock script stands for, with KEYS and ARGV as EVAL gives them.
struct LuaScript {
  std::string_view name;
  std::string body;
};
const std::vector<LuaScript>& lock_scripts_lua();
// The same bodies as one Redis 7.0 function library (FUNCTION LOAD).
std::string lock_library();

// The wall clock in ms since the epoch: Redis's mstime(), and so the
// model's `now` in these tests.
TimeMs wall_ms();
void sleep_ms(int ms);

class RedisConformance : public ::testing::Test {
 protected:
  RedisConformance();

  Reply real(const Command& c) { return connection_->command(c); }
  Reply sim(const Command& c) { return model.apply(c, wall_ms(), &published); }
  // Sends `c` to both and expects the same reply; returns the model's.
  Reply both(const Command& c);
  // PTTL of `key` on both: the same sign, and within `tolerance_ms`.
  void both_pttl(const std::string& key, std::int64_t tolerance_ms = 20);
  // A new connection to the server (a subscriber, or after a restart).
  std::unique_ptr<Connection> connect();
  void reconnect() { connection_ = connect(); }

  RedisState model;
  std::vector<Message> published;

 private:
  std::unique_ptr<Connection> connection_;
};

std::string show(const Command& c);

}  // namespace zksim::redis
