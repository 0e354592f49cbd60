// A node and a clock for the model's unit tests.
#pragma once

#include "zksim/redis/lock_scripts.h"
#include "zksim/redis/state.h"

#include "print.h"

#include <gtest/gtest.h>

#include <vector>

namespace zksim::redis {

class RedisModel : public ::testing::Test {
 protected:
  RedisModel() { scripts::register_lock_scripts(node); }
  Reply run(const Command& command) { return node.apply(command, now, &published); }

  RedisState node;
  TimeMs now = 1000;
  std::vector<Message> published;
};

inline Reply I(std::int64_t n) { return Reply::of(n); }
inline Reply B(std::string s) { return Reply::bulk(std::move(s)); }
inline Reply E(std::string s) { return Reply::error(std::move(s)); }
inline const Reply kNil = Reply::nil();
inline const Reply kOk = Reply::ok();
inline const Reply kWrongType = Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value");
inline const Reply kNotInteger = Reply::error("ERR value is not an integer or out of range");
inline const Reply kSyntax = Reply::error("ERR syntax error");

}  // namespace zksim::redis
