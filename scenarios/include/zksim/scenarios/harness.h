// The harness in one call: a recipe (yours, registered with recipe.h, or
// zksim's own) explored as the verdict matrix explores it, under no faults
// and under each fault class, every run checked, the first violation of
// each property shrunk and written as a scenario file that replays it.
//
//   zksim::scenarios::CheckOptions o;
//   o.out_dir = "failures";
//   zksim::scenarios::Report r = zksim::scenarios::check("my/lock", o);
//   if (!r.holds("mutual-exclusion")) std::puts(r.text().c_str());  // with `zksim replay FILE`
//
// With googletest, gtest.h reads as one line per property:
//   EXPECT_THAT(report, zksim::scenarios::Holds("mutual-exclusion"));
#pragma once

#include "zksim/scenarios/campaign.h"

#include <string>
#include <string_view>
#include <vector>

namespace zksim::scenarios {

struct CheckOptions {
  // "none" and fault class names (fault_class_name); empty: "none" and
  // every class, as the matrix.
  std::vector<std::string> faults;
  std::int64_t runs = 300;  // per fault configuration
  std::uint64_t seed = 1;
  int clients = 4, rounds = 4;
  int leases = 2;  // semaphores
  // What each run draws (search.h), the rest fixed: each campaign strikes
  // with its own fault configuration in every run (the space's `faults` are
  // not used), and draws the client libraries, servers, hold, workload and
  // strategy as the space leaves them. nullopt: nothing drawn: C clients,
  // one server (three for a class of the ensemble), 5 ms holds (600 under
  // pauses, so that a pause finds a holder), plain workloads, random.
  std::optional<SearchSpace> search = default_search();
  // Where the scenario files of violations go ("" writes none: the report
  // still holds each one's text), and how many runs shrinking may spend.
  std::string out_dir;
  int shrink_runs = 500;
};

// One fault configuration's share of a check, as the matrix runs it.
struct RecipeCampaign {
  std::string recipe;
  std::string fault;  // "none" or a fault class name
  Campaign campaign;
};

// The campaigns check() and `zksim matrix` run for `recipe`: one per fault
// configuration, its class striking in every run at the rate the search
// draws or fixes (without a search, 30 times in 1000: requests, or windows
// for the time-triggered classes).
// Empty when the recipe or a fault configuration is unknown (problem()
// says which).
std::vector<RecipeCampaign> campaigns_for(const std::string& recipe, const CheckOptions& o);
// Why check() cannot run with these options ("" if it can).
std::string problem(const std::string& recipe, const CheckOptions& o);

struct PropertyVerdict {
  std::string property;
  bool holds = true;
  // When violated: where it was first found (its campaign's fault
  // configuration), the finding shrunk, the scenario that replays it, and
  // the command that replays the file.
  std::string fault;
  Finding finding;
  std::string scenario;       // the scenario file's text
  std::string scenario_file;  // "" when out_dir was ""
  std::string replay;         // "zksim replay FILE"
};

struct Report {
  std::string recipe;
  std::string error;  // "": it ran; else why not (nothing ran)
  std::int64_t runs = 0;
  std::vector<PropertyVerdict> properties;  // properties_of(recipe), in that order
  // nullptr when the recipe's runs do not check `property`.
  const PropertyVerdict* find(std::string_view property) const;
  // Checked and never violated.
  bool holds(std::string_view property) const;
  bool all_hold() const;
  // A line per property; under a violation its message, scenario file and
  // replay command.
  std::string text() const;
};

// The one assembly of verdicts, for check() and `zksim matrix` alike:
// `recipe`'s properties judged from its campaigns (campaigns_for's, in that
// order) and their results (`results[i]` of `campaigns[i]`). A property
// is violated by the first campaign that found it; that finding is shrunk
// (at most `shrink_runs` runs) and, unless `out_dir` is "", written there.
// Report::error says why a finding could not be shrunk or written.
Report verdicts(const std::string& recipe, const std::vector<RecipeCampaign>& campaigns,
                const std::vector<CampaignResult>& results, const std::string& out_dir, int shrink_runs);

// Runs every campaign of campaigns_for(recipe, o) and returns their
// verdicts. Wall-clock time is spent, never read by a run: the same
// options give the same report.
Report check(const std::string& recipe, const CheckOptions& o = {});

}  // namespace zksim::scenarios
