// The simulated world of the lease locks: client processes with their own
// clocks, independent Redis nodes and one etcd cluster (the pure models of
// zksim_redis and zksim_etcd), and the network between them. It runs on
// simulated time from one DecisionSource, like the ZooKeeper world: the
// same source gives the same run, byte for byte.
//
// The network: every message takes 1 + pick(max_latency_ms) ms, and each
// direction of a connection delivers in order (TCP). A process that is
// paused runs nothing: what would wake it waits until the pause ends.
//
//   lease::World w({.redis_nodes = 1}, decisions);
//   int p = w.add_process();
//   w.spawn(p, my_lock_loop(w.process(p), w.redis(p, 0)));
//   w.run(10'000);
#pragma once

#include "zksim/decision.h"
#include "zksim/etcd/state.h"
#include "zksim/lease/checkers.h"
#include "zksim/lease/clients.h"
#include "zksim/redis/state.h"
#include "zksim/task.h"
#include "zksim/trace.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace zksim::lease {

struct Config {
  int redis_nodes = 0;  // independent nodes, 0..redis_nodes-1
  bool etcd = false;    // one etcd cluster
  TimeMs max_latency_ms = 3;
  // A client gives up on a call after this much of its own time.
  TimeMs call_timeout_ms = 500;
  // A Redis node saves (RDB) this often; 0: never, so a restart comes back
  // empty. Writes after the last save are lost in a restart.
  TimeMs redis_save_every_ms = 0;
  // A process's Redis lease lasts while this many nodes hold it (RedLock's
  // majority; 1 for a lock on one node).
  int redis_lease_quorum = 1;
  // Keep the trace's events (trace().events()); else only its hash.
  bool keep_trace = true;
};

// What the server side knew of a process's leases, for the checkers: when
// each lease began and ended, in true time. An etcd lease ends when revoked
// or expired. A Redis lease is what the lease observer (set_redis_lease_observer)
// reports: it ends at its last deadline (a later DEL is not an end: it is
// what the checkers look for).
struct LeaseSpan {
  TimeMs start = 0;
  TimeMs end = 0;  // kNever while it lasts
};

class World {
 public:
  World(Config config, DecisionSource& decisions);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A new process; `drift_ppm` makes its clock run fast (> 0) or slow.
  int add_process(std::int64_t drift_ppm = 0);
  Process& process(int p);
  RedisClient& redis(int p, int node);
  RedisSubscriber& subscriber(int p, int node);
  EtcdClient& etcd(int p);
  // Runs `task` as process p's work.
  void spawn(int p, Task<> task);
  // Runs until every spawned task finished (true) or time `limit` (false).
  bool run(TimeMs limit);
  TimeMs now() const;
  // Runs `f` at true time `t` (>= now), for faults and probes.
  void at(TimeMs t, std::function<void()> f);

  // Faults, from now on.
  // A stop-the-world pause. It takes hold at the process's next suspension:
  // a coroutine that is running goes on to its next co_await.
  void pause(int p, TimeMs ms);
  void jump_clock(int p, TimeMs delta_ms);   // the wall clock jumps
  // From now on the process's clocks run at (1 + drift_ppm/1e6) of true
  // time: its wall clock and its sleeps (a sleep begun before keeps its
  // end). REQUIRES: drift_ppm > -1e6.
  void set_drift(int p, std::int64_t drift_ppm);
  void restart_redis(int node, TimeMs down_ms);  // down, then back from its last save
  // The node's clock jumps forward (Redis reads the wall clock for TTLs):
  // its keys expire that much earlier. REQUIRES: delta_ms >= 0.
  void jump_redis_clock(int node, TimeMs delta_ms);
  void lose_keep_alives(int p, int count);   // the next `count` keepalives of p are lost
  void lose_replies(int p, int count);       // the replies to p's next `count` calls are lost (the calls ran)
  void lose_requests(int p, int count);      // p's next `count` calls are lost on the way (they do not run)
  void lose_messages(int p, int count);      // the next `count` pub/sub messages to p are lost

  // Which Redis commands give or extend a lease: called for every command a
  // node served at `now` for process p, with its reply; returns the lease's
  // new deadline (ms) when the command gave p a lease or extended its. Set
  // by the harness, which knows its recipe's commands.
  using RedisLeaseObserver = std::function<std::optional<TimeMs>(int p, TimeMs now, const redis::Command& command,
                                                                 const redis::Reply& reply)>;
  void set_redis_lease_observer(RedisLeaseObserver observer);

  // The server time of the last message process p received from a server
  // (a reply or a watch event); -1 before any.
  TimeMs last_heard(int p) const;
  // Process p's leases, in the order they began (see LeaseSpan).
  const std::vector<LeaseSpan>& leases(int p) const;
  // Process p's pauses so far, as [start, end) in true time.
  const std::vector<std::pair<TimeMs, TimeMs>>& pauses(int p) const;
  // When replies and keepalives of process p were lost (true time).
  const std::vector<TimeMs>& losses(int p) const;

  // Every pub/sub message and watch event delivered so far, in delivery
  // order, each marked with whether the process then had a lease.
  const std::vector<LeaseWakeup>& wakeups() const;

  Trace& trace();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace zksim::lease
