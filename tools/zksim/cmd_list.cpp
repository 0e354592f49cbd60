// zksim list: the recipes (correct and flawed), the properties, the fault
// classes, the search strategies, the client flavours and the lease locks,
// one line each.
#include "campaign.h"
#include "commands.h"
#include "common.h"
#include "lease_table.h"
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace zksim::cli {

CommandSpec list_spec() {
  return CommandSpec{
      .name = "list",
      .summary = "list the recipes (correct and flawed), the properties, the fault classes, the search strategies and the client flavours",
      .options = {{"--json", "", "print JSON: {recipes: [...], properties: [...], property_summaries: {...}, fault_classes: [...], strategies: [...], clients: [...], lease_recipes: [...], lease_fault_classes: [...]}; a recipe's family, summary and origin (zksim, or its plugin's file) are there too"}},
      .details = "Lines: 'recipe NAME correct|flawed checks PROPERTY,...' (a flawed one adds the property\n"
                 "it breaks and the nemesis, clients and workload that show it), 'property NAME', 'fault-class NAME',\n"
                 "'strategy NAME' (explore --strategy; see 'zksim explore --help'), 'client NAME: summary'\n"
                 "(the client flavours: --client, and 'client' in scenario files), 'lease-recipe NAME redis|etcd\n"
                 "[fenced] [breaks PROPERTY]' and 'lease-fault-class NAME' (the lease locks: docs/lease.md)."};
}

int list_main(const Args& args) {
  using nlohmann::json;
  json recipes = json::array();
  std::string text;
  for (const std::string& r : scenarios::recipe_names()) {
    const bool flawed = scenarios::recipe_is_flawed(r);
    const auto checks = scenarios::properties_of(r);
    const scenarios::Recipe& recipe = *scenarios::find_recipe(r);
    json j{{"name", r},
           {"flawed", flawed},
           {"properties", checks},
           {"family", scenarios::family_name(recipe.family)},
           {"summary", recipe.summary},
           {"origin", recipe.origin}};
    std::string line = fmt::format("recipe {} {} checks {}", r, flawed ? "flawed" : "correct", fmt::join(checks, ","));
    if (const scenarios::FlawedRecipe* f = flaw_of(r)) {
      const std::string nemesis = fault_label(f->config());
      j["breaks"] = f->property;
      j["exposed_by"] = json{{"faults", nemesis}, {"per_mille", f->per_mille}, {"hold_ms", f->hold_ms},
                             {"client", flavour_name(f->flavour)}, {"varied", f->varied},
                             {"servers", f->config().servers}};
      line += fmt::format(" breaks {} under {}", f->property,
                          f->per_mille ? fmt::format("{} {}/1000", nemesis, f->per_mille) : std::string("no faults"));
      if (f->flavour != Flavour::C) line += fmt::format(" with {} clients", flavour_name(f->flavour));
      if (f->varied) line += " in varied workloads";
      if (const int servers = f->config().servers; servers > 1) line += fmt::format(" on {} servers", servers);
    }
    recipes.push_back(std::move(j));
    text += line + "\n";
  }
  for (const std::string& p : scenarios::property_names()) {
    text += fmt::format("property {} {}\n", p, scenarios::severity_name(scenarios::severity_of(p)));
  }
  for (const std::string& k : fault_class_names()) text += fmt::format("fault-class {}\n", k);
  for (const std::string& s : scenarios::strategy_names()) text += fmt::format("strategy {}\n", s);
  json clients = json::array();
  for (int i = 0; i < kFlavours; ++i) {
    const FlavourRules& r = rules_of(static_cast<Flavour>(i));
    text += fmt::format("client {}: {}; listeners hear {}\n", r.name, r.summary, fmt::join(r.state_names, ", "));
    clients.push_back(json{{"name", r.name}, {"summary", r.summary}, {"states", r.state_names}});
  }
  json lease_recipes = json::array();
  for (const lease::LeaseRecipe& r : lease::lease_recipes()) {
    text += fmt::format("lease-recipe {} {}{}{}\n", r.name, r.etcd ? "etcd" : "redis", r.fenced ? " fenced" : "",
                        r.breaks.empty() ? "" : " breaks " + r.breaks);
    lease_recipes.push_back(json{{"name", r.name}, {"system", r.etcd ? "etcd" : "redis"}, {"redis_nodes", r.etcd ? 0 : r.redis_nodes},
                                 {"fenced", r.fenced}, {"renews", r.renews}, {"flawed", !r.breaks.empty()},
                                 {"breaks", r.breaks}});
  }
  std::vector<std::string> lease_faults = lease_fault_configs();
  lease_faults.erase(lease_faults.begin());  // "none"
  for (const std::string& f : lease_faults) text += fmt::format("lease-fault-class {}\n", f);
  json summaries = json::object();
  json classes = json::object();
  for (int i = 0; i < scenarios::kProperties; ++i) {
    const auto p = static_cast<scenarios::Property>(i);
    summaries[scenarios::name(p)] = std::string(scenarios::summary(p));
    classes[scenarios::name(p)] = std::string(scenarios::severity_name(scenarios::severity(p)));
  }
  if (args.flag("--json")) {
    print_json(json{{"recipes", recipes},
                    {"properties", scenarios::property_names()},
                    {"property_summaries", summaries},
                    {"property_classes", classes},
                    {"fault_classes", fault_class_names()},
                    {"strategies", scenarios::strategy_names()},
                    {"clients", clients},
                    {"lease_recipes", lease_recipes},
                    {"lease_fault_classes", lease_faults}});
  } else {
    std::fputs(text.c_str(), stdout);
  }
  return 0;
}

}  // namespace zksim::cli
