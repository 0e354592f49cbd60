#include "zksim/scenarios/strategy.h"

#include <algorithm>

namespace zksim::scenarios {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"random", "fixed-latency", "dfs"};
  return names;
}

std::string_view strategy_name(Strategy s) { return strategy_names()[static_cast<std::size_t>(s)]; }

std::string_view strategy_summary(Strategy s) {
  switch (s) {
    case Strategy::Random:
      return "seeded runs, every decision drawn at random (the default)";
    case Strategy::FixedLatency:
      return "seeded runs, no delay drawn: every message takes exactly the latency";
    case Strategy::Dfs:
      return "every schedule of the first D decisions, depth first (latency fixed under a nemesis)";
  }
  return {};
}

std::optional<Strategy> strategy_named(std::string_view name) {
  const auto& all = strategy_names();
  const auto it = std::find(all.begin(), all.end(), name);
  if (it == all.end()) return std::nullopt;
  return static_cast<Strategy>(it - all.begin());
}

WorldConfig strategy_config(Strategy s, WorldConfig config) {
  if (s == Strategy::FixedLatency || (s == Strategy::Dfs && config.nemesis.any())) config.delay_choices = 1;
  return config;
}

DfsSchedules::DfsSchedules(std::size_t depth, const NemesisRates& rates) : dfs_(depth) {
  if (!rates.any()) return;
  outcomes_.push_back(0);
  const std::optional<FaultKind> at_zero = rates.strike(0);
  for (int k = 0; k < kFaultKinds; ++k) {
    const auto kind = static_cast<FaultKind>(k);
    const std::optional<std::uint32_t> c = rates.choice_for(kind);
    if (c && at_zero != kind) outcomes_.push_back(*c);
  }
}

std::uint32_t DfsSchedules::choose(std::uint32_t n) {
  if (n != kNemesisChoices || outcomes_.empty()) return dfs_.pick(n);
  return outcomes_[dfs_.pick(static_cast<std::uint32_t>(outcomes_.size()))];
}

}  // namespace zksim::scenarios
