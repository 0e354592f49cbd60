// Private to the lease world: its state (World::Impl), its processes, the
// awaitable a suspended call waits on, and the round trip every client call
// makes. world.cpp runs processes and faults; redis_host.cpp and etcd_host.cpp
// serve the clients' calls with the models they host.
#pragma once

#include "zksim/event_loop.h"
#include "zksim/lease/world.h"
#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

#include <algorithm>
#include <coroutine>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace zksim::lease {

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

struct World::Impl {
  struct Proc;
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
  Trace trace{cfg.keep_trace};
  runtime::EventLoop loop;
  TimeMs now() const { return loop.now(); }
  std::vector<std::unique_ptr<Proc>> procs;
  std::vector<RedisNode> redis;
  World::RedisLeaseObserver redis_lease;
  etcd::EtcdState etcd;
  std::map<etcd::LeaseId, std::pair<int, std::size_t>> lease_owner;  // lease -> (process, span)
  std::map<std::uint64_t, Watch> watches;                             // by creation order
  std::vector<LeaseWakeup> wakeups;
  std::uint64_t next_publication = 0;  // LeaseWakeup::change of Redis commands that published
  // A delivery of `change` to p now.
  void woke(int p, std::uint64_t change);
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
    at(now(), [this, p, w] { wake(p, w); });
  }

  void at(TimeMs t, std::function<void()> f) { loop.call_at(t, std::move(f)); }

  void note(int p, std::string_view text) {
    trace.add(now(), TraceKind::Annotation, p, SessionId{}, 0, 0, 0, 0, "", text);
  }

  // Resumes w's coroutine as process p runs it: later if p is paused.
  void wake(int p, std::shared_ptr<Waiter> w);
  // Local (process) milliseconds as true ones.
  TimeMs true_ms(int p, TimeMs local_ms) const;
  // One message's delivery time on the in-order channel `last`.
  TimeMs deliver_at(int p, TimeMs& last) {
    const TimeMs t = std::max(now() + 1 + static_cast<TimeMs>(decisions.pick_for(
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
      if (now() >= n.down_until) n.saved = n.state.snapshot();
    }
    at(now() + cfg.redis_save_every_ms, [this] { save_all(); });
  }

  // etcd: lease expiries and watches after every change.
  void etcd_advance() {
    for (etcd::LeaseId id : etcd.advance_to(now())) lease_ended(id);
  }
  // The clients of process p, made when it is added.
  std::unique_ptr<RedisClient> make_redis_client(int p, int node);
  std::unique_ptr<RedisSubscriber> make_subscriber(int p, int node);
  std::unique_ptr<EtcdClient> make_etcd_client(int p);

  void lease_ended(etcd::LeaseId id);
  // A Redis lease of p runs until `deadline`: the current one is extended
  // if it still runs, else a new one begins.
  void lease_until(int p, int node, TimeMs deadline);
  // A message a node hands to a subscriber: over the subscriber's
  // connection, at most once. `change`: see LeaseWakeup.
  void publish(int node, redis::Message m, std::uint64_t change);
  void etcd_changed();
  void deliver_watches();
};

struct World::Impl::Proc final : Process, runtime::Process {
  Proc(Impl& w, int i, std::int64_t drift) : world(w), index(i), drift_ppm(drift), name_(fmt::format("p{}", i)) {}
  Impl& world;
  int index;
  std::int64_t drift_ppm;
  TimeMs offset = 0;  // clock jumps so far
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
  // The drift so far, in local ms, up to drift_since.
  TimeMs drifted = 0;
  TimeMs drift_since = 0;
  TimeMs clock_ms() const override {
    return world.now() + offset + drifted + (world.now() - drift_since) * drift_ppm / 1'000'000;
  }
  Task<> sleep(TimeMs ms) override {
    auto w = std::make_shared<Waiter>();
    world.at(world.now() + world.true_ms(index, ms), [this, w] {
      w->done = true;
      world.wake(index, w);
    });
    co_await Suspend(w);
  }
  void note(std::string_view text) override { world.note(index, text); }
  void spawn(Task<> task) override { world.spawn(index, std::move(task), /*background=*/true); }
};

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
      procs[p]->losses.push_back(now());
      note(p, "fault: request lost");
      return;
    }
    std::optional<R> reply = serve();
    if (!reply) return;
    if (procs[p]->lose_replies > 0) {
      --procs[p]->lose_replies;
      procs[p]->losses.push_back(now());
      note(p, "fault: reply lost");
      return;
    }
    const TimeMs served = now();
    const TimeMs back = deliver_at(p, procs[p]->down_last[server]);
    at(back, [this, p, st, served, reply = std::move(*reply)]() mutable {
      if (st->waiter->done) return;
      st->waiter->done = true;
      st->reply = std::move(reply);
      procs[p]->last_heard = std::max(procs[p]->last_heard, served);
      wake(p, st->waiter);
    });
  });
  at(now() + true_ms(p, cfg.call_timeout_ms), [this, p, st] {
    if (st->waiter->done) return;
    st->waiter->done = true;
    note(p, "<- (no answer in time)");
    wake(p, st->waiter);
  });
  co_await Suspend(st->waiter);
  co_return std::move(st->reply);
}

}  // namespace zksim::lease
