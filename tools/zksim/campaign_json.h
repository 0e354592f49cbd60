// Campaigns and their results as JSON: the --json output of explore and
// matrix, what worker processes send their parent, and what `zksim merge`
// reads back. Reading checks every field and throws UsageError.
#pragma once

#include "campaign.h"

#include <nlohmann/json.hpp>

namespace zksim::cli {

// What defines a campaign (two results merge only if these are equal).
nlohmann::json campaign_json(const Campaign& c);

nlohmann::json result_json(const CampaignResult& r);
// `where` names the input in errors.
CampaignResult result_from_json(const nlohmann::json& j, const std::string& where);

// Progress as workers report it: runs, violating runs, probe names reached.
nlohmann::json progress_json(const CampaignResult& r);

}  // namespace zksim::cli
