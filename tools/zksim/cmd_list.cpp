// zksim list: the recipes (correct and flawed), the properties, the fault
// classes and the search strategies, one line each.
#include "campaign.h"
#include "commands.h"
#include "common.h"
#include "zksim/scenarios/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace zksim::cli {

CommandSpec list_spec() {
  return CommandSpec{
      .name = "list",
      .summary = "list the recipes (correct and flawed), the properties, the fault classes and the search strategies",
      .options = {{"--json", "", "print JSON: {recipes: [...], properties: [...], fault_classes: [...], strategies: [...]}"}},
      .details = "Lines: 'recipe NAME correct|flawed checks PROPERTY,...' (a flawed one adds the property\n"
                 "it breaks and the nemesis that shows it), 'property NAME', 'fault-class NAME',\n"
                 "'strategy NAME' (explore --strategy; see 'zksim explore --help')."};
}

int list_main(const Args& args) {
  using nlohmann::json;
  json recipes = json::array();
  std::string text;
  for (const std::string& r : scenarios::recipe_names()) {
    const bool flawed = scenarios::recipe_is_flawed(r);
    const auto checks = scenarios::properties_of(r);
    json j{{"name", r}, {"flawed", flawed}, {"properties", checks}};
    std::string line = fmt::format("recipe {} {} checks {}", r, flawed ? "flawed" : "correct", fmt::join(checks, ","));
    if (const scenarios::FlawedRecipe* f = flaw_of(r)) {
      const std::string nemesis = fault_label(f->config());
      j["breaks"] = f->property;
      j["exposed_by"] = json{{"faults", nemesis}, {"per_mille", f->per_mille}, {"hold_ms", f->hold_ms}};
      line += fmt::format(" breaks {} under {}", f->property,
                          f->per_mille ? fmt::format("{} {}/1000", nemesis, f->per_mille) : std::string("no faults"));
    }
    recipes.push_back(std::move(j));
    text += line + "\n";
  }
  for (const std::string& p : scenarios::property_names()) text += fmt::format("property {}\n", p);
  for (const std::string& k : fault_class_names()) text += fmt::format("fault-class {}\n", k);
  for (const std::string& s : scenarios::strategy_names()) text += fmt::format("strategy {}\n", s);
  if (args.flag("--json")) {
    print_json(json{{"recipes", recipes},
                    {"properties", scenarios::property_names()},
                    {"fault_classes", fault_class_names()},
                    {"strategies", scenarios::strategy_names()}});
  } else {
    std::fputs(text.c_str(), stdout);
  }
  return 0;
}

}  // namespace zksim::cli
