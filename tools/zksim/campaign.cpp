#include "campaign.h"

#include "zksim/decision.h"
#include "zksim/scenarios/shrink.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace zksim::cli {

std::size_t CampaignResult::probes_reached() const {
  return static_cast<std::size_t>(
      std::count_if(probes.begin(), probes.end(), [](const auto& p) { return p.second != 0; }));
}

namespace {

using Clock = std::chrono::steady_clock;

// One run: folds its violations and probes into `out`.
void run_one(const Campaign& c, std::int64_t index, CampaignResult& out) {
  const std::uint64_t seed = c.seed + static_cast<std::uint64_t>(index);
  SeededDecisions seeded(seed);
  RecordingDecisions recording(seeded);
  scenarios::RunResult r = scenarios::run(c.workload, recording, {}, c.config);
  ++out.runs;
  for (const auto& [name, count] : r.probes) out.probes[name] += count;
  if (r.violations.empty()) return;
  ++out.violating_runs;
  std::map<std::string, const scenarios::Violation*> first;  // violations are in time order
  for (const scenarios::Violation& v : r.violations) first.emplace(v.property, &v);
  for (const auto& [property, v] : first) {
    Finding& f = out.findings[property];
    ++f.runs;
    if (f.run >= 0) continue;  // runs go in index order: the earlier one stays
    f.property = property;
    f.run = index;
    f.seed = seed;
    f.violation = *v;
    f.decisions = static_cast<std::int64_t>(recording.recorded().size());
  }
}

}  // namespace

CampaignResult explore(const Campaign& c, const Shard& shard, std::optional<double> seconds,
                       const Progress& progress) {
  CampaignResult out;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  const auto budget = std::chrono::duration<double>(seconds.value_or(0));
  for (std::int64_t i = shard.index; c.runs == 0 || i < c.runs; i += shard.count) {
    if (seconds && Clock::now() - start >= budget) break;
    run_one(c, i, out);
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
  for (const auto& [name, count] : b.probes) a.probes[name] += count;
  for (const auto& [property, fb] : b.findings) {
    auto [it, fresh] = a.findings.emplace(property, fb);
    if (fresh) continue;
    Finding& fa = it->second;
    const std::int64_t total = fa.runs + fb.runs;
    if (fb.run < fa.run) fa = fb;
    fa.runs = total;
  }
}

scenarios::Scenario scenario_of(const Campaign& c, std::uint64_t seed, const std::string& property) {
  SeededDecisions seeded(seed);
  RecordingDecisions recording(seeded);
  scenarios::run(c.workload, recording, {}, c.config);
  scenarios::Scenario s;
  s.workload = c.workload;
  s.config = c.config;
  s.decisions = recording.recorded();
  s.expect_violation = property;
  return s;
}

void shrink_finding(const Campaign& c, Finding& f, const std::string& path, int max_runs) {
  scenarios::Scenario found = scenario_of(c, f.seed, f.property);
  scenarios::Shrunk shrunk = scenarios::shrink_scenario(found, f.property, max_runs);
  f.shrink_runs = shrunk.runs;
  if (max_runs > 0 && !shrunk.reproduced) {
    // A recorded run that does not replay is a determinism bug: stop there.
    throw UsageError(fmt::format("zksim: the run with seed {} did not replay from its recorded decisions (determinism bug)", f.seed));
  }
  // With no run to spare the recorded run is written as it is, with the
  // violation its seeded run showed.
  if (shrunk.reproduced) f.violation = shrunk.violation;
  scenarios::Scenario& s = shrunk.scenario;
  s.comments = {
      fmt::format("{} violates {} ({}).", c.workload.recipe, f.property, f.violation.message),
      fmt::format("Found by seeded exploration (faults: {}) with seed {}; {} decisions shrunk to {}.", c.faults,
                  f.seed, found.decisions.size(), s.decisions.size())};
  f.shrunk_decisions = static_cast<std::int64_t>(s.decisions.size());
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << scenarios::write_scenario(s);
  out.close();
  if (!out) throw UsageError(fmt::format("zksim: cannot write {}", path));
  f.scenario_file = path;
}

const scenarios::FlawedRecipe* flaw_of(const std::string& recipe) {
  const auto& all = scenarios::flawed_recipes();
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& f) { return f.recipe == recipe; });
  return it == all.end() ? nullptr : &*it;
}

std::string file_stem(const std::string& recipe) {
  std::string s = recipe;
  std::replace(s.begin(), s.end(), '/', '-');
  return s;
}

std::string client_names(const std::vector<int>& clients) {
  std::string out;
  for (int c : clients) out += fmt::format("{}c{}", out.empty() ? "" : ", ", c);
  return out.empty() ? "-" : out;
}

}  // namespace zksim::cli
