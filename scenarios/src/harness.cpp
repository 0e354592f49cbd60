#include "zksim/scenarios/harness.h"

#include "zksim/scenarios/recipe.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::scenarios {

namespace {

std::vector<std::string> faults_of(const CheckOptions& o) {
  if (!o.faults.empty()) return o.faults;
  std::vector<std::string> all{"none"};
  for (int k = 0; k < kFaultClasses; ++k) all.emplace_back(fault_class_name(k));
  return all;
}

// The fault class named `name`, kFaultClasses for "none", -1 if unknown.
int fault_class_of(const std::string& name) {
  if (name == "none") return kFaultClasses;
  for (int k = 0; k < kFaultClasses; ++k) {
    if (fault_class_name(k) == name) return k;
  }
  return -1;
}

}  // namespace

std::string problem(const std::string& recipe, const CheckOptions& o) {
  if (!find_recipe(recipe)) return fmt::format("unknown recipe '{}'", recipe);
  for (const std::string& f : faults_of(o)) {
    if (fault_class_of(f) < 0) return fmt::format("unknown fault configuration '{}'", f);
  }
  if (o.runs < 1) return fmt::format("{} runs per fault configuration: at least 1", o.runs);
  Workload w;
  w.recipe = recipe;
  w.clients = o.clients;
  w.rounds = o.rounds;
  if (o.search && o.search->flavours) w.flavours = *o.search->flavours;
  return workload_problem(w);
}

std::vector<RecipeCampaign> campaigns_for(const std::string& recipe, const CheckOptions& o) {
  std::vector<RecipeCampaign> out;
  if (!problem(recipe, o).empty()) return out;
  for (const std::string& fault : faults_of(o)) {
    RecipeCampaign m{recipe, fault, {}};
    Campaign& c = m.campaign;
    const int kind = fault_class_of(fault);
    const std::vector<int> classes = kind < kFaultClasses ? std::vector<int>{kind} : std::vector<int>{};
    c.workload.recipe = recipe;
    c.workload.clients = o.clients;
    c.workload.rounds = o.rounds;
    c.workload.leases = o.leases;
    c.faults = fault;
    c.seed = o.seed;
    c.runs = o.runs;
    if (o.search) {
      c.search = *o.search;
      c.search->faults = classes;
      c.search->draw_faults = false;
      // A class of the ensemble strikes three servers at least.
      if (kind < kFaultClasses && is_ensemble_class(kind)) {
        c.search->servers = std::max(c.search->servers.value_or(kEnsembleFaultServers), kEnsembleFaultServers);
      }
    } else {
      c.config = nemesis_config(classes, 30);
      c.workload.hold_ms = fault == "pause" ? 600 : 5;
    }
    out.push_back(std::move(m));
  }
  return out;
}

const PropertyVerdict* Report::find(std::string_view property) const {
  auto it = std::find_if(properties.begin(), properties.end(),
                         [&](const PropertyVerdict& v) { return v.property == property; });
  return it == properties.end() ? nullptr : &*it;
}

bool Report::holds(std::string_view property) const {
  const PropertyVerdict* v = find(property);
  return v && v->holds;
}

bool Report::all_hold() const {
  return error.empty() && std::all_of(properties.begin(), properties.end(), [](const PropertyVerdict& v) { return v.holds; });
}

std::string Report::text() const {
  if (!error.empty()) return fmt::format("{}: {}\n", recipe, error);
  std::string out = fmt::format("{}: {} runs\n", recipe, runs);
  for (const PropertyVerdict& v : properties) {
    if (v.holds) {
      out += fmt::format("  {}: holds\n", v.property);
      continue;
    }
    out += fmt::format("  {}: VIOLATED under {} ({} of the runs): {}\n", v.property, v.fault, v.finding.runs,
                       v.finding.violation.message);
    if (!v.scenario_file.empty()) out += fmt::format("    scenario: {}\n    replay:   {}\n", v.scenario_file, v.replay);
  }
  return out;
}

Report verdicts(const std::string& recipe, const std::vector<RecipeCampaign>& campaigns,
                const std::vector<CampaignResult>& results, const std::string& out_dir, int shrink_runs) {
  Report report;
  report.recipe = recipe;
  for (const CampaignResult& r : results) report.runs += r.runs;
  for (const std::string& property : properties_of(recipe)) {
    PropertyVerdict v;
    v.property = property;
    for (std::size_t i = 0; i < campaigns.size() && v.holds; ++i) {
      auto found = results[i].findings.find(property);
      if (found == results[i].findings.end()) continue;
      v.holds = false;
      v.fault = campaigns[i].fault;
      v.finding = found->second;
      std::string why;
      std::optional<Scenario> s = shrink(campaigns[i].campaign, v.finding, shrink_runs, &why);
      if (!s) {
        report.error = why;
        return report;
      }
      v.scenario = write_scenario(*s);
      if (out_dir.empty()) continue;
      const std::string path = fmt::format("{}/{}.{}.{}.{}.scn", out_dir, file_stem(recipe), property, v.fault,
                                           finding_label(campaigns[i].campaign, v.finding));
      if (std::string failed = write_scenario_file(*s, path); !failed.empty()) {
        report.error = failed;
        return report;
      }
      v.scenario_file = v.finding.scenario_file = path;
      v.replay = fmt::format("zksim replay {}", path);
    }
    report.properties.push_back(std::move(v));
  }
  return report;
}

Report check(const std::string& recipe, const CheckOptions& o) {
  if (std::string why = problem(recipe, o); !why.empty()) return Report{.recipe = recipe, .error = why};
  const std::vector<RecipeCampaign> campaigns = campaigns_for(recipe, o);
  std::vector<Campaign> plain;
  for (const RecipeCampaign& c : campaigns) plain.push_back(c.campaign);
  return verdicts(recipe, campaigns, explore(plain, ExploreOptions{}), o.out_dir, o.shrink_runs);
}

}  // namespace zksim::scenarios
