#include "zksim/scenarios/search.h"

#include "zksim/scenarios/campaign.h"
#include "zksim/scenarios/recipe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

namespace zksim::scenarios {

namespace {

// The draw's stream is seeded apart from the run's (which takes the seed
// itself), so that drawing more or less leaves the run's decisions alone.
constexpr std::uint64_t kDrawSalt = 0x5eed'd7a0'5ea7'c4edULL;

const std::vector<Flavour> kSearchFlavours[] = {
    {Flavour::C}, {Flavour::Curator}, {Flavour::Kazoo}, {Flavour::C, Flavour::Curator, Flavour::Kazoo}};

bool allows_varied(const std::string& recipe) {
  const Recipe* r = find_recipe(recipe);
  return r && r->family != RecipeFamily::Custom;
}

std::string classes_text(const std::vector<int>& classes) {
  std::vector<std::string_view> names;
  for (int k : classes) names.push_back(fault_class_name(k));
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ","));
}

}  // namespace

SearchSpace default_search() {
  SearchSpace s;
  for (int k = 0; k < kFaultClasses; ++k) s.faults.push_back(k);
  return s;
}

DrawnRun draw_run(const Workload& base, const WorldConfig& base_config, const SearchSpace& space, std::uint64_t seed) {
  SeededDecisions d(seed ^ kDrawSalt);
  DrawnRun out;
  out.workload = base;
  out.workload.draw_flavours = false;
  std::vector<std::string> said;

  out.strategy = space.strategy ? *space.strategy : d.pick(2) == 0 ? Strategy::Random : Strategy::Pct;
  if (out.strategy == Strategy::Pct) out.depth = kDefaultPctDepth;

  // How many classes strike, then which: none in a quarter of the runs,
  // one in half, two in a quarter. Each class on or off by itself (swarm
  // testing's draw) puts half the classes in a typical run, and the noise
  // of the others hid what one class exposes: measured on the flawed
  // recipes, their slowest median time to a catch went from 0.98 s to 0.67 s.
  std::vector<int> on;
  if (!space.draw_faults) {
    on = space.faults;
  } else {
    const std::uint32_t k = std::array<std::uint32_t, 4>{0, 1, 1, 2}[d.pick(4)];
    std::vector<int> pool = space.faults;
    for (std::uint32_t i = 0; i < k && !pool.empty(); ++i) {
      const std::uint32_t j = d.pick(static_cast<std::uint32_t>(pool.size()));
      on.push_back(pool[j]);
      pool.erase(pool.begin() + j);
    }
    std::sort(on.begin(), on.end());
  }
  const std::uint32_t rate = space.rate ? *space.rate : kSearchRates[d.pick(std::size(kSearchRates))];
  const WorldConfig nemesis = nemesis_config(on, rate);
  out.config = base_config;
  out.config.nemesis = nemesis.nemesis;
  if (on.empty()) {
    said.push_back("no faults");
  } else {
    said.push_back(fmt::format("faults {} at {}\u2030", classes_text(on), rate));
  }

  const bool ensemble = std::any_of(on.begin(), on.end(), [](int k) { return is_ensemble_class(k); });
  if (space.servers) {
    out.config.servers = ensemble ? std::max(*space.servers, kSearchServers) : *space.servers;
  } else {
    out.config.servers = ensemble || d.pick(3) == 0 ? kSearchServers : 1;
  }
  if (out.config.servers != 1) said.push_back(fmt::format("{} servers", out.config.servers));

  out.workload.flavours = space.flavours ? *space.flavours : kSearchFlavours[d.pick(std::size(kSearchFlavours))];
  said.push_back(fmt::format("clients {}", flavours_text(out.workload.flavours, ",")));

  out.workload.hold_ms = space.hold_ms ? *space.hold_ms : kSearchHolds[d.pick(std::size(kSearchHolds))];
  said.push_back(fmt::format("hold {} ms", out.workload.hold_ms));

  if (space.varied) {
    out.workload.varied = *space.varied;
  } else if (allows_varied(base.recipe)) {
    out.workload.varied = d.pick(2) == 1;
  }
  if (out.workload.varied) said.push_back("varied");

  if (space.draw_features) {
    if (recipe_is_reentrant(base.recipe) && d.pick(2) == 1) {
      out.workload.reentrant = true;
      said.push_back("reentrant");
    }
    if (d.pick(2) == 1) {
      constexpr TimeMs kTimeouts[] = {0, 10, 250, 5000};
      out.workload.timeout_ms = kTimeouts[d.pick(std::size(kTimeouts))];
      said.push_back(fmt::format("timeouts {} ms", out.workload.timeout_ms));
    }
  }
  said.emplace_back(strategy_name(out.strategy));

  // Drawn last, so that every other draw of a seed is what it was before.
  if (space.sequence_start) {
    out.workload.sequence_start = *space.sequence_start;
  } else if (d.pick(4) == 0) {
    out.workload.sequence_start = kWrapStarts[d.pick(std::size(kWrapStarts))];
  }
  if (out.workload.sequence_start != 0) said.push_back(fmt::format("sequences from {}", out.workload.sequence_start));
  out.summary = fmt::format("{}", fmt::join(said, "; "));
  return out;
}

std::string describe(const SearchSpace& space, const Workload& base) {
  std::vector<std::string> drawn, fixed;
  // Drawing from no class says nothing of faults (a caller fixing them itself).
  if (space.draw_faults && !space.faults.empty()) {
    drawn.push_back(static_cast<int>(space.faults.size()) == kFaultClasses
                        ? fmt::format("0, 1 or 2 of the {} fault classes", kFaultClasses)
                        : fmt::format("0, 1 or 2 fault classes from {} ({})", space.faults.size(), classes_text(space.faults)));
  } else if (!space.draw_faults) {
    fixed.push_back(fmt::format("faults {}", classes_text(space.faults)));
  }
  if (!space.faults.empty() || space.draw_faults) {
    if (space.rate) {
      fixed.push_back(fmt::format("rate {}\u2030", *space.rate));
    } else {
      drawn.push_back("rates 30/100/300\u2030");
    }
  }
  if (space.servers) {
    fixed.push_back(fmt::format("{} server{}", *space.servers, *space.servers == 1 ? "" : "s"));
  } else {
    drawn.push_back("1 or 3 servers");
  }
  if (space.flavours) {
    fixed.push_back(fmt::format("clients {}", flavours_text(*space.flavours, ",")));
  } else {
    drawn.push_back("clients c/curator/kazoo/mixed");
  }
  if (space.hold_ms) {
    fixed.push_back(fmt::format("hold {} ms", *space.hold_ms));
  } else {
    drawn.push_back("holds 5/300/600/3000 ms");
  }
  if (space.varied) {
    fixed.push_back(*space.varied ? "varied" : "plain");
  } else if (allows_varied(base.recipe)) {
    drawn.push_back("plain or varied");
  }
  if (space.draw_features) drawn.push_back(recipe_is_reentrant(base.recipe) ? "reentrancy and timeouts" : "timeouts");
  if (space.strategy) {
    fixed.push_back(fmt::format("strategy {}", strategy_name(*space.strategy)));
  } else {
    drawn.push_back("random or pct");
  }
  if (space.sequence_start) {
    fixed.push_back(fmt::format("sequences from {}", *space.sequence_start));
  } else {
    drawn.push_back("sequences from 0 or near 2^31");
  }
  std::string out;
  if (!drawn.empty()) out = fmt::format("each run draws {}", fmt::join(drawn, ", "));
  if (!fixed.empty()) out += fmt::format("{}{}", out.empty() ? "" : "; fixed: ", fmt::join(fixed, ", "));
  return out;
}

}  // namespace zksim::scenarios
