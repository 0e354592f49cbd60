// The lease world: an event loop on simulated time, processes (clocks,
// pauses), the network (in-order connections with drawn delays), and the
// Redis nodes and etcd cluster it hosts. See world.h.
#include "zksim/lease/world.h"

#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <coroutine>
#include <map>
#include <queue>
#include <utility>

namespace zksim::lease {

namespace {

// A suspended coroutine waiting for one thing; shared between the awaiter
// (in the coroutine's frame) and the events that may complete it, so an
// event that outlives a destroyed coroutine finds no handle.
struct Waiter {
  std::coroutine_handle<> handle;
  bool done = false;
};

struct Suspend {
  explicit Suspend(std::shared_ptr<Waiter> waiter) : w(std::move(waiter)) {}
  Suspend(const Suspend&) = delete;
  std::shared_ptr<Waiter> w;
  ~Suspend() {
    if (w) w->handle = {};
  }
  bool await_ready() const noexcept { return w->done; }
  void await_suspend(std::coroutine_handle<> h) noexcept { w->handle = h; }
  void await_resume() const noexcept {}
};

std::string text_of(const redis::Command& c) {
  std::string out;
  for (const std::string& a : c) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

struct World::Impl {
  struct Proc;
  struct Event {
    TimeMs time;
    std::uint64_t seq;
    std::function<void()> run;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  struct RedisNode {
    redis::RedisState state;
    redis::Snapshot saved;
    TimeMs down_until = -1;  // down while now < down_until
    TimeMs clock_offset = 0;  // its clock's jumps so far (forward only)
  };
  struct Watch {
    int proc;
    std::string key;
    std::int64_t next_revision;
    std::shared_ptr<Waiter> waiter;
    std::shared_ptr<bool> deleted;
  };

  Impl(Config c, DecisionSource& d) : cfg(c), decisions(d) {
    for (int i = 0; i < cfg.redis_nodes; ++i) {
      redis.emplace_back();
      redis::scripts::register_lock_scripts(redis.back().state);
    }
    if (cfg.redis_save_every_ms > 0 && cfg.redis_nodes > 0) at(cfg.redis_save_every_ms, [this] { save_all(); });
  }

  Config cfg;
  DecisionSource& decisions;
  Trace trace;
  TimeMs now = 0;
  std::uint64_t next_seq = 0;
  std::uint64_t steps = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::vector<std::unique_ptr<Proc>> procs;
  std::vector<RedisNode> redis;
  World::RedisLeaseObserver redis_lease;
  etcd::EtcdState etcd;
  std::map<etcd::LeaseId, std::pair<int, std::size_t>> lease_owner;  // lease -> (process, span)
  std::map<std::uint64_t, Watch> watches;                             // by creation order
  std::uint64_t next_watch = 0;
  TimeMs expiry_tick = -1;  // when the next lease-expiry event is set for
  struct Spawned {
    Task<> task;
    bool background;  // the process's own helpers (keepalives): a run does not wait for them
  };
  std::vector<Spawned> tasks;

  void spawn(int p, Task<> task, bool background) {
    auto w = std::make_shared<Waiter>();
    w->handle = task.handle();
    tasks.push_back({std::move(task), background});
    at(now, [this, p, w] { wake(p, w); });
  }

  void at(TimeMs t, std::function<void()> f) { events.push({std::max(t, now), next_seq++, std::move(f)}); }

  void note(int p, std::string_view text) {
    trace.add(now, TraceKind::Annotation, p, SessionId{}, 0, 0, 0, 0, "", text);
  }

  // Resumes w's coroutine as process p runs it: later if p is paused.
  void wake(int p, std::shared_ptr<Waiter> w);
  // Local (process) milliseconds as true ones.
  TimeMs true_ms(int p, TimeMs local_ms) const;
  // One message's delivery time on the in-order channel `last`.
  TimeMs deliver_at(int p, TimeMs& last) {
    const TimeMs t = std::max(now + 1 + static_cast<TimeMs>(decisions.pick_for(
                                            static_cast<std::uint32_t>(cfg.max_latency_ms), p)),
                              last);
    last = t;
    return t;
  }

  // A round trip from process p to server `server` (redis node index, or
  // cfg.redis_nodes for etcd). `serve` runs on arrival and returns the
  // reply (nullopt: none is sent).
  template <class R>
  Task<std::optional<R>> call(int p, int server, std::string text, std::function<std::optional<R>()> serve);

  void save_all() {
    for (RedisNode& n : redis) {
      if (now >= n.down_until) n.saved = n.state.snapshot();
    }
    at(now + cfg.redis_save_every_ms, [this] { save_all(); });
  }

  // etcd: lease expiries and watches after every change.
  void etcd_advance() {
    for (etcd::LeaseId id : etcd.advance_to(now)) lease_ended(id);
  }
  void lease_ended(etcd::LeaseId id);
  // A Redis lease of p runs until `deadline`: the current one is extended
  // if it still runs, else a new one begins.
  void lease_until(int p, int node, TimeMs deadline);
  // A message a node hands to a subscriber: over the subscriber's
  // connection, at most once.
  void publish(int node, redis::Message m);
  void etcd_changed();
  void deliver_watches();
};

struct World::Impl::Proc final : Process {
  Proc(Impl& w, int i, std::int64_t drift) : world(w), index(i), drift_ppm(drift), name_(fmt::format("p{}", i)) {}
  Impl& world;
  int index;
  std::int64_t drift_ppm;
  TimeMs offset = 0;  // clock jumps so far
  TimeMs paused_until = -1;
  std::vector<std::pair<TimeMs, TimeMs>> pauses;
  std::vector<TimeMs> losses;
  TimeMs last_heard = -1;
  int lose_keep_alives = 0;
  int lose_replies = 0;
  int lose_requests = 0;
  int lose_messages = 0;
  // Pub/sub: messages received and not yet taken, per (node, channel), and
  // the coroutine waiting for one.
  std::map<std::pair<int, std::string>, std::vector<std::string>> inbox;
  std::map<std::pair<int, std::string>, std::shared_ptr<Waiter>> inbox_waiter;
  std::vector<LeaseSpan> leases;
  std::vector<TimeMs> redis_deadlines;  // per node: its latest lease deadline there
  std::map<int, TimeMs> up_last, down_last;  // per server: in-order channels
  std::vector<std::unique_ptr<RedisClient>> redis_clients;  // one per node
  std::vector<std::unique_ptr<RedisSubscriber>> subscribers;  // one per node
  std::unique_ptr<EtcdClient> etcd_client;
  std::string name_;

  const std::string& name() const override { return name_; }
  TimeMs clock_ms() const override { return world.now + offset + world.now * drift_ppm / 1'000'000; }
  Task<> sleep(TimeMs ms) override {
    auto w = std::make_shared<Waiter>();
    world.at(world.now + world.true_ms(index, ms), [this, w] {
      w->done = true;
      world.wake(index, w);
    });
    co_await Suspend(w);
  }
  void note(std::string_view text) override { world.note(index, text); }
  void spawn(Task<> task) override { world.spawn(index, std::move(task), /*background=*/true); }
};

void World::Impl::wake(int p, std::shared_ptr<Waiter> w) {
  Proc& proc = *procs[p];
  if (proc.paused_until > now) {
    at(proc.paused_until, [this, p, w] { wake(p, w); });
    return;
  }
  if (auto h = std::exchange(w->handle, {})) h.resume();
}

TimeMs World::Impl::true_ms(int p, TimeMs local_ms) const {
  const std::int64_t drift = procs[p]->drift_ppm;
  if (local_ms <= 0) return 0;
  // local = true * (1 + drift/1e6), rounded up so a sleep is never short.
  return (local_ms * 1'000'000 + (1'000'000 + drift) - 1) / (1'000'000 + drift);
}

template <class R>
Task<std::optional<R>> World::Impl::call(int p, int server, std::string text,
                                         std::function<std::optional<R>()> serve) {
  struct State {
    std::shared_ptr<Waiter> waiter = std::make_shared<Waiter>();
    std::optional<R> reply;
  };
  auto st = std::make_shared<State>();
  Proc& proc = *procs[p];
  note(p, fmt::format("-> {}", text));
  const TimeMs arrive = deliver_at(p, proc.up_last[server]);
  at(arrive, [this, p, server, st, serve = std::move(serve)] {
    if (procs[p]->lose_requests > 0) {
      --procs[p]->lose_requests;
      procs[p]->losses.push_back(now);
      note(p, "fault: request lost");
      return;
    }
    std::optional<R> reply = serve();
    if (!reply) return;
    if (procs[p]->lose_replies > 0) {
      --procs[p]->lose_replies;
      procs[p]->losses.push_back(now);
      note(p, "fault: reply lost");
      return;
    }
    const TimeMs served = now;
    const TimeMs back = deliver_at(p, procs[p]->down_last[server]);
    at(back, [this, p, st, served, reply = std::move(*reply)]() mutable {
      if (st->waiter->done) return;
      st->waiter->done = true;
      st->reply = std::move(reply);
      procs[p]->last_heard = std::max(procs[p]->last_heard, served);
      wake(p, st->waiter);
    });
  });
  at(now + true_ms(p, cfg.call_timeout_ms), [this, p, st] {
    if (st->waiter->done) return;
    st->waiter->done = true;
    note(p, "<- (no answer in time)");
    wake(p, st->waiter);
  });
  co_await Suspend(st->waiter);
  co_return std::move(st->reply);
}

void World::Impl::lease_ended(etcd::LeaseId id) {
  note(-1, fmt::format("etcd lease {:x} ended", id));
  auto it = lease_owner.find(id);
  if (it == lease_owner.end()) return;
  LeaseSpan& span = procs[it->second.first]->leases[it->second.second];
  span.end = std::min(span.end, now);
}

void World::Impl::lease_until(int p, int node, TimeMs deadline) {
  std::vector<TimeMs>& on = procs[p]->redis_deadlines;
  on.resize(redis.size(), -1);
  on[node] = std::max(on[node], deadline);
  // The lease lasts while `quorum` of its nodes' deadlines lie ahead: until
  // the quorum-th latest.
  std::vector<TimeMs> ahead;
  for (TimeMs d : on) {
    if (d >= now) ahead.push_back(d);
  }
  if (static_cast<int>(ahead.size()) < cfg.redis_lease_quorum) return;
  std::ranges::sort(ahead, std::greater<>());
  const TimeMs end = ahead[cfg.redis_lease_quorum - 1];
  std::vector<LeaseSpan>& spans = procs[p]->leases;
  if (!spans.empty() && spans.back().end >= now) {
    spans.back().end = std::max(spans.back().end, end);
  } else {
    spans.push_back({now, end});
  }
}

// Subscriber connections are channels apart from the command connections.
constexpr int kSubscriberChannel = 1 << 20;

void World::Impl::publish(int node, redis::Message m) {
  const int p = static_cast<int>(m.to.value);
  Proc& proc = *procs[p];
  if (proc.lose_messages > 0) {
    --proc.lose_messages;
    note(p, fmt::format("fault: message on {} lost", m.channel));
    return;
  }
  const TimeMs back = deliver_at(p, proc.down_last[kSubscriberChannel + node]);
  at(back, [this, p, node, m = std::move(m)] {
    Proc& proc = *procs[p];
    const auto key = std::make_pair(node, m.channel);
    proc.inbox[key].push_back(m.payload);
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

void World::Impl::etcd_changed() {
  deliver_watches();
  if (auto next = etcd.next_expiry_ms(); next && *next != expiry_tick) {
    expiry_tick = *next;
    at(*next, [this, t = *next] {
      if (expiry_tick == t) expiry_tick = -1;
      etcd_advance();
      etcd_changed();
    });
  }
}

void World::Impl::deliver_watches() {
  for (auto it = watches.begin(); it != watches.end();) {
    Watch& w = it->second;
    const etcd::WatchResponse r = etcd.watch({.key = w.key, .start_revision = w.next_revision});
    bool fired = false;
    for (const etcd::Event& e : r.events) {
      w.next_revision = e.kv.mod_revision + 1;
      if (e.type == etcd::Event::Type::Delete) {
        fired = true;
        break;
      }
    }
    if (!fired && !r.canceled) {
      ++it;
      continue;
    }
    const TimeMs served = now;
    const int p = w.proc;
    const TimeMs back = deliver_at(p, procs[p]->down_last[cfg.redis_nodes]);
    at(back, [this, p, served, waiter = w.waiter, deleted = w.deleted, ok = fired] {
      if (waiter->done) return;
      waiter->done = true;
      *deleted = ok;
      procs[p]->last_heard = std::max(procs[p]->last_heard, served);
      wake(p, waiter);
    });
    it = watches.erase(it);
  }
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
      if (w_.now < w_.redis[node_].down_until) return std::nullopt;
      return w_.redis[node_].state.subscribe(redis::SubscriberId{p_}, channel);
    };
    std::optional<redis::Reply> r = co_await w_.call<redis::Reply>(
        p_, kSubscriberChannel + node_, fmt::format("redis{} SUBSCRIBE {}", node_, channel), std::move(serve));
    co_return r.has_value();
  }
  Task<> unsubscribe(std::string channel) override {
    std::function<std::optional<redis::Reply>()> serve = [this, channel]() -> std::optional<redis::Reply> {
      if (w_.now < w_.redis[node_].down_until) return std::nullopt;
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
      w_.at(w_.now + w_.true_ms(p_, timeout_ms), [this, w] {
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

class SimEtcd final : public EtcdClient {
 public:
  SimEtcd(World::Impl& w, int p) : w_(w), p_(p) {}
  Task<Answer<etcd::RangeResponse>> range(etcd::RangeRequest r) override {
    return op<etcd::RangeResponse>(fmt::format("etcd range {}", r.key),
                                   [r](etcd::EtcdState& s) { return s.range(r); });
  }
  Task<Answer<etcd::TxnResponse>> txn(etcd::TxnRequest r) override {
    return op<etcd::TxnResponse>("etcd txn", [r](etcd::EtcdState& s) { return s.txn(r); });
  }
  Task<Answer<etcd::DeleteRangeResponse>> delete_range(etcd::DeleteRangeRequest r) override {
    return op<etcd::DeleteRangeResponse>(fmt::format("etcd delete {}", r.key),
                                         [r](etcd::EtcdState& s) { return s.delete_range(r); });
  }
  Task<Answer<etcd::LeaseGrantResponse>> lease_grant(etcd::LeaseGrantRequest r) override;
  Task<Answer<etcd::LeaseRevokeResponse>> lease_revoke(etcd::LeaseId id) override {
    return op<etcd::LeaseRevokeResponse>(fmt::format("etcd lease revoke {:x}", id), [this, id](etcd::EtcdState& s) {
      auto r = s.lease_revoke(id);
      if (r) w_.lease_ended(id);
      return r;
    });
  }
  Task<std::optional<etcd::LeaseKeepAliveResponse>> lease_keep_alive(etcd::LeaseId id) override;
  Task<bool> wait_delete(std::string key, std::int64_t from_revision) override;

 private:
  template <class R>
  Task<Answer<R>> op(std::string text, std::function<etcd::Result<R>(etcd::EtcdState&)> f) {
    return w_.call<etcd::Result<R>>(p_, w_.cfg.redis_nodes, std::move(text),
                                    [this, f = std::move(f)]() -> std::optional<etcd::Result<R>> {
                                      w_.etcd_advance();
                                      etcd::Result<R> r = f(w_.etcd);
                                      w_.etcd_changed();
                                      return r;
                                    });
  }
  World::Impl& w_;
  int p_;
};

// (The serving functions are built before co_await: GCC 12 miscompiles a
// lambda temporary in a co_await's operand.)
Task<std::optional<redis::Reply>> SimRedis::call(redis::Command command) {
  std::string text = fmt::format("redis{} {}", node_, text_of(command));
  std::function<std::optional<redis::Reply>()> serve = [this, command = std::move(command)]() -> std::optional<redis::Reply> {
    World::Impl::RedisNode& n = w_.redis[node_];
    if (w_.now < n.down_until) return std::nullopt;
    std::vector<redis::Message> published;
    redis::Reply reply = n.state.apply(command, w_.now + n.clock_offset, &published);
    for (redis::Message& m : published) w_.publish(node_, std::move(m));
    if (w_.redis_lease) {
      if (const std::optional<TimeMs> deadline = w_.redis_lease(p_, w_.now, command, reply)) w_.lease_until(p_, node_, *deadline);
    }
    return reply;
  };
  std::optional<redis::Reply> r = co_await w_.call<redis::Reply>(p_, node_, std::move(text), std::move(serve));
  if (r) w_.note(p_, fmt::format("<- {}", *r));
  co_return r;
}

Task<EtcdClient::Answer<etcd::LeaseGrantResponse>> SimEtcd::lease_grant(etcd::LeaseGrantRequest r) {
  std::function<etcd::Result<etcd::LeaseGrantResponse>(etcd::EtcdState&)> grant = [this, r](etcd::EtcdState& s) {
    auto g = s.lease_grant(r);
    if (g) {
      auto& spans = w_.procs[p_]->leases;
      w_.lease_owner[g->id] = {p_, spans.size()};
      spans.push_back({w_.now, kNever});
    }
    return g;
  };
  return op<etcd::LeaseGrantResponse>(fmt::format("etcd lease grant {}s", r.ttl), std::move(grant));
}

Task<std::optional<etcd::LeaseKeepAliveResponse>> SimEtcd::lease_keep_alive(etcd::LeaseId id) {
  std::function<std::optional<etcd::LeaseKeepAliveResponse>()> serve =
      [this, id]() -> std::optional<etcd::LeaseKeepAliveResponse> {
    World::Impl::Proc& proc = *w_.procs[p_];
    if (proc.lose_keep_alives > 0) {
      --proc.lose_keep_alives;
      proc.losses.push_back(w_.now);
      w_.note(p_, fmt::format("keepalive {:x} lost", id));
      return std::nullopt;
    }
    w_.etcd_advance();
    auto r = w_.etcd.lease_keep_alive(id);
    w_.etcd_changed();
    return r;
  };
  return w_.call<etcd::LeaseKeepAliveResponse>(p_, w_.cfg.redis_nodes, fmt::format("etcd keepalive {:x}", id),
                                               std::move(serve));
}

Task<bool> SimEtcd::wait_delete(std::string key, std::int64_t from_revision) {
  auto waiter = std::make_shared<Waiter>();
  auto deleted = std::make_shared<bool>(false);
  w_.note(p_, fmt::format("-> etcd watch {} from {}", key, from_revision));
  const TimeMs arrive = w_.deliver_at(p_, w_.procs[p_]->up_last[w_.cfg.redis_nodes]);
  w_.at(arrive, [this, key, from_revision, waiter, deleted] {
    w_.etcd_advance();
    w_.watches.emplace(w_.next_watch++, World::Impl::Watch{p_, key, from_revision, waiter, deleted});
    w_.etcd_changed();
  });
  co_await Suspend(waiter);
  w_.note(p_, fmt::format("<- etcd watch {}: {}", key, *deleted ? "deleted" : "lost"));
  co_return *deleted;
}

}  // namespace

// --- World ---

World::World(Config config, DecisionSource& decisions) : impl_(std::make_unique<Impl>(config, decisions)) {}
World::~World() = default;

int World::add_process(std::int64_t drift_ppm) {
  const int p = static_cast<int>(impl_->procs.size());
  auto proc = std::make_unique<Impl::Proc>(*impl_, p, drift_ppm);
  for (int n = 0; n < impl_->cfg.redis_nodes; ++n) {
    proc->redis_clients.push_back(std::make_unique<SimRedis>(*impl_, p, n));
    proc->subscribers.push_back(std::make_unique<SimSubscriber>(*impl_, p, n));
  }
  if (impl_->cfg.etcd) proc->etcd_client = std::make_unique<SimEtcd>(*impl_, p);
  impl_->procs.push_back(std::move(proc));
  return p;
}

Process& World::process(int p) { return *impl_->procs.at(p); }
RedisClient& World::redis(int p, int node) { return *impl_->procs.at(p)->redis_clients.at(node); }
RedisSubscriber& World::subscriber(int p, int node) { return *impl_->procs.at(p)->subscribers.at(node); }
void World::set_redis_lease_observer(RedisLeaseObserver observer) { impl_->redis_lease = std::move(observer); }
EtcdClient& World::etcd(int p) {
  assert(impl_->cfg.etcd);
  return *impl_->procs.at(p)->etcd_client;
}

void World::spawn(int p, Task<> task) { impl_->spawn(p, std::move(task), false); }

bool World::run(TimeMs limit) {
  // A bound on events per run: a recipe that spins without letting time
  // pass ends the run instead of hanging it.
  constexpr std::uint64_t kMaxSteps = 5'000'000;
  const auto all_done = [this] {
    return std::ranges::all_of(impl_->tasks, [](const Impl::Spawned& t) { return t.background || t.task.done(); });
  };
  while (!all_done()) {
    if (impl_->events.empty() || impl_->events.top().time > limit || ++impl_->steps > kMaxSteps) return false;
    Impl::Event e = impl_->events.top();
    impl_->events.pop();
    impl_->now = e.time;
    e.run();
  }
  return true;
}

TimeMs World::now() const { return impl_->now; }
void World::at(TimeMs t, std::function<void()> f) { impl_->at(t, std::move(f)); }

void World::pause(int p, TimeMs ms) {
  Impl::Proc& proc = *impl_->procs.at(p);
  proc.paused_until = std::max(proc.paused_until, impl_->now + ms);
  proc.pauses.emplace_back(impl_->now, impl_->now + ms);
  impl_->note(p, fmt::format("fault: paused for {} ms", ms));
}

void World::jump_clock(int p, TimeMs delta_ms) {
  impl_->procs.at(p)->offset += delta_ms;
  impl_->note(p, fmt::format("fault: clock jumps {} ms", delta_ms));
}

void World::restart_redis(int node, TimeMs down_ms) {
  Impl::RedisNode& n = impl_->redis.at(node);
  n.down_until = impl_->now + down_ms;
  impl_->note(-1, fmt::format("fault: redis{} down for {} ms", node, down_ms));
  impl_->at(n.down_until, [this, node] {
    Impl::RedisNode& back = impl_->redis[node];
    back.state.restore(back.saved, impl_->now + back.clock_offset);
    impl_->note(-1, fmt::format("redis{} restarted from its last save", node));
  });
}

void World::jump_redis_clock(int node, TimeMs delta_ms) {
  assert(delta_ms >= 0);
  impl_->redis.at(node).clock_offset += delta_ms;
  impl_->note(-1, fmt::format("fault: redis{} clock jumps {} ms", node, delta_ms));
}

void World::lose_keep_alives(int p, int count) {
  impl_->procs.at(p)->lose_keep_alives += count;
  impl_->note(p, fmt::format("fault: the next {} keepalives are lost", count));
}

void World::lose_replies(int p, int count) {
  impl_->procs.at(p)->lose_replies += count;
  impl_->note(p, fmt::format("fault: the replies to the next {} calls are lost", count));
}

void World::lose_requests(int p, int count) {
  impl_->procs.at(p)->lose_requests += count;
  impl_->note(p, fmt::format("fault: the next {} requests are lost", count));
}

void World::lose_messages(int p, int count) {
  impl_->procs.at(p)->lose_messages += count;
  impl_->note(p, fmt::format("fault: the next {} pub/sub messages are lost", count));
}

TimeMs World::last_heard(int p) const { return impl_->procs.at(p)->last_heard; }
const std::vector<LeaseSpan>& World::leases(int p) const { return impl_->procs.at(p)->leases; }
const std::vector<std::pair<TimeMs, TimeMs>>& World::pauses(int p) const { return impl_->procs.at(p)->pauses; }
const std::vector<TimeMs>& World::losses(int p) const { return impl_->procs.at(p)->losses; }
bool World::paused(int p) const { return impl_->procs.at(p)->paused_until > impl_->now; }
Trace& World::trace() { return impl_->trace; }
const redis::RedisState& World::redis_state(int node) const { return impl_->redis.at(node).state; }
const etcd::EtcdState& World::etcd_state() const { return impl_->etcd; }

}  // namespace zksim::lease
