#include "campaign.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

std::vector<CampaignResult> explore_or_stop(const std::string& command, const std::vector<Campaign>& campaigns,
                                            const scenarios::ExploreOptions& o) {
  try {
    return explore(campaigns, o);
  } catch (const scenarios::RunnerKilled& e) {
    const Campaign& c = campaigns[e.campaign];
    const std::string run = c.strategy == scenarios::Strategy::Dfs
                                ? fmt::format("schedule {}", e.run)
                                : fmt::format("run {} (seed {})", e.run, c.seed + static_cast<std::uint64_t>(e.run));
    throw KilledError(fmt::format("{}: a child process making runs was killed ({}) in {} of {} (shard {}); the run "
                                  "does not kill a new one, so something outside killed it: stopped",
                                  command, e.death, run, c.workload.recipe, o.shard.text()));
  }
}

void shrink_and_write(const Campaign& c, Finding& f, const std::string& path, int max_runs) {
  if (std::string why = scenarios::shrink_finding(c, f, path, max_runs); !why.empty()) {
    throw UsageError("zksim: " + why);
  }
}

const scenarios::FlawedRecipe* flaw_of(const std::string& recipe) {
  const auto& all = scenarios::flawed_recipes();
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& f) { return f.recipe == recipe; });
  return it == all.end() ? nullptr : &*it;
}

std::string client_names(const std::vector<int>& clients) {
  std::string out;
  for (int c : clients) out += fmt::format("{}c{}", out.empty() ? "" : ", ", c);
  return out.empty() ? "-" : out;
}

}  // namespace zksim::cli
