#include "zksim/scenarios/campaign.h"

#include "zksim/decision.h"
#include "zksim/scenarios/shrink.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace zksim::scenarios {

std::size_t CampaignResult::probes_reached() const {
  return static_cast<std::size_t>(
      std::count_if(probes.begin(), probes.end(), [](const auto& p) { return p.second != 0; }));
}

namespace {

using Clock = std::chrono::steady_clock;

// Run `index`, from `decisions`: folds its violations and probes into `out`.
void run_one(const Campaign& c, std::int64_t index, DecisionSource& decisions, CampaignResult& out) {
  const std::uint64_t seed = c.seed + static_cast<std::uint64_t>(index);
  RecordingDecisions recording(decisions);
  RunResult r = run(c.workload, recording, {}, c.config, KeepTrace::No);
  ++out.runs;
  for (const auto& [name, count] : r.probes) out.probes[name] += count;
  out.wakeups += r.wakeups;
  out.wakeups_without_progress += r.wakeups_without_progress;
  if (r.violations.empty()) return;
  ++out.violating_runs;
  std::map<std::string, const Violation*> first;  // violations are in time order
  for (const Violation& v : r.violations) first.emplace(v.property, &v);
  for (const auto& [property, v] : first) {
    Finding& f = out.findings[property];
    ++f.runs;
    if (f.run >= 0) continue;  // runs go in index order: the earlier one stays
    f.property = property;
    f.run = index;
    f.seed = seed;
    f.violation = *v;
    f.decisions = static_cast<std::int64_t>(recording.recorded().size());
    if (c.strategy == Strategy::Dfs) f.schedule = recording.recorded();
  }
}

// `c`'s workload and world replaying `decisions`, expecting `property`.
Scenario scenario_with(const Campaign& c, std::vector<std::uint32_t> decisions, const std::string& property) {
  Scenario s;
  s.workload = c.workload;
  s.config = c.config;
  s.decisions = std::move(decisions);
  s.strategy = c.strategy;
  s.expect_violation = property;
  return s;
}

// "seeded exploration (faults: pause) with seed 7", for a scenario's comment.
std::string how_found(const Campaign& c, const Finding& f) {
  switch (c.strategy) {
    case Strategy::Random:
      break;
    case Strategy::FixedLatency:
      return fmt::format("seeded exploration with fixed latency (faults: {}) with seed {}", c.faults, f.seed);
    case Strategy::Dfs:
      return fmt::format("depth-first search to depth {} (faults: {}) as schedule {}", c.depth, c.faults, f.run);
    case Strategy::Pct:
      return fmt::format("PCT schedules of depth {} (faults: {}) with seed {}", c.depth, c.faults, f.seed);
  }
  return fmt::format("seeded exploration (faults: {}) with seed {}", c.faults, f.seed);
}

}  // namespace

CampaignResult explore(const Campaign& c, const Shard& shard, std::optional<double> seconds,
                       const Progress& progress) {
  CampaignResult out;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  const auto budget = std::chrono::duration<double>(seconds.value_or(0));
  std::optional<DfsSchedules> dfs;
  if (c.strategy == Strategy::Dfs) {
    dfs.emplace(c.depth, c.config.nemesis);
    out.exhausted = false;
  }
  for (std::int64_t i = shard.index; c.runs == 0 || i < c.runs; i += shard.count) {
    if (seconds && Clock::now() - start >= budget) break;
    if (dfs) {
      run_one(c, i, *dfs, out);
      if (!dfs->advance()) {
        out.exhausted = true;
        break;
      }
    } else {
      const auto seeded = seeded_decisions(c.strategy, c.seed + static_cast<std::uint64_t>(i), static_cast<int>(c.depth));
      run_one(c, i, *seeded, out);
    }
    if (progress && Clock::now() - last_report >= std::chrono::milliseconds(200)) {
      last_report = Clock::now();
      progress(out);
    }
  }
  if (progress) progress(out);
  return out;
}

void merge_into(CampaignResult& a, const CampaignResult& b) {
  a.runs += b.runs;
  a.violating_runs += b.violating_runs;
  if (b.exhausted) a.exhausted = a.exhausted.value_or(true) && *b.exhausted;
  for (const auto& [name, count] : b.probes) a.probes[name] += count;
  a.wakeups += b.wakeups;
  a.wakeups_without_progress += b.wakeups_without_progress;
  for (const auto& [property, fb] : b.findings) {
    auto [it, fresh] = a.findings.emplace(property, fb);
    if (fresh) continue;
    Finding& fa = it->second;
    const std::int64_t total = fa.runs + fb.runs;
    if (fb.run < fa.run) fa = fb;
    fa.runs = total;
  }
}

Scenario scenario_of(const Campaign& c, std::uint64_t seed, const std::string& property) {
  assert(c.strategy != Strategy::Dfs);
  const auto seeded = seeded_decisions(c.strategy, seed, static_cast<int>(c.depth));
  RecordingDecisions recording(*seeded);
  run(c.workload, recording, {}, c.config, KeepTrace::No);
  return scenario_with(c, recording.recorded(), property);
}

std::optional<Scenario> shrink(const Campaign& c, Finding& f, int max_runs, std::string* why) {
  Scenario found = f.schedule ? scenario_with(c, *f.schedule, f.property) : scenario_of(c, f.seed, f.property);
  Shrunk shrunk = shrink_scenario(found, f.property, max_runs);
  f.shrink_runs = shrunk.runs;
  if (max_runs > 0 && !shrunk.reproduced) {
    // A recorded run that does not replay is a determinism bug: stop there.
    const std::string run = f.schedule ? fmt::format("schedule {}", f.run) : fmt::format("seed {}", f.seed);
    if (why) *why = fmt::format("the run with {} did not replay from its recorded decisions (determinism bug)", run);
    return std::nullopt;
  }
  // With no run to spare the recorded run is written as it is, with the
  // violation its seeded run showed.
  if (shrunk.reproduced) f.violation = shrunk.violation;
  Scenario& s = shrunk.scenario;
  s.comments = {
      fmt::format("{} violates {} ({}).", c.workload.recipe, f.property, f.violation.message),
      fmt::format("Found by {}; {} decisions shrunk to {}.", how_found(c, f), found.decisions.size(), s.decisions.size())};
  f.shrunk_decisions = static_cast<std::int64_t>(s.decisions.size());
  return std::move(s);
}

std::string write_scenario_file(const Scenario& s, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << write_scenario(s);
  out.close();
  if (!out) return fmt::format("cannot write {}", path);
  return {};
}

std::string shrink_finding(const Campaign& c, Finding& f, const std::string& path, int max_runs) {
  std::string why;
  std::optional<Scenario> s = shrink(c, f, max_runs, &why);
  if (!s) return why;
  if (std::string failed = write_scenario_file(*s, path); !failed.empty()) return failed;
  f.scenario_file = path;
  return {};
}

std::string finding_label(const Campaign& c, const Finding& f) {
  const std::string_view varied = c.workload.varied ? "varied-" : "";
  switch (c.strategy) {
    case Strategy::Random:
      break;
    case Strategy::FixedLatency:
      return fmt::format("{}fixed-latency-seed{}", varied, f.seed);
    case Strategy::Dfs:
      return fmt::format("{}dfs-schedule{}", varied, f.run);
    case Strategy::Pct:
      return fmt::format("{}pct-seed{}", varied, f.seed);
  }
  return fmt::format("{}seed{}", varied, f.seed);
}

std::string file_stem(const std::string& recipe) {
  std::string s = recipe;
  std::replace(s.begin(), s.end(), '/', '-');
  return s;
}

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

WorldConfig nemesis_config(const std::vector<int>& kinds, std::uint32_t per_mille) {
  WorldConfig c;
  for (int k : kinds) {
    c.nemesis.per_mille[k] = per_mille;
    if (is_ensemble_class(k)) c.servers = kEnsembleFaultServers;
  }
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

std::string fault_label(const WorldConfig& config) {
  std::string out;
  for (int k = 0; k < kFaultClasses; ++k) {
    if (config.nemesis.per_mille[k]) out += fmt::format("{}{}", out.empty() ? "" : ",", fault_class_name(k));
  }
  return out.empty() ? "none" : out;
}

}  // namespace zksim::scenarios
