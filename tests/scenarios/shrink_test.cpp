// The decision-list shrinker: minimal results on predicates whose minimum
// is known, the run budget, determinism, and scenarios that keep their
// violated property.
#include "zksim/scenarios/shrink.h"

#include "zksim/decision.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace zksim::scenarios {
namespace {

TEST(ShrinkList, FindsTheMinimumOfAnOrderFreePredicate) {
  // Fails when at least two values are 3 or more: the least such list is {3, 3}.
  auto fails = [](const DecisionList& l) { return std::count_if(l.begin(), l.end(), [](auto v) { return v >= 3; }) >= 2; };
  ShrunkList s = shrink_list({0, 7, 1, 9, 2, 4, 0, 0, 8, 5}, fails, 10'000);
  EXPECT_EQ(s.decisions, (DecisionList{3, 3}));
  EXPECT_GT(s.runs, 0);
}

TEST(ShrinkList, KeepsAPositionThatMatters) {
  // Fails when the third decision is 4 (later ones do not matter).
  auto fails = [](const DecisionList& l) { return l.size() > 2 && l[2] == 4; };
  ShrunkList s = shrink_list({9, 8, 4, 7, 6, 5}, fails, 10'000);
  EXPECT_EQ(s.decisions, (DecisionList{0, 0, 4}));
}

TEST(ShrinkList, LowersValuesTowardZero) {
  auto fails = [](const DecisionList& l) { return !l.empty() && l[0] >= 100; };
  EXPECT_EQ(shrink_list({1000, 999}, fails, 10'000).decisions, (DecisionList{100}));
}

TEST(ShrinkList, AlwaysFailingShrinksToEmptyAndTrailingZerosCostNothing) {
  int calls = 0;
  auto always = [&](const DecisionList&) { return ++calls > 0; };
  EXPECT_TRUE(shrink_list({5, 6, 7}, always, 100).decisions.empty());
  calls = 0;
  auto never = [&](const DecisionList&) { return ++calls < 0; };
  ShrunkList s = shrink_list({2, 0, 0, 0}, never, 100);
  EXPECT_EQ(s.decisions, (DecisionList{2}));  // trimmed without a call
  EXPECT_EQ(s.runs, calls);
}

TEST(ShrinkList, StopsAtTheRunBudget) {
  int calls = 0;
  auto fails = [&](const DecisionList& l) {
    ++calls;
    return std::count(l.begin(), l.end(), 1u) >= 20;  // needs many calls to get there
  };
  DecisionList start(200, 1);
  ShrunkList s = shrink_list(start, fails, 25);
  EXPECT_EQ(calls, 25);
  EXPECT_EQ(s.runs, 25);
  EXPECT_TRUE(fails(s.decisions));  // what it kept failed
  EXPECT_EQ(shrink_list(start, fails, 0).decisions, start);
}

TEST(ShrinkList, IsDeterministic) {
  auto fails = [](const DecisionList& l) {
    std::uint64_t h = 0;
    for (auto v : l) h = h * 31 + v;
    return l.size() >= 3 && (h % 7 == 3 || l[0] > 50);
  };
  DecisionList start{90, 13, 77, 4, 0, 61, 8, 22, 5};
  ASSERT_TRUE(fails(start));
  ShrunkList a = shrink_list(start, fails, 500), b = shrink_list(start, fails, 500);
  EXPECT_EQ(a.decisions, b.decisions);
  EXPECT_EQ(a.runs, b.runs);
  EXPECT_TRUE(fails(a.decisions));
}

TEST(ShrinkList, TheLastListThatFailedIsTheOneKept) {
  for (int budget : {3, 10, 40, 10'000}) {
    DecisionList last_failing;
    auto fails = [&](const DecisionList& l) {
      const bool f = std::count_if(l.begin(), l.end(), [](auto v) { return v >= 3; }) >= 2;
      if (f) last_failing = l;
      return f;
    };
    ShrunkList s = shrink_list({0, 7, 1, 9, 2, 4, 0, 0, 8, 5}, fails, budget);
    EXPECT_EQ(s.decisions, last_failing) << "budget " << budget;
  }
}

// The first seed whose run of `s` violates `property`, recorded as a list.
Scenario recorded_failure(Scenario s, const std::string& property) {
  for (std::uint64_t seed = 1; seed < 500; ++seed) {
    SeededDecisions seeded(seed);
    RecordingDecisions recording(seeded);
    RunResult r = run(s.workload, recording, s.faults, s.config);
    if (std::any_of(r.violations.begin(), r.violations.end(), [&](const Violation& v) { return v.property == property; })) {
      s.seed = seed;
      s.decisions = recording.recorded();
      return s;
    }
  }
  ADD_FAILURE() << "no seed below 500 violates " << property;
  return s;
}

TEST(ShrinkScenario, KeepsTheViolatedPropertyWithFewerDecisions) {
  Scenario s;
  s.workload = Workload{.recipe = "flawed/prefix-write-lock", .clients = 4, .rounds = 4};
  s = recorded_failure(s, "mutual-exclusion");
  ASSERT_FALSE(s.decisions.empty());
  Shrunk shrunk = shrink_scenario(s, "mutual-exclusion", 1000);
  ASSERT_TRUE(shrunk.reproduced);
  EXPECT_EQ(shrunk.violation.property, "mutual-exclusion");
  EXPECT_LT(shrunk.scenario.decisions.size(), s.decisions.size());
  EXPECT_FALSE(shrunk.scenario.seed);  // an empty list must not fall back to the seed
  EXPECT_LE(shrunk.runs, 1000);
  // The shrunk scenario, written and read back, still shows the violation.
  ParseError e;
  auto back = parse_scenario(write_scenario(shrunk.scenario), "shrunk.scn", &e);
  ASSERT_TRUE(back) << e.text();
  ScenarioRun r = run_scenario(*back);
  EXPECT_TRUE(r.as_expected) << r.verdict;
  EXPECT_EQ(shrink_scenario(s, "mutual-exclusion", 1000).scenario.decisions, shrunk.scenario.decisions);
}

TEST(ShrinkScenario, NeverRunsMoreThanItsLimit) {
  Scenario s;
  s.workload = Workload{.recipe = "flawed/prefix-write-lock", .clients = 4, .rounds = 4};
  s = recorded_failure(s, "mutual-exclusion");
  for (int limit : {0, 1, 2, 3, 10, 60}) {
    Shrunk shrunk = shrink_scenario(s, "mutual-exclusion", limit);
    EXPECT_LE(shrunk.runs, limit);
    EXPECT_EQ(shrunk.reproduced, limit > 0) << "limit " << limit;
    if (shrunk.reproduced) {
      EXPECT_EQ(shrunk.violation.property, "mutual-exclusion");
    }
  }
  // Nothing ran: the scenario comes back with its list, no longer seeded.
  Shrunk none = shrink_scenario(s, "mutual-exclusion", 0);
  EXPECT_EQ(none.runs, 0);
  EXPECT_EQ(none.scenario.decisions, s.decisions);
  EXPECT_FALSE(none.scenario.seed);
}

TEST(ShrinkScenario, SaysSoWhenTheRunDoesNotViolateTheProperty) {
  Scenario s;
  s.workload = Workload{.recipe = "lock", .clients = 3, .rounds = 2};
  s.decisions = {1, 2, 0, 1};
  Shrunk shrunk = shrink_scenario(s, "mutual-exclusion", 100);
  EXPECT_FALSE(shrunk.reproduced);
  EXPECT_EQ(shrunk.runs, 1);
  EXPECT_EQ(shrunk.scenario.decisions, s.decisions);
}

}  // namespace
}  // namespace zksim::scenarios
