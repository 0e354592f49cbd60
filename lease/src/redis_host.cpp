// The lease world's Redis nodes: command and pub/sub connections served by
// the nodes' models, the leases their commands give, and published
// messages delivered at most once.
#include "world_impl.h"

namespace zksim::lease {

namespace {

std::string text_of(const redis::Command& c) {
  std::string out;
  for (const std::string& a : c) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

void World::Impl::lease_until(int p, int node, TimeMs deadline) {
  std::vector<TimeMs>& on = procs[p]->redis_deadlines;
  on.resize(redis.size(), -1);
  on[node] = std::max(on[node], deadline);
  // The lease lasts while `quorum` of its nodes' deadlines lie ahead: until
  // the quorum-th latest.
  std::vector<TimeMs> ahead;
  for (TimeMs d : on) {
    if (d >= now()) ahead.push_back(d);
  }
  if (static_cast<int>(ahead.size()) < cfg.redis_lease_quorum) return;
  std::ranges::sort(ahead, std::greater<>());
  const TimeMs end = ahead[cfg.redis_lease_quorum - 1];
  std::vector<LeaseSpan>& spans = procs[p]->leases;
  if (!spans.empty() && spans.back().end >= now()) {
    spans.back().end = std::max(spans.back().end, end);
  } else {
    spans.push_back({now(), end});
  }
}

// Subscriber connections are channels apart from the command connections.
constexpr int kSubscriberChannel = 1 << 20;

void World::Impl::publish(int node, redis::Message m, std::uint64_t change) {
  const int p = static_cast<int>(m.to.value);
  Proc& proc = *procs[p];
  if (proc.lose_messages > 0) {
    --proc.lose_messages;
    note(p, fmt::format("fault: message on {} lost", m.channel));
    return;
  }
  const TimeMs back = deliver_at(p, proc.down_last[kSubscriberChannel + node]);
  at(back, [this, p, node, change, m = std::move(m)] {
    Proc& proc = *procs[p];
    const auto key = std::make_pair(node, m.channel);
    proc.inbox[key].push_back(m.payload);
    woke(p, change);
    note(p, fmt::format("<- redis{} message {}: {}", node, m.channel, m.payload));
    if (auto it = proc.inbox_waiter.find(key); it != proc.inbox_waiter.end()) {
      std::shared_ptr<Waiter> w = std::move(it->second);
      proc.inbox_waiter.erase(it);
      if (!w->done) {
        w->done = true;
        wake(p, w);
      }
    }
  });
}

namespace {

class SimRedis final : public RedisClient {
 public:
  SimRedis(World::Impl& w, int p, int node) : w_(w), p_(p), node_(node) {}
  Task<std::optional<redis::Reply>> call(redis::Command command) override;

 private:
  World::Impl& w_;
  int p_, node_;
};

class SimSubscriber final : public RedisSubscriber {
 public:
  SimSubscriber(World::Impl& w, int p, int node) : w_(w), p_(p), node_(node) {}
  Task<bool> subscribe(std::string channel) override {
    std::function<std::optional<redis::Reply>()> serve = [this, channel]() -> std::optional<redis::Reply> {
      if (w_.now() < w_.redis[node_].down_until) return std::nullopt;
      return w_.redis[node_].state.subscribe(redis::SubscriberId{p_}, channel);
    };
    std::optional<redis::Reply> r = co_await w_.call<redis::Reply>(
        p_, kSubscriberChannel + node_, fmt::format("redis{} SUBSCRIBE {}", node_, channel), std::move(serve));
    co_return r.has_value();
  }
  Task<> unsubscribe(std::string channel) override {
    std::function<std::optional<redis::Reply>()> serve = [this, channel]() -> std::optional<redis::Reply> {
      if (w_.now() < w_.redis[node_].down_until) return std::nullopt;
      return w_.redis[node_].state.unsubscribe(redis::SubscriberId{p_}, channel);
    };
    co_await w_.call<redis::Reply>(p_, kSubscriberChannel + node_,
                                   fmt::format("redis{} UNSUBSCRIBE {}", node_, channel), std::move(serve));
    w_.procs[p_]->inbox.erase({node_, channel});
  }
  Task<std::optional<std::string>> next_message(std::string channel, TimeMs timeout_ms) override {
    World::Impl::Proc& proc = *w_.procs[p_];
    const auto key = std::make_pair(node_, channel);
    if (proc.inbox[key].empty()) {
      auto w = std::make_shared<Waiter>();
      proc.inbox_waiter[key] = w;
      w_.at(w_.now() + w_.true_ms(p_, timeout_ms), [this, w] {
        if (w->done) return;
        w->done = true;
        w_.wake(p_, w);
      });
      co_await Suspend(w);
    }
    std::vector<std::string>& box = proc.inbox[key];
    if (box.empty()) co_return std::nullopt;
    std::string m = std::move(box.front());
    box.erase(box.begin());
    co_return m;
  }

 private:
  World::Impl& w_;
  int p_, node_;
};

// (The serving functions are built before co_await: GCC 12 miscompiles a
// lambda temporary in a co_await's operand.)
Task<std::optional<redis::Reply>> SimRedis::call(redis::Command command) {
  std::string text = fmt::format("redis{} {}", node_, text_of(command));
  std::function<std::optional<redis::Reply>()> serve = [this, command = std::move(command)]() -> std::optional<redis::Reply> {
    World::Impl::RedisNode& n = w_.redis[node_];
    if (w_.now() < n.down_until) return std::nullopt;
    std::vector<redis::Message> published;
    redis::Reply reply = n.state.apply(command, w_.now() + n.clock_offset, &published);
    const std::uint64_t change = published.empty() ? 0 : ++w_.next_publication;
    for (redis::Message& m : published) w_.publish(node_, std::move(m), change);
    if (w_.redis_lease) {
      if (const std::optional<TimeMs> deadline = w_.redis_lease(p_, w_.now(), command, reply)) w_.lease_until(p_, node_, *deadline);
    }
    return reply;
  };
  std::optional<redis::Reply> r = co_await w_.call<redis::Reply>(p_, node_, std::move(text), std::move(serve));
  if (r) w_.note(p_, fmt::format("<- {}", *r));
  co_return r;
}

}  // namespace

std::unique_ptr<RedisClient> World::Impl::make_redis_client(int p, int node) {
  return std::make_unique<SimRedis>(*this, p, node);
}
std::unique_ptr<RedisSubscriber> World::Impl::make_subscriber(int p, int node) {
  return std::make_unique<SimSubscriber>(*this, p, node);
}

}  // namespace zksim::lease
