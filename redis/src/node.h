// The node behind RedisState: its keyspace, scripts and subscriptions.
#pragma once

#include "zksim/redis/state.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace zksim::redis::detail {

// Ordered containers only: nothing here may iterate in hash order.
using Hash = std::map<std::string, std::string, std::less<>>;

struct Entry {
  std::variant<std::string, Hash> value;
  // Absolute, in ms. The key exists while now <= deadline: Redis 7.0 expires
  // a key when now > when (db.c, keyIsExpired).
  std::optional<TimeMs> deadline;
};

struct Keyspace {
  std::map<std::string, Entry, std::less<>> keys;
};

struct Node {
  Keyspace keyspace;
  std::map<std::string, Script, std::less<>> scripts;
  // Subscribers of each channel in the order they subscribed: PUBLISH
  // delivers in that order (pubsub.c appends to the channel's list).
  std::map<std::string, std::vector<SubscriberId>, std::less<>> channels;
  std::map<SubscriberId, std::set<std::string, std::less<>>> subscriptions;

  // The live entry of `key` at `now`, or null. An entry past its deadline is
  // erased here (lazy expiry): the only expiry a client can observe, since
  // every command looks its keys up through this, and none of the subset
  // counts or lists keys.
  Entry* lookup(std::string_view key, TimeMs now);

  // Runs `command`; `in_script` applies the rules of redis.call.
  Reply execute(const Command& command, TimeMs now, std::vector<Message>& published, bool in_script);

  // Hands `payload` to the channel's subscribers; returns how many.
  std::int64_t publish(std::string_view channel, std::string_view payload, std::vector<Message>& published);

  Reply run_script(const Script& script, TimeMs now, std::vector<Message>& published,
                   std::vector<std::string> keys, std::vector<std::string> args);
};

}  // namespace zksim::redis::detail
