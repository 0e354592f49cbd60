// The command line's side of campaigns (the harness's campaign.h): the
// bounds its options take, and what its reports and files are named by.
#pragma once

#include "args.h"
#include "zksim/scenarios/campaign.h"

#include <string>
#include <vector>

namespace zksim::cli {

using scenarios::Campaign;
using scenarios::CampaignResult;
using scenarios::explore;
using scenarios::ExploreOptions;
using scenarios::fault_label;
using scenarios::file_stem;
using scenarios::Finding;
using scenarios::finding_label;
using scenarios::merge_into;
using scenarios::nemesis_config;
using scenarios::Progress;
using scenarios::scenario_of;

// The bounds of a depth-first search: decisions explored per run, and
// clients (beyond 3 the schedules of a few decisions say little).
inline constexpr std::int64_t kMaxDfsDepth = 64;
inline constexpr int kMaxDfsClients = 3;
// pct's bug depth d: d - 1 priority changes within a run's first choices.
inline constexpr std::int64_t kMaxPctDepth = 64;

// A child process making runs was killed from outside (RunnerKilled): the
// command stops at once, with exit status kKilledStatus.
class KilledError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
inline constexpr int kKilledStatus = 3;

// scenarios::explore, a RunnerKilled thrown as a KilledError naming
// `command`, the campaign, the run and `shard`.
std::vector<CampaignResult> explore_or_stop(const std::string& command, const std::vector<Campaign>& campaigns,
                                            const scenarios::ExploreOptions& o);

// scenarios::shrink_finding, its failure thrown as a UsageError.
void shrink_and_write(const Campaign& c, Finding& f, const std::string& path, int max_runs);

// The flawed_recipes() entry of `recipe`, or nullptr.
const scenarios::FlawedRecipe* flaw_of(const std::string& recipe);

// "c1, c3" for clients 1 and 3.
std::string client_names(const std::vector<int>& clients);

}  // namespace zksim::cli
