// One Redis 7.0 node as a pure state machine: the keyspace (strings and
// hashes with millisecond TTLs), pub/sub, scripts and snapshots. It reads no
// clock and draws no randomness: `now` comes with every call, and whatever
// it returns is a function of the calls made so far. The subset, its rules
// and their sources: docs/redis.md.
#pragma once

#include "zksim/redis/reply.h"
#include "zksim/types.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::redis {

// A subscribed connection, named by whoever hosts the node (the world).
using SubscriberId = Strong<struct SubscriberIdTag, std::int64_t>;

// One message a PUBLISH hands to one subscriber. Delivering it (at most
// once, or not at all) is the network's business, not the node's.
struct Message {
  SubscriberId to;
  std::string channel;
  std::string payload;
  friend bool operator==(const Message&, const Message&) = default;
};

namespace detail {
struct Node;
struct Keyspace;
}  // namespace detail

// What an RDB save keeps: every key with its value and absolute deadline.
// Immutable; copies share it.
class Snapshot {
 public:
  Snapshot();
  // Keys saved, those already past their deadline included (SAVE writes
  // them; loading drops them).
  std::size_t key_count() const;

 private:
  friend class RedisState;
  std::shared_ptr<const detail::Keyspace> keys_;
};

// What a running script sees: KEYS, ARGV and redis.pcall. Nothing else runs
// on the node until the script returns, and the clock stands still for it
// (Redis freezes time for a script: db.c, keyIsExpired).
class ScriptContext {
 public:
  const std::vector<std::string>& keys() const { return keys_; }
  const std::vector<std::string>& args() const { return args_; }
  // Runs one command inside the script, as redis.pcall does: an error comes
  // back as a reply, and the writes before it stay (Redis has no rollback).
  // A script that means redis.call returns that error.
  Reply call(const Command& command);

 private:
  friend struct detail::Node;
  ScriptContext(detail::Node& node, TimeMs now, std::vector<Message>& published,
                std::vector<std::string> keys, std::vector<std::string> args);
  detail::Node& node_;
  TimeMs now_;
  std::vector<Message>& published_;
  std::vector<std::string> keys_;
  std::vector<std::string> args_;
};

// A script, the model's Lua: FCALL <name> <numkeys> key... arg... runs it.
using Script = std::function<Reply(ScriptContext&)>;

class RedisState {
 public:
  RedisState();
  ~RedisState();
  RedisState(const RedisState& other);
  RedisState& operator=(const RedisState& other);
  RedisState(RedisState&&) noexcept;
  RedisState& operator=(RedisState&&) noexcept;

  // Makes `script` callable as FCALL `name` (replacing one of that name), as
  // FUNCTION LOAD makes a Lua function callable. Scripts are code, not data:
  // they survive restore(), as Redis 7.0's functions survive a restart in the
  // RDB file.
  void register_script(std::string name, Script script);

  // Runs one command at `now` (ms) and returns Redis 7.0's reply; bad input
  // is an error reply. Commands: GET SET DEL EXISTS INCR PEXPIRE PTTL HSET
  // HGET HDEL HEXISTS HINCRBY HLEN PUBLISH FCALL; any other name is an
  // unknown command. The messages a PUBLISH (or a script's) hands out are
  // appended to `published` when given, in delivery order.
  // REQUIRES: `now` never goes back between calls.
  Reply apply(const Command& command, TimeMs now, std::vector<Message>* published = nullptr);

  // SUBSCRIBE and UNSUBSCRIBE of one channel by one connection: they belong
  // to a connection, not to the keyspace. Each returns the reply that
  // connection reads: ["subscribe"|"unsubscribe", channel, channels it is
  // now subscribed to]. Subscribing twice counts once.
  Reply subscribe(SubscriberId subscriber, std::string_view channel);
  Reply unsubscribe(SubscriberId subscriber, std::string_view channel);
  // UNSUBSCRIBE without channels (or a closed connection): one reply per
  // channel, in channel name order (Redis's order is its hash table's), or
  // one ["unsubscribe", nil, 0] when there were none.
  std::vector<Reply> unsubscribe_all(SubscriberId subscriber);

  // SAVE: the keyspace as it stands.
  Snapshot snapshot() const;
  // A restart that loads `snapshot` at `now`: the keyspace becomes the
  // snapshot's, less the keys whose deadline is before `now` (rdb.c drops
  // them at load; the others keep their absolute deadlines, so downtime
  // counts against their TTL). Writes after the snapshot are lost, and every
  // subscription with them (a restart closes every connection).
  void restore(const Snapshot& snapshot, TimeMs now);

 private:
  std::unique_ptr<detail::Node> node_;
};

}  // namespace zksim::redis
