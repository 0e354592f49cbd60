#include "zksim/scenarios/strategy.h"

#include <algorithm>
#include <cassert>

namespace zksim::scenarios {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"random", "fixed-latency", "dfs", "pct"};
  return names;
}

std::string_view strategy_name(Strategy s) { return strategy_names()[static_cast<std::size_t>(s)]; }

std::string_view strategy_summary(Strategy s) {
  switch (s) {
    case Strategy::Random:
      return "seeded runs, every decision drawn at random";
    case Strategy::FixedLatency:
      return "seeded runs, no delay drawn: every message takes exactly the latency";
    case Strategy::Dfs:
      return "every schedule of the first D decisions, depth first (latency fixed under a nemesis)";
    case Strategy::Pct:
      return "seeded priority schedules: clients' messages and threads in a drawn priority order, changed at D - 1 points";
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
  const std::optional<std::int32_t> at_zero = rates.strike(0);
  for (std::int32_t k = 0; k < kFaultClasses; ++k) {
    const std::optional<std::uint32_t> c = rates.choice_for(k);
    if (c && at_zero != k) outcomes_.push_back(*c);
  }
}

std::uint32_t DfsSchedules::choose(std::uint32_t n) {
  if (n != kNemesisChoices || outcomes_.empty()) return dfs_.pick(n);
  return outcomes_[dfs_.pick(static_cast<std::uint32_t>(outcomes_.size()))];
}

PctDecisions::PctDecisions(std::uint64_t seed, int depth, std::uint64_t horizon) : rng_(seed) {
  for (int i = 1; i < depth; ++i) change_points_.push_back(rng_.next_u64() % horizon);
  std::sort(change_points_.begin(), change_points_.end());
}

std::uint32_t PctDecisions::choose_for(std::uint32_t n, int actor) {
  auto [it, fresh] = priority_.try_emplace(actor, 0);
  // A client scheduled for the first time draws its priority (equal
  // priorities, unlikely, are ordered by actor below).
  if (fresh) it->second = static_cast<std::int64_t>(rng_.next_u64() >> 2);
  if (std::binary_search(change_points_.begin(), change_points_.end(), scheduled_)) {
    for (const auto& [a, p] : priority_) lowest_ = std::min(lowest_, p);
    it->second = --lowest_;
  }
  ++scheduled_;
  std::uint32_t rank = 0;
  for (const auto& [a, p] : priority_) {
    if (p > it->second || (p == it->second && a < actor)) ++rank;
  }
  return std::min(rank, n - 1);
}

std::unique_ptr<DecisionSource> seeded_decisions(Strategy s, std::uint64_t seed, int depth) {
  assert(s != Strategy::Dfs);
  if (s == Strategy::Pct) return std::make_unique<PctDecisions>(seed, depth);
  return std::make_unique<SeededDecisions>(seed);
}

}  // namespace zksim::scenarios
