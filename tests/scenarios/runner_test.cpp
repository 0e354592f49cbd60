// The workloads and the runner end to end: correct recipes hold every
// property under every fault class; each flawed recipe is caught by the
// property it breaks.
#include "zksim/scenarios/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

WorldConfig nemesis(FaultKind kind, std::uint32_t per_mille) {
  WorldConfig c;
  c.nemesis.per_mille[static_cast<std::size_t>(kind)] = per_mille;
  c.nemesis.pause_ms = 3000;  // longer than the 2 s sessions: they expire
  c.nemesis.delay_ms = 50;
  return c;
}

std::string describe(const RunResult& r) {
  std::string out;
  for (const Violation& v : r.violations) out += fmt::format("  {}: {}\n", v.property, v.message);
  return out;
}

// Runs `seeds` seeds; returns the first seed with a violation (0 if none).
std::uint64_t first_violation(const Workload& w, const WorldConfig& c, std::uint64_t seeds,
                              std::string* what = nullptr) {
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(w, d, {}, c);
    if (!r.violations.empty()) {
      if (what) *what = describe(r);
      return seed;
    }
  }
  return 0;
}

const FaultKind kAllFaults[] = {FaultKind::DropBeforeApply, FaultKind::DropAfterApply,
                                FaultKind::ExpireSession,   FaultKind::Pause,
                                FaultKind::Crash,           FaultKind::Delay};

TEST(Runner, CorrectRecipesHoldEveryPropertyWithoutFaults) {
  for (const char* recipe : {"lock", "rw-lock", "semaphore", "election"}) {
    Workload w{.recipe = recipe, .clients = 5, .rounds = 5};
    std::string what;
    EXPECT_EQ(first_violation(w, {}, 20, &what), 0u) << recipe << "\n" << what;
  }
}

TEST(Runner, CorrectRecipesHoldEveryPropertyUnderEveryFaultClass) {
  for (const char* recipe : {"lock", "rw-lock", "semaphore", "election"}) {
    for (FaultKind kind : kAllFaults) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .timeout_ms = 5000};
      std::string what;
      EXPECT_EQ(first_violation(w, nemesis(kind, 30), 40, &what), 0u)
          << recipe << " under " << fault_kind_name(static_cast<std::int32_t>(kind)) << "\n" << what;
    }
  }
}

TEST(Runner, CorrectLockHoldsWhenHoldersArePausedOrExpiredWhileHolding) {
  for (const char* recipe : {"lock", "election", "rw-lock"}) {
    for (FaultKind kind : {FaultKind::Pause, FaultKind::ExpireSession, FaultKind::Crash}) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 600};
      std::string what;
      EXPECT_EQ(first_violation(w, nemesis(kind, 30), 40, &what), 0u)
          << recipe << " under " << fault_kind_name(static_cast<std::int32_t>(kind)) << "\n" << what;
    }
  }
}

TEST(Runner, EveryFlawedRecipeIsCaughtByThePropertyItBreaks) {
  std::size_t flawed_names = 0;
  for (const std::string& r : recipe_names()) flawed_names += recipe_is_flawed(r);
  EXPECT_EQ(flawed_recipes().size(), flawed_names);
  for (const FlawedRecipe& f : flawed_recipes()) {
    Workload w{.recipe = f.recipe, .clients = 4, .rounds = 4, .hold_ms = f.hold_ms};
    bool caught = false;
    for (std::uint64_t seed = 1; seed <= 200 && !caught; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, f.config());
      for (const Violation& v : r.violations) {
        caught |= v.property == f.property;
        EXPECT_TRUE(std::ranges::count(properties_of(f.recipe), v.property))
            << f.recipe << " reported " << v.property << ", which it does not check";
      }
    }
    EXPECT_TRUE(caught) << f.recipe << " not caught by " << f.property;
  }
}

TEST(Runner, PropertiesOfARecipeAreKnownPropertiesAndUnknownRecipesHaveNone) {
  for (const std::string& r : recipe_names()) {
    EXPECT_FALSE(properties_of(r).empty()) << r;
    for (const std::string& p : properties_of(r)) {
      EXPECT_TRUE(std::ranges::count(property_names(), p)) << r << ": " << p;
    }
  }
  EXPECT_TRUE(properties_of("nope").empty());
}

TEST(Runner, SameSeedSameTrace) {
  Workload w{.recipe = "lock", .clients = 5, .rounds = 5};
  SeededDecisions a(7), b(7);
  EXPECT_EQ(run(w, a, {}, nemesis(FaultKind::Pause, 20)).trace_hash,
            run(w, b, {}, nemesis(FaultKind::Pause, 20)).trace_hash);
}

TEST(Runner, UnknownRecipeIsABadWorkload) {
  Workload w{.recipe = "nope"};
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].property, "bad-workload");
}

}  // namespace
}  // namespace zksim::scenarios
