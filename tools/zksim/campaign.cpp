#include "campaign.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

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
