// zksim merge: joins the --json reports of shards of one explore campaign
// (e.g. from a CI matrix, one machine per shard) into the report of the
// whole, as one run would have printed it.
#include "campaign_json.h"
#include "commands.h"
#include "common.h"
#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace zksim::cli {

CommandSpec merge_spec() {
  return CommandSpec{
      .name = "merge",
      .summary = "merge the --json reports of explore shards into one report",
      .positional = "REPORT.json...",
      .min_positional = 1,
      .max_positional = -1,
      .options = {{"--json", "", "print the merged report as JSON (the same form as explore --json)"}},
      .details =
          "  zksim explore --recipe lock --runs 3000 --shard 0/3 --json > s0.json   (and 1/3, 2/3)\n"
          "  zksim merge s0.json s1.json s2.json\n"
          "Every report must come from the same campaign (recipe, workload, faults, seed, runs);\n"
          "shards must not overlap. Run counts add up; for each property the lowest run index\n"
          "wins, with the scenario file its shard wrote. Missing shards give a note on stderr.\n"
          "Exit status: 0 no violation, 1 a violation, 2 bad input."};
}

int merge_main(const Args& args) {
  nlohmann::json campaign;
  std::vector<Shard> shards;
  CampaignResult merged;
  for (const std::string& path : args.positional) {
    const std::string where = fmt::format("zksim merge: {}", path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError(fmt::format("{}: cannot read the file", where));
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) throw UsageError(fmt::format("{}: not JSON", where));
    if (!doc.is_object() || !doc.contains("campaign") || !doc.contains("shards") || !doc["shards"].is_array()) {
      throw UsageError(fmt::format("{}: not an explore --json report", where));
    }
    check_campaign_json(doc["campaign"], where);
    if (campaign.is_null()) {
      campaign = doc["campaign"];
    } else if (doc["campaign"] != campaign) {
      throw UsageError(fmt::format("{}: a different campaign than {} (recipe, workload, faults, seed or runs differ)",
                                   where, args.positional[0]));
    }
    std::vector<Shard> own;
    for (const auto& s : doc["shards"]) {
      if (!s.is_string()) throw UsageError(fmt::format("{}: a shard is not a string", where));
      own.push_back(parse_shard(where, s.get<std::string>()));
    }
    const CampaignResult result = result_from_json(doc, where);
    // A finding's run is one of the report's own, seeded as the campaign seeds it.
    const std::int64_t limit = campaign["runs_limit"].get<std::int64_t>();
    for (const auto& [property, f] : result.findings) {
      const bool owned = std::any_of(own.begin(), own.end(), [&](const Shard& s) { return s.owns(f.run); });
      if (!owned || (limit > 0 && f.run >= limit)) {
        throw UsageError(fmt::format("{}: '{}' names run {}, not a run of this report", where, property, f.run));
      }
      if (f.seed != campaign["seed"].get<std::uint64_t>() + static_cast<std::uint64_t>(f.run)) {
        throw UsageError(fmt::format("{}: '{}' names seed {}, not the seed of run {}", where, property, f.seed, f.run));
      }
    }
    shards.insert(shards.end(), own.begin(), own.end());
    merge_into(merged, result);
  }
  const Coverage cover = coverage(shards);
  if (cover.overlap) throw UsageError("zksim merge: the reports' shards overlap (a run would count twice)");
  if (!cover.complete) std::fputs("zksim merge: note: the shards do not cover the whole campaign\n", stderr);
  if (args.flag("--json")) {
    print_json(explore_document(campaign, shards, merged));
  } else {
    std::fputs(explore_text(campaign, shards, merged).c_str(), stdout);
  }
  return merged.findings.empty() ? 0 : 1;
}

}  // namespace zksim::cli
