// The lease world's etcd cluster: clients' calls served by the model,
// lease expiry on the lessor's schedule, and watches delivering deletions.
#include "world_impl.h"

namespace zksim::lease {

void World::Impl::lease_ended(etcd::LeaseId id) {
  note(-1, fmt::format("etcd lease {:x} ended", id));
  auto it = lease_owner.find(id);
  if (it == lease_owner.end()) return;
  LeaseSpan& span = procs[it->second.first]->leases[it->second.second];
  span.end = std::min(span.end, now());
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

// LeaseWakeup::change of an etcd revision's events, apart from the numbers of
// Redis publications.
constexpr std::uint64_t kEtcdChange = std::uint64_t{1} << 62;

void World::Impl::deliver_watches() {
  for (auto it = watches.begin(); it != watches.end();) {
    Watch& w = it->second;
    const etcd::WatchResponse r = etcd.watch({.key = w.key, .start_revision = w.next_revision});
    bool fired = false;
    std::int64_t revision = 0;
    for (const etcd::Event& e : r.events) {
      w.next_revision = e.kv.mod_revision + 1;
      if (e.type == etcd::Event::Type::Delete) {
        fired = true;
        revision = e.kv.mod_revision;
        break;
      }
    }
    if (!fired && !r.canceled) {
      ++it;
      continue;
    }
    const TimeMs served = now();
    const int p = w.proc;
    const TimeMs back = deliver_at(p, procs[p]->down_last[cfg.redis_nodes]);
    at(back, [this, p, served, revision, waiter = w.waiter, deleted = w.deleted, ok = fired] {
      if (waiter->done) return;
      waiter->done = true;
      *deleted = ok;
      if (ok) woke(p, kEtcdChange | static_cast<std::uint64_t>(revision));
      procs[p]->last_heard = std::max(procs[p]->last_heard, served);
      wake(p, waiter);
    });
    it = watches.erase(it);
  }
}

namespace {

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

Task<EtcdClient::Answer<etcd::LeaseGrantResponse>> SimEtcd::lease_grant(etcd::LeaseGrantRequest r) {
  std::function<etcd::Result<etcd::LeaseGrantResponse>(etcd::EtcdState&)> grant = [this, r](etcd::EtcdState& s) {
    auto g = s.lease_grant(r);
    if (g) {
      auto& spans = w_.procs[p_]->leases;
      w_.lease_owner[g->id] = {p_, spans.size()};
      spans.push_back({w_.now(), kNever});
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
      proc.losses.push_back(w_.now());
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

std::unique_ptr<EtcdClient> World::Impl::make_etcd_client(int p) { return std::make_unique<SimEtcd>(*this, p); }

}  // namespace zksim::lease
