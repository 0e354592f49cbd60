// Explorations reach what they are meant to reach: for every recipe the
// probe table names, and every fault class it states expectations under,
// seeded runs of probe_workload(recipe) under probe_world(fault) must reach
// each probe expected there. Prints, per recipe, how many runs reached each
// probe under each fault class (* marks what the table expects).
//
// The recipes come from the table, so a recipe added to a probe's row is
// explored here without touching this file.
#include "zksim/scenarios/probes.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace zksim::scenarios {
namespace {

constexpr int kRuns = 200;
// Under the sanitizers a fault class stops as soon as it reached all it
// should (the seeds are the same, so the verdict is too; only the printed
// tallies are smaller).
constexpr bool kStopWhenCovered = test::kSanitized;

std::vector<std::string> recipes_in_table() {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const ProbeInfo& p : probe_table()) {
    for (const std::string& r : p.recipes) {
      if (seen.insert(r).second) out.push_back(r);
    }
  }
  return out;
}

// The fault classes the table states expectations of `recipe` under, in
// FaultKind order (no faults first).
std::vector<std::optional<FaultKind>> faults_for(const std::string& recipe) {
  std::vector<std::optional<FaultKind>> out;
  for (const ProbeInfo& p : probe_table()) {
    if (std::count(p.recipes.begin(), p.recipes.end(), recipe) &&
        std::find(out.begin(), out.end(), p.fault) == out.end()) {
      out.push_back(p.fault);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string fault_name(std::optional<FaultKind> f) {
  return f ? std::string(fault_kind_name(static_cast<std::int32_t>(*f))) : "none";
}

class Exploration : public testing::TestWithParam<std::string> {};

TEST_P(Exploration, ReachesEveryProbeItIsMeantTo) {
  const std::string& recipe = GetParam();
  const auto faults = faults_for(recipe);
  std::vector<ProbeTally> tallies(faults.size());
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const WorldConfig world = probe_world(faults[i]);
    for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
      SeededDecisions d(seed);
      tallies[i].add(run(probe_workload(recipe), d, {}, world).probes);
      if (kStopWhenCovered && tallies[i].unreached(recipe, faults[i]).empty()) break;
    }
  }
  std::vector<std::size_t> width;
  std::string table = fmt::format("{}: runs reaching each probe, per fault class\n{:<36}", recipe, "");
  for (std::size_t i = 0; i < faults.size(); ++i) {
    width.push_back(fault_name(faults[i]).size() + 1);
    table += fmt::format(" {:>{}}", fault_name(faults[i]), width[i]);
  }
  table += fmt::format("\n{:<36}", "(runs)");
  for (std::size_t i = 0; i < faults.size(); ++i) table += fmt::format(" {:>{}}", tallies[i].runs(), width[i] - 1) + " ";
  table += '\n';
  for (const ProbeInfo& p : probe_table()) {
    table += fmt::format("{:<36}", p.name);
    for (std::size_t i = 0; i < faults.size(); ++i) {
      const bool expected = std::count(p.recipes.begin(), p.recipes.end(), recipe) && p.fault == faults[i];
      table += fmt::format(" {:>{}}{}", tallies[i].runs_reaching(p.name), width[i] - 1, expected ? '*' : ' ');
    }
    table += '\n';
  }
  fmt::print("{}", table);
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const auto missed = tallies[i].unreached(recipe, faults[i]);
    EXPECT_TRUE(missed.empty()) << recipe << " under " << fault_name(faults[i]) << " never reached "
                                << fmt::format("{}", fmt::join(missed, ", ")) << " in "
                                << tallies[i].runs() << " runs";
  }
}

INSTANTIATE_TEST_SUITE_P(Probes, Exploration, testing::ValuesIn(recipes_in_table()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace zksim::scenarios
