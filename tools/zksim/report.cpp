#include "report.h"

#include "campaign_json.h"
#include "common.h"
#include "zksim/scenarios/property.h"

#include <fmt/format.h>

#include <numeric>

namespace zksim::cli {

Coverage coverage(const std::vector<Shard>& shards) {
  std::int64_t period = 1;
  for (const Shard& s : shards) {
    period = std::lcm(period, s.count);
    if (period > 1'000'000) throw UsageError("too many different shard counts to check their coverage");
  }
  std::vector<int> hits(static_cast<std::size_t>(period), 0);
  for (const Shard& s : shards) {
    for (std::int64_t r = s.index; r < period; r += s.count) ++hits[static_cast<std::size_t>(r)];
  }
  Coverage c;
  c.complete = true;
  for (int h : hits) {
    if (h > 1) c.overlap = true;
    if (h == 0) c.complete = false;
  }
  return c;
}

nlohmann::json explore_document(const nlohmann::json& campaign, const std::vector<Shard>& shards,
                                 const CampaignResult& r) {
  nlohmann::json doc = result_json(r);
  for (nlohmann::json& v : doc["violations"]) {
    if (v.contains("scenario")) v["replay"] = replay_command(v["scenario"].get<std::string>());
  }
  nlohmann::json names = nlohmann::json::array();
  for (const Shard& s : shards) names.push_back(s.text());
  doc["campaign"] = campaign;
  doc["warnings"] = campaign_warnings(campaign, r);
  doc["shards"] = names;
  doc["complete"] = coverage(shards).complete;
  return doc;
}

std::string explore_text(const nlohmann::json& campaign, const std::vector<Shard>& shards,
                         const CampaignResult& r) {
  std::string shard_text;
  for (const Shard& s : shards) shard_text += fmt::format("{}{}", shard_text.empty() ? "" : ",", s.text());
  std::string shard_note;
  if (shards.size() != 1 || !(shards[0] == Shard{})) {
    shard_note = fmt::format(" (shards {}{})", shard_text, coverage(shards).complete ? "" : "; not the whole campaign");
  }
  const std::string strategy = campaign.value("strategy", "random");
  const bool dfs = strategy == "dfs";
  std::string how;
  if (campaign.contains("search")) {
    how = campaign["search"].value("says", "");
  } else {
    // Fixed: every run as the options say.
    const nlohmann::json nemesis = campaign.value("nemesis_per_mille", nlohmann::json::object());
    std::string faults;
    for (const auto& [name, rate] : nemesis.items()) faults += fmt::format("{}{} {}\u2030", faults.empty() ? "" : ", ", name, rate.get<int>());
    const int servers = campaign.value("servers", 1);
    how = fmt::format("every run: faults {}; {} server{}; clients {}; hold {} ms; {}; strategy {}", faults.empty() ? "none" : faults,
                      servers, servers == 1 ? "" : "s", campaign.value("client", "c"), campaign.value("hold_ms", 0),
                      campaign.value("varied", false) ? "varied" : "plain", strategy);
    if (dfs) {
      how += fmt::format(", depth {}{}", campaign.value("depth", 0), campaign.value("delay_choices", 0) == 1 ? ", latency fixed" : "");
    } else if (strategy == "pct") {
      how += fmt::format(", depth {}", campaign.value("depth", 0));
    }
  }
  std::string out = fmt::format("explore {} ({}; {} clients x {} rounds): {} runs{}{}\n", campaign.value("recipe", "?"), how,
                                campaign.value("clients", 0), campaign.value("rounds", 0), r.runs,
                                dfs ? "" : fmt::format(" from seed {}", campaign.value("seed", 0ULL)), shard_note);
  if (r.exhausted) {
    out += *r.exhausted ? fmt::format("exhausted: all {} schedules within depth {} explored\n", r.runs, campaign.value("depth", 0))
                        : fmt::format("not exhausted after {} runs\n", r.runs);
  }
  std::string struck;
  for (const std::string& name : campaign_classes(campaign)) {
    for (int k = 0; k < kFaultClasses; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (fault_class_name(k) != name || (r.armed[i] == 0 && r.struck[i] == 0)) continue;
      // A class drawn per run says in how many runs it was on.
      struck += fmt::format("{}{} {}{}", struck.empty() ? "" : ", ", name, r.struck[i],
                            r.armed[i] == r.runs ? "" : fmt::format(" in {} run{}", r.armed[i], r.armed[i] == 1 ? "" : "s"));
    }
  }
  if (!struck.empty()) out += fmt::format("faults struck: {}\n", struck);
  out += fmt::format("calls completed: {}\n", r.completed_ops);
  for (const std::string& w : campaign_warnings(campaign, r)) out += fmt::format("warning: {}\n", w);
  out += fmt::format("probes reached: {}\n", r.probes_reached());
  out += fmt::format("wake-ups without progress: {} of {} (measured, not judged)\n", r.wakeups_without_progress,
                     r.wakeups);
  if (r.granted_while_suspended) {
    out += fmt::format("granted while suspended: {} in {} run{} (the library's contract: held from RECONNECTED; "
                       "not judged)\n",
                       r.granted_while_suspended, r.runs_granted_while_suspended,
                       r.runs_granted_while_suspended == 1 ? "" : "s");
  }
  if (r.lost_in_transit) {
    out += fmt::format("lost in transit: {} item{} in {} run{} (the recipe states at-most-once delivery: a take "
                       "without an answer may remove an item for good; not judged)\n",
                       r.lost_in_transit, r.lost_in_transit == 1 ? "" : "s", r.runs_lost_in_transit,
                       r.runs_lost_in_transit == 1 ? "" : "s");
  }
  if (r.recycled) {
    out += fmt::format("memory: the recipe's runs grew a child process by {} MB, which was replaced {} time{} "
                       "(a leak in the recipe, most likely)\n",
                       r.largest_growth >> 20, r.recycled, r.recycled == 1 ? "" : "s");
  }
  if (r.findings.empty()) {
    out += fmt::format("no violation in {} runs\n", r.runs);
    return out;
  }
  for (const auto& [property, f] : r.findings) {
    out += fmt::format("VIOLATION {} ({}): in {} of {} runs, first in {}\n", property,
                       scenarios::severity_name(scenarios::severity_of(property)), f.runs, r.runs,
                       dfs ? fmt::format("schedule {}", f.run) : fmt::format("run {} (seed {})", f.run, f.seed));
    if (!f.drawn.empty()) out += fmt::format("  drew:     {}\n", f.drawn);
    out += fmt::format("  clients:  {}\n", client_names(f.violation.clients));
    out += fmt::format("  what:     {}\n", f.violation.message);
    if (f.scenario_file.empty()) continue;
    out += fmt::format("  shrunk:   {} decisions to {} ({} runs)\n", f.decisions, f.shrunk_decisions, f.shrink_runs);
    out += fmt::format("  scenario: {}\n", f.scenario_file);
    out += fmt::format("  replay:   {}\n", replay_command(f.scenario_file));
  }
  return out;
}

}  // namespace zksim::cli
