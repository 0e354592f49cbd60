// Coverage probes: named rare situations a run can reach (a holder's
// session expired, a create applied but its reply lost, a missed watch fired
// on reconnect, ...). A probe is not a check: it says whether a run got
// somewhere interesting, so that an exploration can show which situations
// its schedules and faults actually reached, and a test can fail when a
// workload never reaches a situation it is meant to.
//
//   RunResult r = run(w, decisions, {}, probe_world(FaultKind::Pause));
//   tally.add(r.probes);                        // run() fills r.probes
//   for (const std::string& p : tally.unreached("lock")) ...
//
// Counting reads the run's trace once, with constant work per event; the
// History's beliefs are read only when the trace showed an expiry or a
// crash. A run whose world kept no trace events (WorldConfig::keep_trace
// false) reaches no probe.
#pragma once

#include "zksim/fault.h"
#include "zksim/scenarios/history.h"
#include "zksim/scenarios/workload.h"
#include "zksim/zk_trace.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zksim::scenarios {

struct ProbeInfo {
  std::string name;          // e.g. "holder-session-expired"
  std::string description;   // one line: the situation, as the trace and history show it
  // The recipes whose workloads are meant to reach it, under the nemesis
  // probe_world(fault) (nullopt: with no fault at all) and probe_workload().
  std::vector<std::string> recipes;
  std::optional<FaultKind> fault;
};

// Every probe, in a fixed order. To add a recipe to a probe's expectations,
// or a probe, edit the table in probes.cpp (and, for a probe, teach
// count_probes in probe_count.cpp).
const std::vector<ProbeInfo>& probe_table();
// The probe named `name`, or nullptr.
const ProbeInfo* find_probe(const std::string& name);

// How often each probe was reached in one run, from its trace and its
// History. Only reached probes appear. REQUIRES: the trace as a World
// recorded it (time order, client ids as the world numbered them).
std::map<std::string, int> count_probes(std::span<const TraceEvent> trace, const History& history);

// The nemesis the table's expectations are stated for: `fault` at 60 per
// mille of requests (nullopt: none); pauses of 1800 ms against the
// workloads' 2000 ms sessions, so that some pauses outlive the session and
// others only break the connection; delays of 50 ms.
WorldConfig probe_world(std::optional<FaultKind> fault);
// The workload they are stated for: 4 clients, 4 rounds, holds of 600 ms
// and acquires that give up after 1000 ms. Faults strike when a request
// reaches the server; waiters that give up and try again keep requests
// coming while someone holds, so holders get paused, crashed and expired.
Workload probe_workload(const std::string& recipe);

// Probe counts merged across runs (and across tallies: a campaign split over
// processes merges their tallies).
class ProbeTally {
 public:
  void add(const std::map<std::string, int>& run_probes);
  void merge(const ProbeTally& other);

  int runs() const { return runs_; }
  // Times reached, over all runs; runs that reached it at least once.
  int times(const std::string& probe) const;
  int runs_reaching(const std::string& probe) const;
  // Reached probes, in table order (then any unknown names, sorted).
  std::vector<std::string> reached() const;
  // Probes the table expects `recipe` to reach (only those stated for
  // `fault`, if given) that no run reached, in table order.
  std::vector<std::string> unreached(const std::string& recipe) const;
  std::vector<std::string> unreached(const std::string& recipe, std::optional<FaultKind> fault) const;
  // One line per probe of the table (and any unknown name): name, runs
  // reaching it, times reached.
  std::string render() const;

 private:
  std::vector<std::string> unreached_where(const std::string& recipe, bool any_fault,
                                           std::optional<FaultKind> fault) const;
  int runs_ = 0;
  std::map<std::string, int> times_, runs_reaching_;
};

}  // namespace zksim::scenarios
