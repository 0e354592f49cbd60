// The lease world on runtime::EventLoop: processes (clocks, pauses) and
// the faults. See world.h; the servers' side is in
// redis_host.cpp and etcd_host.cpp.
#include "world_impl.h"

#include <cassert>

namespace zksim::lease {

void World::Impl::wake(int p, std::shared_ptr<Waiter> w) {
  const auto resume = [w] {
    if (auto h = std::exchange(w->handle, {})) h.resume();
  };
  Proc& proc = *procs[p];
  if (proc.paused(now())) {
    loop.at_process(proc, proc.paused_until, resume);
    return;
  }
  resume();
}

void World::Impl::woke(int p, std::uint64_t change) {
  const bool lasted = std::ranges::any_of(procs[p]->leases, [this](const LeaseSpan& s) {
    return s.start <= now() && now() < s.end;
  });
  wakeups.push_back({change, p, now(), lasted});
}

TimeMs World::Impl::true_ms(int p, TimeMs local_ms) const {
  const std::int64_t drift = procs[p]->drift_ppm;
  if (local_ms <= 0) return 0;
  // local = true * (1 + drift/1e6), rounded up so a sleep is never short.
  return (local_ms * 1'000'000 + (1'000'000 + drift) - 1) / (1'000'000 + drift);
}

// --- World ---

World::World(Config config, DecisionSource& decisions) : impl_(std::make_unique<Impl>(config, decisions)) {}
World::~World() = default;

int World::add_process(std::int64_t drift_ppm) {
  const int p = static_cast<int>(impl_->procs.size());
  auto proc = std::make_unique<Impl::Proc>(*impl_, p, drift_ppm);
  for (int n = 0; n < impl_->cfg.redis_nodes; ++n) {
    proc->redis_clients.push_back(impl_->make_redis_client(p, n));
    proc->subscribers.push_back(impl_->make_subscriber(p, n));
  }
  if (impl_->cfg.etcd) proc->etcd_client = impl_->make_etcd_client(p);
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
  impl_->loop.set_step_limit(kMaxSteps);
  while (!all_done()) {
    if (!impl_->loop.step(limit)) return false;
  }
  return true;
}

TimeMs World::now() const { return impl_->now(); }
void World::at(TimeMs t, std::function<void()> f) { impl_->at(t, std::move(f)); }

void World::pause(int p, TimeMs ms) {
  Impl::Proc& proc = *impl_->procs.at(p);
  proc.paused_until = std::max(proc.paused_until, impl_->now() + ms);
  proc.pauses.emplace_back(impl_->now(), impl_->now() + ms);
  impl_->note(p, fmt::format("fault: paused for {} ms", ms));
}

void World::jump_clock(int p, TimeMs delta_ms) {
  impl_->procs.at(p)->offset += delta_ms;
  impl_->note(p, fmt::format("fault: clock jumps {} ms", delta_ms));
}

void World::set_drift(int p, std::int64_t drift_ppm) {
  Impl::Proc& proc = *impl_->procs.at(p);
  proc.drifted += (impl_->now() - proc.drift_since) * proc.drift_ppm / 1'000'000;
  proc.drift_since = impl_->now();
  proc.drift_ppm = drift_ppm;
  impl_->note(p, fmt::format("fault: clock drifts {} ppm", drift_ppm));
}

void World::restart_redis(int node, TimeMs down_ms) {
  Impl::RedisNode& n = impl_->redis.at(node);
  n.down_until = impl_->now() + down_ms;
  impl_->note(-1, fmt::format("fault: redis{} down for {} ms", node, down_ms));
  impl_->at(n.down_until, [this, node] {
    Impl::RedisNode& back = impl_->redis[node];
    back.state.restore(back.saved, impl_->now() + back.clock_offset);
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
const std::vector<LeaseWakeup>& World::wakeups() const { return impl_->wakeups; }
Trace& World::trace() { return impl_->trace; }

}  // namespace zksim::lease
