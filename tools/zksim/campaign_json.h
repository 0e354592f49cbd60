// Campaigns and their results as JSON: the --json output of explore and
// matrix, and what `zksim merge` reads back. Reading checks every field and
// throws UsageError.
#pragma once

#include "campaign.h"

#include <nlohmann/json.hpp>

namespace zksim::cli {

// What defines a campaign (two results merge only if these are equal).
nlohmann::json campaign_json(const Campaign& c);

nlohmann::json result_json(const CampaignResult& r);
// `where` names the input in errors. 'exhausted' (dfs), 'memory',
// 'completed_operations' and 'struck' are optional. Every number is checked: counts are
// whole and not negative, violating runs at most the runs, a finding's runs
// from 1 to the violating runs, shrunk decisions at most the decisions.
CampaignResult result_from_json(const nlohmann::json& j, const std::string& where);

// Throws UsageError unless `c` is a campaign as campaign_json writes it: a
// known recipe and strategy, every number whole and within the scenario
// file's bounds (a dfs campaign: its depth within kMaxDfsDepth, seed 0).
void check_campaign_json(const nlohmann::json& c, const std::string& where);

// The fault classes a campaign (as campaign_json writes it) strikes with:
// its nemesis's, or those its runs draw from.
std::vector<std::string> campaign_classes(const nlohmann::json& campaign);

// What a campaign tested less than it says, one line each: no call
// completed, or a fault class of its nemesis never struck.
std::vector<std::string> campaign_warnings(const nlohmann::json& campaign, const CampaignResult& r);

}  // namespace zksim::cli
