#include "zksim/scenarios/probes.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::scenarios {

// A row per probe, in the order of detail::Probe (probe_ids.h), which
// count_probes counts by. A recipe whose workloads should reach a probe
// goes into that row's list; the exploration test then explores it.
const std::vector<ProbeInfo>& probe_table() {
  using F = FaultKind;
  static const std::vector<std::string> kLockFamily{"lock", "rw-lock", "semaphore", "election"};
  static const std::vector<ProbeInfo> table{
      {"holder-session-expired",
       "the server expired the session of a client that believed it held", kLockFamily,
       F::ExpireSession},
      {"holder-told-lost", "a holder was told Lost: its session expired while it held", kLockFamily,
       F::ExpireSession},
      {"granted-before-expired-holder-knew",
       "another client was granted while a holder whose session had expired still believed it held",
       kLockFamily, F::Pause},
      {"granted-after-session-expired",
       "a client was granted after the server had expired its session (the grant was stale on arrival)",
       kLockFamily, F::ExpireSession},
      {"crashed-holder", "a client crashed while it believed it held", kLockFamily, F::Crash},
      {"watch-fired-by-expiry",
       "a watch fired for a node that a session expiry deleted (a crashed or silent contender's)",
       kLockFamily, F::Crash},
      {"paused-past-session-timeout",
       "the server expired a client's session while the client was paused", kLockFamily, F::Pause},
      {"holder-reconnected",
       "a holder lost its connection and got it back within its session (Suspended, then Reconnected)",
       kLockFamily, F::Pause},
      {"reconnect-fired-missed-watch",
       "after reconnecting, a client got a watch event for a change committed while it was disconnected",
       kLockFamily, F::Pause},
      {"create-applied-reply-lost",
       "the server applied a create (ZOK) whose reply was lost: the client saw ConnectionLoss",
       kLockFamily, F::DropAfterApply},
      {"lost-create-found-again",
       "after a create's reply was lost, the client found the node by the create's unique prefix",
       kLockFamily, F::DropAfterApply},
      {"delete-applied-reply-lost",
       "the server applied a delete (ZOK) whose reply was lost: the client saw ConnectionLoss",
       kLockFamily, F::DropAfterApply},
      {"create-not-applied",
       "a create was lost before the server applied it: the client saw ConnectionLoss, nothing was made",
       kLockFamily, F::DropBeforeApply},
      {"predecessor-gone-before-watch",
       "exists/getData on a sibling sequential node found it gone: it left between the listing and the watch",
       kLockFamily, F::ExpireSession},
      {"timeout-withdrew-node", "an acquire timed out and the client deleted its node meanwhile",
       kLockFamily, F::Pause},
      {"contender-session-expired",
       "an acquire failed with SessionExpired: the session ended while the client contended",
       kLockFamily, F::ExpireSession},
  };
  return table;
}

const ProbeInfo* find_probe(const std::string& name) {
  for (const ProbeInfo& p : probe_table()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

WorldConfig probe_world(std::optional<FaultKind> fault) {
  WorldConfig c;
  if (fault) c.nemesis.per_mille[static_cast<int>(*fault)] = 60;
  c.nemesis.pause_ms = 1800;
  c.nemesis.delay_ms = 50;
  return c;
}

Workload probe_workload(const std::string& recipe) {
  return Workload{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 600, .timeout_ms = 1000};
}

void ProbeTally::add(const std::map<std::string, int>& run_probes) {
  ++runs_;
  for (const auto& [name, times] : run_probes) {
    if (times <= 0) continue;
    times_[name] += times;
    ++runs_reaching_[name];
  }
}

void ProbeTally::merge(const ProbeTally& other) {
  runs_ += other.runs_;
  for (const auto& [name, t] : other.times_) times_[name] += t;
  for (const auto& [name, r] : other.runs_reaching_) runs_reaching_[name] += r;
}

int ProbeTally::times(const std::string& probe) const {
  auto it = times_.find(probe);
  return it == times_.end() ? 0 : it->second;
}

int ProbeTally::runs_reaching(const std::string& probe) const {
  auto it = runs_reaching_.find(probe);
  return it == runs_reaching_.end() ? 0 : it->second;
}

std::vector<std::string> ProbeTally::reached() const {
  std::vector<std::string> out;
  for (const ProbeInfo& p : probe_table()) {
    if (times(p.name) > 0) out.push_back(p.name);
  }
  for (const auto& [name, t] : times_) {
    if (!find_probe(name)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> ProbeTally::unreached_where(const std::string& recipe, bool any_fault,
                                                     std::optional<FaultKind> fault) const {
  std::vector<std::string> out;
  for (const ProbeInfo& p : probe_table()) {
    if (!any_fault && p.fault != fault) continue;
    if (std::find(p.recipes.begin(), p.recipes.end(), recipe) == p.recipes.end()) continue;
    if (times(p.name) == 0) out.push_back(p.name);
  }
  return out;
}

std::vector<std::string> ProbeTally::unreached(const std::string& recipe) const {
  return unreached_where(recipe, true, std::nullopt);
}

std::vector<std::string> ProbeTally::unreached(const std::string& recipe,
                                               std::optional<FaultKind> fault) const {
  return unreached_where(recipe, false, fault);
}

std::string ProbeTally::render() const {
  std::string out;
  auto line = [&](const std::string& name) {
    out += fmt::format("{:<36} {:>6} runs {:>7} times\n", name, runs_reaching(name), times(name));
  };
  for (const ProbeInfo& p : probe_table()) line(p.name);
  for (const auto& [name, t] : times_) {
    if (!find_probe(name)) line(name);
  }
  return out;
}

}  // namespace zksim::scenarios
