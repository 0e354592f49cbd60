#include "zksim/scenarios/campaign.h"

#include "run_pool.h"
#include "run_record.h"
#include "zksim/decision.h"
#include "zksim/scenarios/shrink.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <deque>
#include <set>
#include <filesystem>
#include <fstream>

namespace zksim::scenarios {

std::size_t CampaignResult::probes_reached() const {
  return static_cast<std::size_t>(
      std::count_if(probes.begin(), probes.end(), [](const auto& p) { return p.second != 0; }));
}

namespace {

using Clock = std::chrono::steady_clock;
using detail::RunRecord;

// A run of one of the campaigns: its index, and for dfs the schedule's
// forced decisions (the search itself stays with the parent).
struct Ask {
  std::uint32_t campaign = 0;
  std::int64_t index = 0;
  std::vector<std::uint32_t> prefix;
};

std::string encode_ask(const Ask& a) {
  std::string out(sizeof a.campaign + sizeof a.index, '\0');
  std::memcpy(out.data(), &a.campaign, sizeof a.campaign);
  std::memcpy(out.data() + sizeof a.campaign, &a.index, sizeof a.index);
  out.append(reinterpret_cast<const char*>(a.prefix.data()), a.prefix.size() * sizeof(std::uint32_t));
  return out;
}

Ask decode_ask(std::string_view in) {
  Ask a;
  std::memcpy(&a.campaign, in.data(), sizeof a.campaign);
  std::memcpy(&a.index, in.data() + sizeof a.campaign, sizeof a.index);
  const std::size_t head = sizeof a.campaign + sizeof a.index;
  a.prefix.resize((in.size() - head) / sizeof(std::uint32_t));
  if (!a.prefix.empty()) std::memcpy(a.prefix.data(), in.data() + head, a.prefix.size() * sizeof(std::uint32_t));
  return a;
}

// Makes run `a` of `c` and keeps what a campaign keeps of it. A dfs run
// also keeps its trail, and, when it violated something, its decisions.
RunRecord make_run(const Campaign& c, const Ask& a, std::vector<std::uint32_t>* dfs_decisions) {
  RunRecord out;
  std::unique_ptr<DecisionSource> source;
  DfsSchedules* dfs = nullptr;
  if (c.strategy == Strategy::Dfs) {
    auto schedules = std::make_unique<DfsSchedules>(c.depth, c.config.nemesis);
    schedules->search().force(a.prefix);
    dfs = schedules.get();
    source = std::move(schedules);
  }
  const std::uint64_t seed = c.seed + static_cast<std::uint64_t>(a.index);
  const DrawnRun setup = run_setup(c, seed);
  if (!dfs) source = seeded_decisions(setup.strategy, seed, static_cast<int>(setup.depth));
  RecordingDecisions recording(*source);
  RunResult r = run(setup.workload, recording, {}, setup.config, KeepTrace::No);
  std::set<std::string> seen;  // violations are in time order: the first of each stays
  for (Violation& v : r.violations) {
    if (seen.insert(v.property).second) out.violations.push_back(std::move(v));
  }
  for (const auto& [name, count] : r.probes) {
    if (count) out.probes[name] = count;
  }
  out.wakeups = r.wakeups;
  out.wakeups_without_progress = r.wakeups_without_progress;
  out.granted_while_suspended = r.granted_while_suspended;
  out.lost_in_transit = r.lost_in_transit;
  out.decisions = static_cast<std::int64_t>(recording.recorded().size());
  out.completed_ops = r.completed_ops;
  out.struck = r.struck;
  for (int k = 0; k < kFaultClasses; ++k) out.armed[static_cast<std::size_t>(k)] = setup.config.nemesis.per_mille[k] > 0;
  if (dfs) {
    for (const DfsDecisions::Step& step : dfs->search().trail()) out.trail.emplace_back(step.choice, step.n);
    if (!out.violations.empty() && dfs_decisions) *dfs_decisions = recording.recorded();
  }
  return out;
}

// Folds run `index` of `c` into `out`. Runs may come in any order: the
// lowest index that violated a property is its finding.
void fold(const Campaign& c, std::int64_t index, const RunRecord& r, std::vector<std::uint32_t> dfs_decisions,
          CampaignResult& out) {
  ++out.runs;
  for (const auto& [name, count] : r.probes) out.probes[name] += count;
  out.wakeups += r.wakeups;
  out.wakeups_without_progress += r.wakeups_without_progress;
  out.granted_while_suspended += r.granted_while_suspended;
  out.runs_granted_while_suspended += r.granted_while_suspended > 0;
  out.lost_in_transit += r.lost_in_transit;
  out.runs_lost_in_transit += r.lost_in_transit > 0;
  out.completed_ops += r.completed_ops;
  for (int k = 0; k < kFaultClasses; ++k) {
    out.struck[static_cast<std::size_t>(k)] += r.struck[static_cast<std::size_t>(k)];
    out.armed[static_cast<std::size_t>(k)] += r.armed[static_cast<std::size_t>(k)];
  }
  if (r.violations.empty()) return;
  ++out.violating_runs;
  for (const Violation& v : r.violations) {
    Finding& f = out.findings[v.property];
    ++f.runs;
    if (f.run >= 0 && f.run < index) continue;
    f.property = v.property;
    f.run = index;
    f.seed = c.strategy == Strategy::Dfs ? static_cast<std::uint64_t>(index) : c.seed + static_cast<std::uint64_t>(index);
    f.violation = v;
    f.decisions = r.decisions;
    if (c.search) f.drawn = run_setup(c, f.seed).summary;
    if (c.strategy == Strategy::Dfs) f.schedule = dfs_decisions;
  }
}

// Answers in a child: the record, and for a dfs run that violated
// something its decisions after it.
std::string answer(const std::vector<Campaign>& campaigns, std::string_view bytes) {
  const Ask a = decode_ask(bytes);
  std::vector<std::uint32_t> decisions;
  std::string out = detail::encode(make_run(campaigns[a.campaign], a, &decisions));
  const auto n = static_cast<std::uint32_t>(decisions.size());
  out.append(reinterpret_cast<const char*>(decisions.data()), n * sizeof(std::uint32_t));
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  return out;
}

std::pair<RunRecord, std::vector<std::uint32_t>> read_answer(std::string_view bytes) {
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + bytes.size() - sizeof n, sizeof n);
  const std::size_t list = n * sizeof(std::uint32_t);
  std::vector<std::uint32_t> decisions(n);
  if (n) std::memcpy(decisions.data(), bytes.data() + bytes.size() - sizeof n - list, list);
  return {detail::decode(bytes.substr(0, bytes.size() - sizeof n - list)), std::move(decisions)};
}

// The crash of run `index` as a finding of "crashed".
RunRecord crash_record(const std::string& how, std::int64_t decisions) {
  RunRecord r;
  r.violations.push_back(Violation{name(Property::Crashed), fmt::format("the run crashed: {}", how), {}, 0});
  r.decisions = decisions;
  return r;
}

// Makes the asks `submit` is given, in a pool of children or, with no
// jobs, in this process at once.
class Runs {
 public:
  Runs(const std::vector<Campaign>& campaigns, int jobs, int window)
      : campaigns_(campaigns) {
    if (jobs > 0) {
      pool_.emplace(jobs, [&campaigns](std::string_view bytes) { return answer(campaigns, bytes); }, detail::Limits{},
                    window);
    }
  }
  void submit(const Ask& a) {
    const std::uint64_t id = next_id_++;
    asks_.emplace(id, a);
    if (pool_) {
      pool_->submit(id, encode_ask(a));
    } else {
      done_.push_back({id, answer(campaigns_, encode_ask(a)), {}});
    }
  }
  std::size_t pending() const { return pool_ ? pool_->pending() : done_.size(); }
  // The next answer: its ask, its record and a dfs violation's decisions.
  struct Done {
    Ask ask;
    RunRecord record;
    std::vector<std::uint32_t> decisions;
    bool crashed = false;
    std::uint64_t recycled_growth = 0;  // its child was replaced after it, having grown this much
  };
  Done next() {
    detail::RunPool::Answer a;
    if (pool_) {
      try {
        a = pool_->next();
      } catch (const detail::ExternalDeath& e) {
        const Ask& ask = asks_.at(e.id);
        throw RunnerKilled(ask.campaign, ask.index, e.what());
      }
    } else {
      a = std::move(done_.front());
      done_.pop_front();
    }
    Done d;
    d.recycled_growth = a.recycled_growth;
    d.ask = std::move(asks_.at(a.id));
    asks_.erase(a.id);
    if (a.crash) {
      d.record = crash_record(*a.crash, 0);
      d.crashed = true;
      if (campaigns_[d.ask.campaign].strategy == Strategy::Dfs) d.decisions = d.ask.prefix;
    } else {
      std::tie(d.record, d.decisions) = read_answer(a.bytes);
    }
    return d;
  }

 private:
  const std::vector<Campaign>& campaigns_;
  std::optional<detail::RunPool> pool_;
  std::deque<detail::RunPool::Answer> done_;
  std::map<std::uint64_t, Ask> asks_;
  std::uint64_t next_id_ = 0;
};

// Run `seed` of `c` (its draw, if it has a search) replaying `decisions`,
// expecting `property`.
Scenario scenario_with(const Campaign& c, std::uint64_t seed, std::vector<std::uint32_t> decisions,
                       const std::string& property) {
  const DrawnRun setup = run_setup(c, seed);
  Scenario s;
  s.workload = setup.workload;
  s.config = setup.config;
  s.decisions = std::move(decisions);
  s.strategy = setup.strategy;
  s.expect_violation = property;
  return s;
}

// "seeded exploration (faults: pause) with seed 7", for a scenario's comment.
std::string how_found(const Campaign& c, const Finding& f) {
  if (c.search) return fmt::format("the search with seed {}, which drew: {}", f.seed, f.drawn);
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

DrawnRun run_setup(const Campaign& c, std::uint64_t seed) {
  if (!c.search) return DrawnRun{c.workload, c.config, c.strategy, c.depth, {}};
  DrawnRun d = draw_run(c.workload, c.config, *c.search, seed);
  if (d.strategy == Strategy::Pct && c.strategy == Strategy::Pct && c.depth) d.depth = c.depth;
  d.config = strategy_config(d.strategy, d.config);
  return d;
}

RunnerKilled::RunnerKilled(std::size_t campaign_index, std::int64_t run_index, std::string how)
    : std::runtime_error(fmt::format("a child process making runs was killed ({}) in run {}, which does not kill "
                                     "one that makes it again: something outside killed it",
                                     how, run_index)),
      campaign(campaign_index),
      run(run_index),
      death(std::move(how)) {}

std::vector<CampaignResult> explore(const std::vector<Campaign>& campaigns, const ExploreOptions& o) {
  std::vector<CampaignResult> out(campaigns.size());
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  const auto budget = std::chrono::duration<double>(o.seconds.value_or(0));
  auto out_of_time = [&] { return o.seconds && Clock::now() - start >= budget; };
  constexpr int kWindow = 16;
  Runs runs(campaigns, o.jobs, kWindow);
  // Folds the next answer in; returns what a dfs search needs of it.
  auto take = [&](std::size_t current) {
    Runs::Done d = runs.next();
    const Campaign& c = campaigns[d.ask.campaign];
    CampaignResult& result = out[d.ask.campaign];
    fold(c, d.ask.index, d.record, std::move(d.decisions), result);
    if (d.recycled_growth) {
      ++result.recycled;
      result.largest_growth = std::max(result.largest_growth, d.recycled_growth);
    }
    if (o.progress && Clock::now() - last_report >= std::chrono::milliseconds(200)) {
      last_report = Clock::now();
      o.progress(current, out);
    }
    return d;
  };
  const std::size_t in_flight = static_cast<std::size_t>(std::max(o.jobs, 1) * kWindow);
  for (std::size_t k = 0; k < campaigns.size(); ++k) {
    const Campaign& c = campaigns[k];
    if (c.strategy == Strategy::Dfs) {
      while (runs.pending() > 0) take(k);
      // One schedule at a time: the next follows from the trail of the last.
      DfsDecisions search(c.depth);
      out[k].exhausted = false;
      for (std::int64_t i = 0; (c.runs == 0 || i < c.runs) && !out_of_time(); ++i) {
        runs.submit(Ask{static_cast<std::uint32_t>(k), i, search.current()});
        const Runs::Done d = take(k);
        if (d.crashed) break;
        std::vector<DfsDecisions::Step> trail;
        for (const auto& [choice, n] : d.record.trail) trail.push_back(DfsDecisions::Step{choice, n});
        search.took(std::move(trail));
        if (!search.advance()) {
          out[k].exhausted = true;
          break;
        }
      }
      continue;
    }
    for (std::int64_t i = o.shard.index; c.runs == 0 || i < c.runs; i += o.shard.count) {
      if (out_of_time()) break;
      runs.submit(Ask{static_cast<std::uint32_t>(k), i, {}});
      while (runs.pending() >= in_flight) take(k);
    }
  }
  while (runs.pending() > 0) take(campaigns.size() - 1);
  if (o.progress && !campaigns.empty()) o.progress(campaigns.size() - 1, out);
  return out;
}

CampaignResult explore(const Campaign& c, const Shard& shard, std::optional<double> seconds,
                       const Progress& progress, int jobs) {
  ExploreOptions o{.shard = shard, .seconds = seconds, .jobs = jobs};
  if (progress) o.progress = [&](std::size_t, const std::vector<CampaignResult>& now) { progress(now[0]); };
  return std::move(explore(std::vector<Campaign>{c}, o)[0]);
}

void merge_into(CampaignResult& a, const CampaignResult& b) {
  a.runs += b.runs;
  a.violating_runs += b.violating_runs;
  if (b.exhausted) a.exhausted = a.exhausted.value_or(true) && *b.exhausted;
  for (const auto& [name, count] : b.probes) a.probes[name] += count;
  a.wakeups += b.wakeups;
  a.wakeups_without_progress += b.wakeups_without_progress;
  a.granted_while_suspended += b.granted_while_suspended;
  a.runs_granted_while_suspended += b.runs_granted_while_suspended;
  a.lost_in_transit += b.lost_in_transit;
  a.runs_lost_in_transit += b.runs_lost_in_transit;
  a.recycled += b.recycled;
  a.completed_ops += b.completed_ops;
  for (int k = 0; k < kFaultClasses; ++k) {
    a.struck[static_cast<std::size_t>(k)] += b.struck[static_cast<std::size_t>(k)];
    a.armed[static_cast<std::size_t>(k)] += b.armed[static_cast<std::size_t>(k)];
  }
  a.largest_growth = std::max(a.largest_growth, b.largest_growth);
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
  // Recorded in a child, onto a tape the parent keeps: a run that crashes
  // leaves the decisions that lead to the crash.
  detail::DecisionTape tape;
  const DrawnRun setup = run_setup(c, seed);
  detail::run_isolated(
      [&](std::string_view) {
        const auto seeded = seeded_decisions(setup.strategy, seed, static_cast<int>(setup.depth));
        detail::DecisionTape::Recorder recorder(*seeded, tape);
        run(setup.workload, recorder, {}, setup.config, KeepTrace::No);
        return std::string();
      },
      {});
  return scenario_with(c, seed, tape.recorded(), property);
}

std::optional<Scenario> shrink(const Campaign& c, Finding& f, int max_runs, std::string* why) {
  Scenario found = f.schedule ? scenario_with(c, f.seed, *f.schedule, f.property) : scenario_of(c, f.seed, f.property);
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
  if (c.search) return fmt::format("seed{}", f.seed);  // what it drew is in the file
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
