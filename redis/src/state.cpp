#include "node.h"

#include <algorithm>
#include <utility>

namespace zksim::redis {
namespace detail {

// pubsub.c pubsubPublishMessage: the channel's subscribers in the order
// they subscribed (patterns are not modelled).
std::int64_t Node::publish(std::string_view channel, std::string_view payload, std::vector<Message>& published) {
  auto it = channels.find(channel);
  if (it == channels.end()) return 0;
  for (SubscriberId to : it->second) {
    published.push_back(Message{.to = to, .channel = std::string(channel), .payload = std::string(payload)});
  }
  return static_cast<std::int64_t>(it->second.size());
}

Reply Node::run_script(const Script& script, TimeMs now, std::vector<Message>& published,
                       std::vector<std::string> keys, std::vector<std::string> args) {
  ScriptContext context(*this, now, published, std::move(keys), std::move(args));
  return script(context);
}

}  // namespace detail

Snapshot::Snapshot() : keys_(std::make_shared<const detail::Keyspace>()) {}

std::size_t Snapshot::key_count() const { return keys_->keys.size(); }

ScriptContext::ScriptContext(detail::Node& node, TimeMs now, std::vector<Message>& published,
                             std::vector<std::string> keys, std::vector<std::string> args)
    : node_(node), now_(now), published_(published), keys_(std::move(keys)), args_(std::move(args)) {}

// script_lua.c luaRedisGenericCommand refuses a call without a command.
Reply ScriptContext::call(const Command& command) {
  if (command.empty()) return Reply::error("ERR Please specify at least one argument for this redis lib call");
  return node_.execute(command, now_, published_, true);
}

RedisState::RedisState() : node_(std::make_unique<detail::Node>()) {}
RedisState::~RedisState() = default;
RedisState::RedisState(const RedisState& other) : node_(std::make_unique<detail::Node>(*other.node_)) {}
RedisState& RedisState::operator=(const RedisState& other) {
  if (this != &other) node_ = std::make_unique<detail::Node>(*other.node_);
  return *this;
}
RedisState::RedisState(RedisState&&) noexcept = default;
RedisState& RedisState::operator=(RedisState&&) noexcept = default;

void RedisState::register_script(std::string name, Script script) {
  node_->scripts.insert_or_assign(std::move(name), std::move(script));
}

Reply RedisState::apply(const Command& command, TimeMs now, std::vector<Message>* published) {
  std::vector<Message> dropped;
  return node_->execute(command, now, published ? *published : dropped, false);
}

namespace {

Reply subscription_reply(std::string_view kind, Reply channel, std::size_t count) {
  return Reply::array({Reply::bulk(std::string(kind)), std::move(channel), Reply::of(static_cast<std::int64_t>(count))});
}

}  // namespace

// pubsub.c pubsubSubscribeChannel.
Reply RedisState::subscribe(SubscriberId subscriber, std::string_view channel) {
  auto& mine = node_->subscriptions[subscriber];
  if (mine.emplace(channel).second) {
    auto it = node_->channels.find(channel);
    if (it == node_->channels.end()) it = node_->channels.emplace(std::string(channel), std::vector<SubscriberId>{}).first;
    it->second.push_back(subscriber);
  }
  return subscription_reply("subscribe", Reply::bulk(std::string(channel)), mine.size());
}

// pubsub.c pubsubUnsubscribeChannel.
Reply RedisState::unsubscribe(SubscriberId subscriber, std::string_view channel) {
  auto mine = node_->subscriptions.find(subscriber);
  std::size_t left = 0;
  if (mine != node_->subscriptions.end()) {
    if (auto at = mine->second.find(channel); at != mine->second.end()) {
      mine->second.erase(at);
      auto it = node_->channels.find(channel);
      std::erase(it->second, subscriber);
      if (it->second.empty()) node_->channels.erase(it);
    }
    left = mine->second.size();
    if (mine->second.empty()) node_->subscriptions.erase(mine);
  }
  return subscription_reply("unsubscribe", Reply::bulk(std::string(channel)), left);
}

// pubsub.c pubsubUnsubscribeAllChannelsInternal.
std::vector<Reply> RedisState::unsubscribe_all(SubscriberId subscriber) {
  std::vector<Reply> replies;
  auto mine = node_->subscriptions.find(subscriber);
  if (mine != node_->subscriptions.end()) {
    const std::set<std::string, std::less<>> channels = mine->second;
    for (const std::string& channel : channels) replies.push_back(unsubscribe(subscriber, channel));
  }
  if (replies.empty()) replies.push_back(subscription_reply("unsubscribe", Reply::nil(), 0));
  return replies;
}

Snapshot RedisState::snapshot() const {
  Snapshot s;
  s.keys_ = std::make_shared<const detail::Keyspace>(node_->keyspace);
  return s;
}

// rdb.c rdbLoadRioWithLoadingCtx: a master skips a key whose expiretime < now.
void RedisState::restore(const Snapshot& snapshot, TimeMs now) {
  node_->keyspace = *snapshot.keys_;
  std::erase_if(node_->keyspace.keys, [now](const auto& kv) { return kv.second.deadline && *kv.second.deadline < now; });
  node_->channels.clear();
  node_->subscriptions.clear();
}

}  // namespace zksim::redis
