// The simulated world: a ZooKeeper ensemble (one server by default), clients
// talking to it over simulated connections, simulated time, injected
// faults, and a trace.
// Every nondeterministic choice (message delays, the order of getChildren
// results, the nemesis) is a pick() on the one DecisionSource, so the same
// decisions replay the same run, byte for byte.
//
//   zksim::SeededDecisions decisions(7);
//   zksim::World world({}, decisions);
//   zksim::Client& a = world.open("a");
//   world.spawn(a, my_recipe(a));          // a zksim::Task<>
//   world.run_until(10'000);               // simulated ms
//   world.trace().hash();
//
// Kept: one order of writes; per-connection FIFO both ways; a watch event
// reaches its client before any later response on that connection; time
// never goes back. Explored: message delays (so the order in which
// different sessions' requests reach the server), getChildren order, faults.
#pragma once

#include "zksim/client.h"
#include "zksim/decision.h"
#include "zksim/fault.h"
#include "zksim/flavour.h"
#include "zksim/server.h"
#include "zksim/task.h"
#include "zksim/zk_trace.h"

#include <memory>
#include <string>
#include <vector>

namespace zksim {

struct WorldConfig {
  ServerConfig server{.tick_ms = 200};
  TimeMs latency_ms = 1;            // one-way delay of every message
  // Each message is late by pick(delay_choices) * latency_ms more (1: never).
  std::uint32_t delay_choices = 3;
  TimeMs reconnect_delay_ms = 10;   // after a disconnect, before reconnecting
  TimeMs container_check_ms = 1000; // znode.container.checkIntervalMs
  NemesisRates nemesis;
  bool keep_trace = true;           // false: hash only (benchmarks)
  // The ensemble's size; server 0 leads. Each follower applies each
  // committed transaction pick(4) * follower_lag_ms after the leader (and
  // after the one before). See docs/ensemble.md.
  int servers = 1;
  TimeMs follower_lag_ms = 10;
  // How long an election takes once the leader crashed: no server serves
  // meanwhile.
  TimeMs election_ms = 400;
  // How long a follower cut off from the leader takes to notice: its read
  // timeout on the leader's socket, syncLimit * tickTime (Learner sets
  // sock.setSoTimeout(tickTime * syncLimit) once synced). 5 ticks of the
  // simulated server's 200 ms, as the real test ensemble runs
  // (real/testing/zk_ensemble.h): shorter than the harness's session
  // timeouts (2 to 4 s), so the clients of a follower that notices move on
  // before their sessions expire, as in a deployment with the defaults
  // (syncLimit 5 of tickTime 2 s, sessions of 20 s and more).
  TimeMs partition_detect_ms = 1000;
};

class World {
 public:
  World(WorldConfig config, DecisionSource& decisions);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A new client handle with a new session, starting to connect now. Clients
  // of the same `process` crash together; -1 gives the client its own. The
  // `flavour` is the client library it behaves like (flavour.h).
  // `servers` is its connect string, as server indexes (empty: all of
  // them): shuffled once, each connection attempt takes the next one.
  Client& open(std::string name, int session_timeout_ms = 4000, int process = -1,
               Flavour flavour = Flavour::C, std::vector<int> servers = {});
  // Another handle on the same session (threads of one process sharing a
  // zhandle): same session, own default watcher and name.
  Client& share(Client& client, std::string name);
  // The id a client has in faults and the trace.
  int id(const Client& client) const;
  int client_count() const;
  Client& client(int id);

  // Runs `task` on behalf of `owner`; if the owner's process crashes, or the
  // world ends, the task is destroyed where it is suspended.
  void spawn(Client& owner, Task<> task);
  // How many spawned tasks have not finished.
  int running_tasks() const;

  // Processes events in (time, sequence) order until simulated time `t`.
  void run_until(TimeMs t);
  // Runs until every spawned task finished (true) or time `limit` (false).
  bool run_until_done(TimeMs limit);
  // The same, stopping also once steps() reaches `until_steps` (false).
  bool run_until_done(TimeMs limit, std::uint64_t until_steps);
  TimeMs now() const;

  // The work done so far: events processed, plus calls answered at once
  // without an event (refused by the library, or on a closed handle).
  std::uint64_t steps() const;
  // Stops the world once steps() reaches `limit`: the run_* calls return,
  // no event runs any more, and a call that would be answered at once
  // waits forever instead, so that a recipe looping without end, even one
  // that never waits for an event, cannot keep a run going or fill memory.
  void set_step_limit(std::uint64_t limit);
  bool step_limit_reached() const;

  // How often the seeded nemesis struck with fault class `fault_class`
  // (fault.h): a request it broke, a client or server it hit, a fault it
  // armed. A strike that found nobody to hit (every client gone, no
  // follower up) is not one.
  int struck(int fault_class) const;

  // The leader: the ground truth of what is committed.
  Server& server();
  // Server `index` of the ensemble (0 leads until it crashes), with what
  // it has applied.
  Server& server(int index);
  int server_count() const;
  // The server `client` is connected to; -1 while it is not connected.
  int server_of(const Client& client) const;
  const Trace& trace() const;
  Trace& trace();
  DecisionSource& decisions();

  // Faults, now or scripted.
  void schedule(const ScriptedFault& fault);
  void inject(FaultKind kind, int client, TimeMs duration_ms = 0);
  // Cuts `client` off the server for `duration_ms`: its connection breaks
  // now and it cannot connect again before then (one client partitioned).
  void partition(int client, TimeMs duration_ms);
  // Faults of the ensemble (docs/ensemble.md). Server `index` crashes now:
  // its clients' connections break (every client's, if it led, while a
  // new leader is elected); false if it is down, out of range, or the
  // ensemble would lose its quorum.
  bool crash_server(int index);
  // A crashed server comes back, caught up with the leader.
  void restart_server(int index);
  // Follower `index` receives nothing the leader commits for `duration_ms`.
  void lag_burst(int index, TimeMs duration_ms);
  // Follower `index` is cut off from the leader for `duration_ms`: it
  // serves stale reads, and what its clients send the leader (writes,
  // syncs, session touches) waits for the cut to heal; past
  // partition_detect_ms it drops its clients, loses what it held and
  // refuses connections until the cut heals. False (and nothing happens)
  // on the leader, a server down or already cut, during an election, or
  // if the cut would leave no quorum (an ensemble of one or two).
  bool partition_server(int index, TimeMs duration_ms);
  // Changes the nemesis from now on (all zero: faults stop, so a run can
  // quiesce and be checked for liveness).
  void set_nemesis(const NemesisRates& rates);
  // The next sequential suffix under `path` (e.g. near 2^31).
  Error set_sequence_counter(const std::string& path, std::int32_t value);
  // A persistent node that was there before the run (a deployment's
  // long-lived directory), on every server, made by no transaction, its
  // sequence counter at `value` (Server::preset_node). BadArguments once a
  // client has opened, or for an invalid path.
  Error preset_node(const std::string& path, std::int32_t value);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace zksim
