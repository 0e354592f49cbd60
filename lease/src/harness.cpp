// The lease-lock harness (harness.h): the workload's loops, the nemesis,
// the resource, and the checkers.
#include "zksim/lease/harness.h"

#include "zksim/lease/checkers.h"
#include "zksim/lease/locks.h"
#include "zksim/lease/world.h"
#include "zksim/redis/lock_scripts.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace zksim::lease {

const std::vector<LeaseRecipe>& lease_recipes() {
  static const std::vector<LeaseRecipe> all = {
      {.name = "redis-set-nx"},
      {.name = "redis-set-nx-fenced", .fenced = true},
      {.name = "redisson-rlock", .renews = true},
      {.name = "redisson-rlock-fenced", .fenced = true, .renews = true},
      {.name = "redlock", .redis_nodes = 5},
      {.name = "etcd-mutex", .etcd = true, .renews = true, .herd_free = true},
      {.name = "etcd-mutex-fenced", .etcd = true, .fenced = true, .renews = true, .herd_free = true},
      {.name = "flawed/redis-del-unlock", .breaks = "belief-exclusion", .exposed_by = LeaseFault::LostReply},
      {.name = "flawed/redisson-watchdog-stops", .renews = true, .breaks = "lease-kept",
       .exposed_by = LeaseFault::LostReply},
      {.name = "flawed/etcd-mutex-no-owner-check", .etcd = true, .renews = true, .herd_free = true,
       .breaks = "belief-exclusion", .exposed_by = LeaseFault::KeepAliveLoss},
  };
  return all;
}

const LeaseRecipe* find_lease_recipe(const std::string& name) {
  for (const LeaseRecipe& r : lease_recipes()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const char* lease_fault_name(LeaseFault f) {
  switch (f) {
    case LeaseFault::Pause: return "pause";
    case LeaseFault::KeepAliveLoss: return "keepalive-loss";
    case LeaseFault::LostReply: return "lost-reply";
    case LeaseFault::LostMessage: return "lost-message";
    case LeaseFault::Restart: return "restart";
    case LeaseFault::ClockJump: return "clock-jump";
    case LeaseFault::ClockDrift: return "clock-drift";
  }
  return "?";
}

std::optional<LeaseFault> lease_fault_named(const std::string& name) {
  for (const LeaseFault f : kLeaseFaults) {
    if (name == lease_fault_name(f)) return f;
  }
  return std::nullopt;
}

bool lease_fault_applies(const LeaseRecipe& r, LeaseFault f) {
  return !r.etcd || (f != LeaseFault::Restart && f != LeaseFault::ClockJump);
}

std::vector<std::string> known_losses(const LeaseRecipe& r, LeaseFault f) {
  std::vector<std::string> out;
  const bool state_lost = !r.etcd && (f == LeaseFault::Restart || f == LeaseFault::ClockJump);
  // A slow clock stretches a hold that no renewal covers past its lease.
  const bool outlived = f == LeaseFault::Pause || (f == LeaseFault::KeepAliveLoss && r.renews) ||
                        (f == LeaseFault::ClockDrift && !r.renews) || state_lost;
  if (state_lost) out = {"belief-exclusion", "lease-kept"};
  if (outlived && (!r.fenced || (state_lost && f == LeaseFault::Restart))) out.push_back("resource-exclusion");
  return out;
}

namespace {

// The lease every recipe runs with: short enough that faults outlast it.
constexpr TimeMs kRedisTtlMs = 300;
constexpr std::int64_t kEtcdTtlS = 2;

class Harness {
 public:
  Harness(const LeaseWorkload& w, const LeaseRecipe& r, DecisionSource& d)
      : w_(w), recipe_(r), d_(d),
        world_({.redis_nodes = r.etcd ? 0 : r.redis_nodes,
                .etcd = r.etcd,
                .call_timeout_ms = lease_ms(r) / 10,
                .redis_lease_quorum = r.redis_nodes / 2 + 1,
                .keep_trace = w.keep_trace},
               d) {
    if (!r.etcd) world_.set_redis_lease_observer(redis_lease());
  }

  LeaseRun run() {
    for (int i = 0; i < w_.clients; ++i) {
      const int p = world_.add_process();
      world_.spawn(p, client(p));
    }
    LeaseRun out;
    out.finished = world_.run(w_.limit_ms);
    for (LeaseHold& h : holds_) {
      h.lease_end = lease_end(h);
      for (const auto& [from, to] : world_.pauses(h.process)) {
        h.paused_as_lease_ended |= from <= h.lease_end && h.lease_end < to && from < h.start;
      }
    }
    if (auto v = check_resource_exclusion(holds_, writes_)) out.violations.push_back(*v);
    if (auto v = check_belief_exclusion(holds_)) out.violations.push_back(*v);
    if (auto v = check_lease_kept(holds_)) out.violations.push_back(*v);
    if (recipe_.herd_free) {
      if (auto v = check_herd(world_.wakeups())) out.violations.push_back(*v);
    }
    out.wakeups = static_cast<int>(world_.wakeups().size());
    out.worst_wakeups = worst_wakeups(world_.wakeups());
    out.worst_lasting_wakeups = worst_wakeups(world_.wakeups(), /*lasted_only=*/true);
    if (!out.finished) {
      // The run stops at the time limit, when nothing is left to happen, or
      // after the world's bound on events: the message says when.
      out.violations.push_back({.property = "liveness",
                                .message = fmt::format("the clients had not finished their {} rounds when the run "
                                                       "stopped at {} ms (limit {} ms)",
                                                       w_.rounds, world_.now(), w_.limit_ms),
                                .time = -1});
    }
    out.holds = static_cast<int>(holds_.size());
    out.faults = faults_;
    out.trace_hash = world_.trace().hash();
    if (w_.keep_trace) {
      for (const TraceEvent& e : world_.trace().events()) {
        out.trace += fmt::format("t={:<6} {:<3} {}\n", e.time,
                                 e.client < 0 ? std::string("-") : fmt::format("p{}", e.client), e.detail);
      }
      out.events = world_.trace().take_events();
      out.hold_list = holds_;
      for (int p = 0; p < w_.clients; ++p) out.pauses.push_back(world_.pauses(p));
    }
    return out;
  }

 private:
  // A client's call timeout is a tenth of it, as Redisson's 3 s timeout is
  // of its 30 s watchdog lease.
  static TimeMs lease_ms(const LeaseRecipe& r) { return r.etcd ? kEtcdTtlS * 1000 : kRedisTtlMs; }
  TimeMs lease_ms() const { return lease_ms(recipe_); }

  // A lock that renews is held for two leases, one that does not for three
  // quarters of one: long enough for faults to outlast the lease, short
  // enough that a fault-free hold never does.
  TimeMs hold_ms() const {
    if (w_.hold_ms > 0) return w_.hold_ms;
    return recipe_.renews ? 2 * lease_ms() : lease_ms() * 3 / 4;
  }

  // Which Redis commands give or extend a holder's lease: the locks' own rule.
  static World::RedisLeaseObserver redis_lease() {
    return [](int, TimeMs now, const redis::Command& c, const redis::Reply& r) -> std::optional<TimeMs> {
      if (const std::optional<RedisLeaseGrant> g = redis_lease_granted(c, r)) return now + g->ms;
      return std::nullopt;
    };
  }

  std::unique_ptr<LeaseLock> make_lock(int p) {
    const bool flawed = !recipe_.breaks.empty();
    if (recipe_.etcd) {
      return make_etcd_mutex(world_.process(p), world_.etcd(p), {.ttl_s = kEtcdTtlS, .skip_owner_check = flawed});
    }
    if (recipe_.redis_nodes > 1) {
      std::vector<RedisClient*> nodes;
      for (int n = 0; n < recipe_.redis_nodes; ++n) nodes.push_back(&world_.redis(p, n));
      return make_redlock(world_.process(p), std::move(nodes), {.ttl_ms = kRedisTtlMs});
    }
    if (recipe_.renews) {
      return make_rlock(world_.process(p), world_.redis(p, 0), world_.subscriber(p, 0),
                        {.lease_ms = kRedisTtlMs, .fenced = recipe_.fenced, .watchdog_stops_on_error = flawed});
    }
    return make_set_nx_lock(world_.process(p), world_.redis(p, 0),
                            {.ttl_ms = kRedisTtlMs, .fenced = recipe_.fenced, .plain_del_unlock = flawed});
  }

  // The nemesis at a strike point of process p.
  void strike(int p) {
    if (w_.faults.empty() || w_.fault_per_mille <= 0) return;
    // Choice 0 is no fault (decision.h): a shrunk list keeps only the
    // strikes that had to happen.
    if (static_cast<int>(d_.pick(1000)) < 1000 - w_.fault_per_mille) return;
    const LeaseFault f = w_.faults[d_.pick(static_cast<std::uint32_t>(w_.faults.size()))];
    if (!lease_fault_applies(recipe_, f)) return;  // etcd's members keep their state through both
    const bool on_redis_node = f == LeaseFault::Restart || f == LeaseFault::ClockJump;
    ++faults_;
    const int node = on_redis_node ? static_cast<int>(d_.pick(static_cast<std::uint32_t>(recipe_.redis_nodes))) : 0;
    switch (f) {
      case LeaseFault::Pause:
        world_.pause(p, lease_ms() + 1 + d_.pick(static_cast<std::uint32_t>(lease_ms())));
        break;
      case LeaseFault::KeepAliveLoss: {
        // More than a lease's worth of renewals (each a third of a lease).
        const int n = 4 + static_cast<int>(d_.pick(3));
        if (recipe_.etcd) {
          world_.lose_keep_alives(p, n);
        } else {
          world_.lose_requests(p, n);
        }
        break;
      }
      case LeaseFault::LostReply:
        world_.lose_replies(p, 1);
        break;
      case LeaseFault::LostMessage:
        world_.lose_messages(p, 1);
        break;
      case LeaseFault::Restart:
        // Back before the lease is out, from no save: its keys are gone.
        world_.restart_redis(node, 1 + d_.pick(static_cast<std::uint32_t>(lease_ms() / 2)));
        break;
      case LeaseFault::ClockJump:
        world_.jump_redis_clock(node, lease_ms() + d_.pick(static_cast<std::uint32_t>(lease_ms())));
        break;
      case LeaseFault::ClockDrift: {
        world_.set_drift(p, -200'000 - static_cast<std::int64_t>(d_.pick(300'001)));
        TimeMs& since = drifting_since_[static_cast<std::size_t>(p)];
        since = std::min(since, world_.now());
        break;
      }
    }
  }

  // Whether process p was cut off from its lease in [from, to]: paused, two
  // or more of its replies or keepalives lost (a renewing lock rides out
  // one), or its clock running slow (its hold outlasts what it meant).
  bool cut_off_between(int p, TimeMs from, TimeMs to) const {
    const bool paused = std::ranges::any_of(world_.pauses(p), [&](const auto& s) {
      return s.first <= to && s.second > from;
    });
    const auto lost = std::ranges::count_if(world_.losses(p), [&](TimeMs t) { return from <= t && t <= to; });
    return paused || lost >= 2 || drifting_since_[static_cast<std::size_t>(p)] <= to;
  }

  Task<> client(int p) {
    std::unique_ptr<LeaseLock> lock = make_lock(p);
    Process& self = world_.process(p);
    for (int round = 0; round < w_.rounds; ++round) {
      strike(p);
      co_await self.sleep(0);  // a pause takes hold here
      const TimeMs asked = world_.now();
      std::optional<std::int64_t> token = co_await lock->acquire();
      if (!token) {
        self.note("acquire gave up");
        co_await self.sleep(w_.think_ms + 1);
        continue;
      }
      const int h = static_cast<int>(holds_.size());
      holds_.push_back(
          {.process = p, .number = round, .asked = asked, .start = world_.now(), .grounded = world_.last_heard(p)});
      self.note(fmt::format("holds (token {})", *token));
      strike(p);
      co_await self.sleep(1);  // (and here)
      write(h, *token);
      co_await self.sleep(hold_ms());
      write(h, *token);
      strike(p);
      co_await self.sleep(0);
      holds_[h].end = world_.now();
      self.note("releases");
      const bool kept = co_await lock->release();
      holds_[h].lost_at_release = !kept;
      holds_[h].cut_off = cut_off_between(p, asked, world_.now());
      co_await self.sleep(w_.think_ms);
    }
  }

  // The resource: a write lands when it is made (a pause comes before it).
  void write(int h, std::int64_t token) {
    if (recipe_.fenced) {
      if (token < max_token_) {
        world_.process(holds_[h].process).note(fmt::format("resource refuses token {}", token));
        return;
      }
      max_token_ = token;
    }
    writes_.push_back(h);
  }

  // The end of the lease hold h acquired under: its process's latest lease
  // begun at or before the hold began.
  TimeMs lease_end(const LeaseHold& h) const {
    TimeMs end = kNever;
    for (const LeaseSpan& s : world_.leases(h.process)) {
      if (s.start <= h.start) end = s.end;
    }
    return end;
  }

  const LeaseWorkload& w_;
  const LeaseRecipe& recipe_;
  DecisionSource& d_;
  World world_;
  std::vector<LeaseHold> holds_;
  std::vector<int> writes_;
  std::vector<TimeMs> drifting_since_ = std::vector<TimeMs>(static_cast<std::size_t>(w_.clients), kNever);
  std::int64_t max_token_ = 0;
  int faults_ = 0;
};

}  // namespace

LeaseRun run_lease(const LeaseWorkload& w, DecisionSource& decisions) {
  const LeaseRecipe* r = find_lease_recipe(w.recipe);
  return Harness(w, *r, decisions).run();
}

}  // namespace zksim::lease
