// A campaign: many seeded runs of one workload under one world config, the
// first run that violated each property, and shrinking those runs into
// scenario files. `zksim explore` runs one campaign, `zksim matrix` one per
// recipe and fault class.
//
// Run i of a campaign is seeded with seed + i, so a campaign split into
// shards (run i belongs to shard i mod N) or spread over processes runs
// the same runs, and results merge by addition and by the lowest run index.
// Wall-clock time enters only as a budget (stop after so many seconds) and
// in progress reports, never into a run.
#pragma once

#include "args.h"
#include "zksim/scenarios/scenario.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zksim::cli {

struct Campaign {
  scenarios::Workload workload;
  WorldConfig config;
  std::string faults = "none";  // the fault classes of the nemesis, for people: "pause,crash"
  std::uint64_t seed = 1;       // run i uses seed + i
  std::int64_t runs = 100;      // run indices [0, runs); 0: no limit (a time budget ends it)
};

// The first run (lowest index) that violated a property, and how often.
struct Finding {
  std::string property;
  std::int64_t run = -1;
  std::uint64_t seed = 0;
  std::int64_t runs = 0;            // runs that violated the property
  scenarios::Violation violation;   // its first violation in that run (after shrinking: in the shrunk run)
  std::int64_t decisions = 0;       // decisions that run made
  std::string scenario_file;        // set by shrink_findings
  std::int64_t shrunk_decisions = -1;
  int shrink_runs = 0;
};

struct CampaignResult {
  std::int64_t runs = 0;
  std::int64_t violating_runs = 0;
  std::map<std::string, std::int64_t> probes;   // summed over runs
  std::map<std::string, Finding> findings;      // by property
  // Probe names reached (a nonzero count).
  std::size_t probes_reached() const;
};

// Called about every 200 ms of wall time while running, and once at the end.
using Progress = std::function<void(const CampaignResult&)>;

// Runs the campaign's runs that belong to `shard`, in index order, until its
// run limit or `seconds` of wall time (if given).
CampaignResult explore(const Campaign& c, const Shard& shard, std::optional<double> seconds,
                       const Progress& progress);

// Adds `b` (other runs of the same campaign) into `a`.
void merge_into(CampaignResult& a, const CampaignResult& b);

// The scenario that replays run `seed` of `c` from a recorded decision list.
scenarios::Scenario scenario_of(const Campaign& c, std::uint64_t seed, const std::string& property);

// Shrinks one finding: replays its seed recording the decisions, shrinks
// the list keeping the property (at most `max_runs` runs; with 0 the
// recorded list is written as it is), and writes the scenario to `path`.
// Throws UsageError if the file cannot be written.
void shrink_finding(const Campaign& c, Finding& f, const std::string& path, int max_runs);

// The flawed_recipes() entry of `recipe`, or nullptr.
const scenarios::FlawedRecipe* flaw_of(const std::string& recipe);

// "flawed/herd-lock" -> "flawed-herd-lock", for file names.
std::string file_stem(const std::string& recipe);

// "c1, c3" for clients 1 and 3.
std::string client_names(const std::vector<int>& clients);

}  // namespace zksim::cli
