// The report of an exploration, shared by explore and merge: the JSON
// document (the campaign, the shards it covers, the result) and the text.
#pragma once

#include "args.h"
#include "campaign.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace zksim::cli {

// Whether `shards` overlap (a run index in two of them), and whether
// together they cover every run index. Throws UsageError when the counts
// are too many to check (their least common multiple past a million).
struct Coverage {
  bool overlap = false;
  bool complete = false;
};
Coverage coverage(const std::vector<Shard>& shards);

// {campaign, shards, complete, runs, violating_runs, exhausted (dfs only),
//  probes, probes_reached, violations: [{property, first_run, seed, runs,
//  message, clients, time_ms, decisions, scenario, shrunk_decisions,
//  shrink_runs, replay}]}
nlohmann::json explore_document(const nlohmann::json& campaign, const std::vector<Shard>& shards,
                                 const CampaignResult& r);

// The same for people.
std::string explore_text(const nlohmann::json& campaign, const std::vector<Shard>& shards,
                         const CampaignResult& r);

}  // namespace zksim::cli
