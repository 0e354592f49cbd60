// Properties with shrinking: rapidcheck generates the workload and the
// decision list; the run must hold every property that applies. A failure
// shrinks to a minimal decision list and is written as a scenario file in
// the build tree (failures/<recipe>.scn). Each flawed recipe must be caught
// by the property it breaks; the size of its shrunk counterexample is
// reported.
#include "zksim/scenarios/scenario.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <fstream>

namespace zksim::scenarios {
namespace {

// The scenario rapidcheck generated: a workload and a fault class for the
// nemesis; the decision list is generated separately.
Scenario generated(const std::string& recipe) {
  Scenario s;
  s.workload.recipe = recipe;
  s.workload.clients = *rc::gen::inRange(1, 7);
  s.workload.rounds = *rc::gen::inRange(1, 6);
  s.workload.hold_ms = *rc::gen::element<TimeMs>(5, 600);
  s.workload.timeout_ms = *rc::gen::element<TimeMs>(-1, 5000);
  s.workload.reentrant = *rc::gen::arbitrary<bool>();
  s.workload.leases = *rc::gen::inRange(1, 4);
  int kind = *rc::gen::inRange(0, kFaultKinds);
  s.config.nemesis.per_mille[kind] = *rc::gen::inRange<std::uint32_t>(0, 80);
  s.config.nemesis.pause_ms = 3000;
  s.config.nemesis.delay_ms = 50;
  s.decisions = *rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, 1000));
  return s;
}

void write_failure(const Scenario& s, const Violation& v) {
  std::filesystem::create_directories(ZKSIM_FAILURES_DIR);
  Scenario out = s;
  out.expect_violation = v.property;
  out.comments = {fmt::format("Found by a property and shrunk: {}", v.message)};
  std::string name = s.workload.recipe;
  std::replace(name.begin(), name.end(), '/', '-');
  std::ofstream(fmt::format("{}/{}.scn", ZKSIM_FAILURES_DIR, name)) << write_scenario(out);
}

void holds_every_property(const std::string& recipe) {
  Scenario s = generated(recipe);
  ScenarioRun r = run_scenario(s);
  if (!r.result.violations.empty()) {
    write_failure(s, r.result.violations.front());
    RC_FAIL(fmt::format("{}: {} (scenario written to {}/)", r.result.violations.front().property,
                        r.result.violations.front().message, ZKSIM_FAILURES_DIR));
  }
}

// rapidcheck with a fixed seed, so CI runs the same cases every time
// (ZKSIM_RC_SEED picks another), and `runs` cases.
rc::detail::TestParams params(int runs) {
  rc::detail::TestParams p;
  const char* seed = std::getenv("ZKSIM_RC_SEED");
  p.seed = seed ? std::strtoull(seed, nullptr, 10) : 20261121;
  p.maxSuccess = runs;
  p.maxSize = 200;
  return p;
}

// Runs `property` for `runs` cases; false (with rapidcheck's report on
// stderr) if a case failed.
template <class F>
bool check(const std::string& name, int runs, F property) {
  auto result = rc::detail::checkTestable(property, rc::detail::TestMetadata{name, name}, params(runs));
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    rc::detail::printResultMessage(result, std::cerr);
    return false;
  }
  return true;
}

constexpr int kRuns = 2000;

TEST(Properties, LockHoldsEveryProperty) {
  EXPECT_TRUE(check("lock", kRuns, [] { holds_every_property("lock"); }));
}
TEST(Properties, ReadWriteLockHoldsEveryProperty) {
  EXPECT_TRUE(check("rw-lock", kRuns, [] { holds_every_property("rw-lock"); }));
}
TEST(Properties, SemaphoreHoldsEveryProperty) {
  EXPECT_TRUE(check("semaphore", kRuns, [] { holds_every_property("semaphore"); }));
}
TEST(Properties, ElectionHoldsEveryProperty) {
  EXPECT_TRUE(check("election", kRuns, [] { holds_every_property("election"); }));
}

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
