// Each flawed recipe must be caught by the property it breaks; rapidcheck
// shrinks the counterexample and the test reports its size.
#include "properties.h"

namespace zksim::scenarios {
namespace {

struct Flawed {
  const char* recipe;
  const char* property;
  int fault;
  std::uint32_t per_mille;
  TimeMs hold_ms;
};

// rapidcheck looks for a counterexample to "holds"; the last failing call
// is the minimal one (rapidcheck runs it again after shrinking).
void caught_and_shrunk(const Flawed& f) {
  std::size_t minimal = 0;
  std::string minimal_property;
  bool held = check(fmt::format("{} holds", f.recipe), 1000, [&] {
    Scenario s;
    s.workload = Workload{.recipe = f.recipe, .clients = 3, .rounds = 3, .hold_ms = f.hold_ms};
    s.config.nemesis.per_mille[f.fault] = f.per_mille;
    s.config.nemesis.pause_ms = 3000;
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
  caught_and_shrunk({"flawed/blog-rw-lock", "read-write-exclusion", 5, 0, 5});
}
TEST(FlawedProperties, BlogReadWriteLockIndexFixedIsCaught) {
  caught_and_shrunk({"flawed/blog-rw-lock-index-fixed", "read-write-exclusion", 5, 0, 5});
}
TEST(FlawedProperties, PrefixWriteLockIsCaught) {
  caught_and_shrunk({"flawed/prefix-write-lock", "mutual-exclusion", 5, 0, 5});
}
TEST(FlawedProperties, HerdLockIsCaught) { caught_and_shrunk({"flawed/herd-lock", "herd-effect", 5, 0, 5}); }
TEST(FlawedProperties, NoGuidLockIsCaught) {
  caught_and_shrunk({"flawed/no-guid-lock", "liveness", 1, 50, 5});
}
TEST(FlawedProperties, ForgetfulLockIsCaught) {
  caught_and_shrunk({"flawed/forgetful-lock", "mutual-exclusion", 3, 150, 600});
}

}  // namespace
}  // namespace zksim::scenarios
