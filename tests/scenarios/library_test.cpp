// Every file in scenarios/library behaves as it says (expect pass, or the
// named violation), and replays to the same trace hash.
#include "zksim/scenarios/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace zksim::scenarios {
namespace {

std::vector<std::string> library() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(ZKSIM_LIBRARY_DIR)) {
    if (e.path().extension() == ".scn") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Library : public testing::TestWithParam<std::string> {};

TEST_P(Library, BehavesAsExpectedAndReplaysExactly) {
  ParseError e;
  auto s = load_scenario(GetParam(), &e);
  ASSERT_TRUE(s) << e.text();
  ScenarioRun first = run_scenario(*s);
  EXPECT_TRUE(first.as_expected) << GetParam() << ": got " << first.verdict;
  EXPECT_EQ(run_scenario(*s).result.trace_hash, first.result.trace_hash);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Library, testing::ValuesIn(library()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string name = std::filesystem::path(p.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(LibraryCoverage, EveryFlawedRecipeAndEveryFaultClassHasAFile) {
  std::set<std::string> recipes_seen, correct_fault_pairs;
  for (const std::string& path : library()) {
    auto s = load_scenario(path, nullptr);
    ASSERT_TRUE(s);
    recipes_seen.insert(s->workload.recipe);
    for (int k = 0; k < kFaultClasses; ++k) {
      if (s->config.nemesis.per_mille[k] && !s->expect_violation) {
        correct_fault_pairs.insert(s->workload.recipe + "/" + std::to_string(k));
      }
    }
  }
  for (const std::string& r : recipe_names()) {
    EXPECT_TRUE(recipes_seen.count(r)) << r << " has no scenario file";
    if (recipe_is_flawed(r)) continue;
    for (int k = 0; k < kFaultClasses; ++k) {
      EXPECT_TRUE(correct_fault_pairs.count(r + "/" + std::to_string(k)))
          << r << " has no expect-pass file for fault class " << k;
    }
  }
}

}  // namespace
}  // namespace zksim::scenarios
