// Each flawed recipe must be caught by the property it breaks; rapidcheck
// shrinks the counterexample and the test reports its size.
#include "properties.h"

#include <algorithm>

namespace zksim::scenarios {
namespace {

// rapidcheck looks for a counterexample to "holds"; the last failing call
// is the minimal one (rapidcheck runs it again after shrinking).
void caught_and_shrunk(const std::string& recipe) {
  const FlawedRecipe& f = *std::find_if(flawed_recipes().begin(), flawed_recipes().end(),
                                        [&](const FlawedRecipe& x) { return x.recipe == recipe; });
  std::size_t minimal = 0;
  std::string minimal_property;
  bool held = rc_check(fmt::format("{} holds", f.recipe), 1000, [&] {
    Scenario s;
    s.workload = Workload{.recipe = f.recipe, .clients = 3, .rounds = 3, .hold_ms = f.hold_ms, .varied = f.varied};
    s.config = f.config();
    s.decisions = *rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, 1000));
    ScenarioRun r = run_scenario(s);
    for (const Violation& v : r.result.violations) {
      if (v.property != f.property) continue;
      minimal = s.decisions.size();
      minimal_property = v.property;
      RC_FAIL(v.message);
    }
  });
  EXPECT_FALSE(held) << f.recipe << " was not caught";
  EXPECT_EQ(minimal_property, f.property);
  testing::Test::RecordProperty(fmt::format("shrunk_decisions_{}", f.recipe), static_cast<int>(minimal));
  fmt::print("{} caught by {}: shrunk to {} decisions\n", f.recipe, f.property, minimal);
}

TEST(FlawedProperties, BlogReadWriteLockIsCaught) {
  caught_and_shrunk("flawed/blog-rw-lock");
}
TEST(FlawedProperties, BlogReadWriteLockIndexFixedIsCaught) {
  caught_and_shrunk("flawed/blog-rw-lock-index-fixed");
}
TEST(FlawedProperties, PrefixWriteLockIsCaught) {
  caught_and_shrunk("flawed/prefix-write-lock");
}
TEST(FlawedProperties, HerdLockIsCaught) { caught_and_shrunk("flawed/herd-lock"); }
TEST(FlawedProperties, NoGuidLockIsCaught) {
  caught_and_shrunk("flawed/no-guid-lock");
}
TEST(FlawedProperties, ForgetfulLockIsCaught) {
  caught_and_shrunk("flawed/forgetful-lock");
}
TEST(FlawedProperties, StubbornUnlockLockIsCaught) {
  caught_and_shrunk("flawed/stubborn-unlock-lock");
}
TEST(FlawedProperties, EagerDowngradeReadWriteLockIsCaught) {
  caught_and_shrunk("flawed/eager-downgrade-rw-lock");
}

}  // namespace
}  // namespace zksim::scenarios
