// A campaign: many runs of one workload under one world config, the first
// run that violated each property, and shrinking those runs into scenario
// files. `zksim explore` runs one campaign, `zksim matrix` and the harness
// API (harness.h) one per fault configuration.
//
// Its strategy (strategy.h) says how runs choose their decisions.
// Random and fixed-latency: run i is seeded with seed + i, so a campaign
// split into shards (run i belongs to shard i mod N) or spread over
// processes runs the same runs, and results merge by addition and by the
// lowest run index. Dfs: run i is schedule i of one depth-first search,
// which follows from the run before it, so it is never split; the campaign's
// seed is 0 and a run's "seed" is its schedule number.
// Wall-clock time enters only as a budget (stop after so many seconds) and
// in progress reports, never into a run.
#pragma once

#include "zksim/scenarios/scenario.h"
#include "zksim/scenarios/search.h"
#include "zksim/scenarios/strategy.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace zksim::scenarios {

// The runs a process makes of a campaign: those i with i mod count == index.
struct Shard {
  std::int64_t index = 0, count = 1;
  bool owns(std::int64_t run) const { return run % count == index; }
  std::string text() const;  // "0/4"
  bool operator==(const Shard&) const = default;
};

struct Campaign {
  Workload workload;
  WorldConfig config;           // as strategy_config gives it for the strategy
  std::string faults = "none";  // the fault classes of the nemesis, for people: "pause,crash"
  Strategy strategy = Strategy::Random;
  std::size_t depth = 0;        // dfs: decisions explored per run; pct: d
  std::uint64_t seed = 1;       // run i uses seed + i; dfs: 0
  std::int64_t runs = 100;      // run indices [0, runs); 0: no limit (a time budget, or dfs exhausted, ends it)
  // Set: each run draws from it what it leaves open (search.h), on top of
  // `workload` and `config`; `strategy` and `depth` then only say what pct
  // depth a drawn pct run takes. Not with dfs, whose runs are not seeded.
  std::optional<SearchSpace> search;
};

// What run `seed` of `c` runs: with a search, what it draws; otherwise the
// campaign's own workload, world and strategy (and no summary).
DrawnRun run_setup(const Campaign& c, std::uint64_t seed);

// The first run (lowest index) that violated a property, and how often.
struct Finding {
  std::string property;
  std::int64_t run = -1;
  std::uint64_t seed = 0;           // dfs: the schedule number, as run
  // Dfs: the decisions of that run, to write it (seeded runs are run again
  // from their seed instead). Not in the JSON form: a search has no workers.
  std::optional<std::vector<std::uint32_t>> schedule;
  std::int64_t runs = 0;            // runs that violated the property
  Violation violation;              // its first violation in that run (after shrinking: in the shrunk run)
  std::int64_t decisions = 0;       // decisions that run made
  std::string scenario_file;        // set by shrink_finding
  std::int64_t shrunk_decisions = -1;
  int shrink_runs = 0;
  std::string drawn;                // a search's draw for that run (DrawnRun::summary); "" without one
};

struct CampaignResult {
  std::int64_t runs = 0;
  std::int64_t violating_runs = 0;
  std::optional<bool> exhausted;                // dfs: whether every schedule within the depth was run
  std::map<std::string, std::int64_t> probes;   // summed over runs
  // Watch events that woke a call, and those after which it made no
  // progress (RunResult's), summed over runs: a metric, not a property.
  std::int64_t wakeups = 0;
  std::int64_t wakeups_without_progress = 0;
  // Contract::Listener: grants returned while suspended (RunResult's), and
  // the runs that had one; reported, not judged.
  std::int64_t granted_while_suspended = 0;
  std::int64_t runs_granted_while_suspended = 0;
  // RecipeTraits::at_most_once: items lost in transit (RunResult's), and
  // the runs that lost one; reported, not judged.
  std::int64_t lost_in_transit = 0;
  std::int64_t runs_lost_in_transit = 0;
  // Calls that ended ok, and how often the nemesis struck with each fault
  // class (fault.h), summed over runs: a campaign in which nothing
  // completes, or a class it runs never strikes, tested less than it says.
  std::int64_t completed_ops = 0;
  std::array<std::int64_t, kFaultClasses> struck{};
  std::array<std::int64_t, kFaultClasses> armed{};  // runs whose nemesis had the class (drawn or fixed)
  std::map<std::string, Finding> findings;      // by property
  // Child processes replaced because their memory grew (a leak in the
  // recipe, most likely), and the most one grew, in bytes.
  int recycled = 0;
  std::uint64_t largest_growth = 0;
  // Probe names reached (a nonzero count).
  std::size_t probes_reached() const;
};

// Called about every 200 ms of wall time while running, and once at the end.
using Progress = std::function<void(const CampaignResult&)>;

// How a campaign's runs are made.
struct ExploreOptions {
  Shard shard;                     // only the runs of this shard
  std::optional<double> seconds;   // and no more than this much wall time
  // Child processes making the runs, each a fork of this one: a recipe that
  // crashes (a signal, an abort, an exception it lets escape) ends its run
  // with a "crashed" violation, and one that leaks is given a fresh child,
  // while the campaign goes on. 0: runs in this process, where a crash ends
  // the process (for a debugger). Results are the same for any number.
  int jobs = 1;
  // Called with the campaign being run and every result so far.
  std::function<void(std::size_t campaign, const std::vector<CampaignResult>&)> progress;
};

// A child making runs died in one, and the same run made again in a new
// child did not kill it: something outside killed it (a person, the kernel
// running out of memory). The campaigns stop there.
struct RunnerKilled : std::runtime_error {
  RunnerKilled(std::size_t campaign, std::int64_t run, std::string death);
  std::size_t campaign;
  std::int64_t run;
  std::string death;  // "SIGKILL"
};

// Runs the runs of every campaign that belong to the shard, campaign after
// campaign, each in index order, until its run limit, the time budget, or
// for dfs the last schedule (or the first that crashed: the search cannot
// go on past a run it cannot see the end of). Throws RunnerKilled.
// REQUIRES: for dfs, the whole campaign (Shard{}).
std::vector<CampaignResult> explore(const std::vector<Campaign>& campaigns, const ExploreOptions& o);
// One campaign, as above.
CampaignResult explore(const Campaign& c, const Shard& shard, std::optional<double> seconds,
                       const Progress& progress, int jobs = 1);

// Adds `b` (other runs of the same campaign) into `a`.
void merge_into(CampaignResult& a, const CampaignResult& b);

// The scenario that replays run `seed` of `c` from a recorded decision list.
// REQUIRES: a seeded strategy.
Scenario scenario_of(const Campaign& c, std::uint64_t seed, const std::string& property);

// Shrinks one finding into the scenario that replays it: replays its seed
// recording the decisions (dfs: takes its schedule) and shrinks the list
// keeping the property (at most `max_runs` runs; with 0 the recorded list
// stays as it is); sets the finding's violation and sizes. nullopt, with
// `why`, when the run did not replay from its recorded decisions (a
// determinism bug).
std::optional<Scenario> shrink(const Campaign& c, Finding& f, int max_runs, std::string* why);
// Writes `s` to `path`, its directories made as needed: "" or why not.
std::string write_scenario_file(const Scenario& s, const std::string& path);
// shrink, then write_scenario_file, setting the finding's file: "" or why not.
std::string shrink_finding(const Campaign& c, Finding& f, const std::string& path, int max_runs);

// What tells a finding's file from others of the same recipe and property:
// "seed7" (random), "fixed-latency-seed7", "dfs-schedule7", "pct-seed7"; with
// varied workloads "varied-seed7" and so on.
std::string finding_label(const Campaign& c, const Finding& f);

// "flawed/herd-lock" -> "flawed-herd-lock", for file names.
std::string file_stem(const std::string& recipe);

// A world whose nemesis strikes with each of `kinds` (fault classes) at
// `per_mille` (random pauses of 3 s, longer than the workloads' 2 s
// sessions; delays of 50 ms), on kEnsembleFaultServers servers if one of
// them is a fault of the ensemble (is_ensemble_class), else on one.
WorldConfig nemesis_config(const std::vector<int>& kinds, std::uint32_t per_mille);
inline constexpr int kEnsembleFaultServers = 3;
// "pause,crash", or "none".
std::string fault_label(const WorldConfig& config);

}  // namespace zksim::scenarios
