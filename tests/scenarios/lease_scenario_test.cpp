// Lease scenario files (lease_scenario.h): parsing, writing back, exact
// replay, shrinking, and every error as file:line:col: message.
#include "zksim/scenarios/lease_scenario.h"

#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

const char* kExample = R"(# an unlock retried after its reply was lost
zksim-lease-scenario 1
recipe flawed/redis-del-unlock
clients 3
rounds 3
hold-ms 0      # the recipe's own
think-ms 5
limit-ms 120000
faults lost-reply pause
fault-per-mille 150
seed 1
expect violation belief-exclusion
)";

std::string error_of(const std::string& text) {
  ParseError e;
  auto s = parse_lease_scenario(text, "t.scn", &e);
  return s ? "" : e.text();
}

TEST(LeaseScenarioFile, ParsesEveryDirective) {
  ParseError e;
  auto s = parse_lease_scenario(kExample, "x.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->workload.recipe, "flawed/redis-del-unlock");
  EXPECT_EQ(s->workload.clients, 3);
  EXPECT_EQ(s->workload.faults, (std::vector<lease::LeaseFault>{lease::LeaseFault::LostReply, lease::LeaseFault::Pause}));
  EXPECT_EQ(s->workload.fault_per_mille, 150);
  EXPECT_EQ(s->seed, 1u);
  EXPECT_EQ(s->expect_violation, "belief-exclusion");
  EXPECT_EQ(s->comments, (std::vector<std::string>{"an unlock retried after its reply was lost"}));
}

TEST(LeaseScenarioFile, WritingAndParsingGivesTheSameScenario) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  s->decisions = {0, 3, 999, 1};
  const std::string text = write_lease_scenario(*s);
  auto back = parse_lease_scenario(text, "y.scn", nullptr);
  ASSERT_TRUE(back) << text;
  EXPECT_EQ(write_lease_scenario(*back), text);
  EXPECT_EQ(back->decisions, s->decisions);
}

TEST(LeaseScenarioFile, OnlyALeaseVersionLineMakesALeaseScenario) {
  EXPECT_TRUE(is_lease_scenario(kExample));
  EXPECT_FALSE(is_lease_scenario("# x\nzksim-scenario 2\nrecipe lock\n"));
  EXPECT_FALSE(is_lease_scenario(""));
}

TEST(LeaseScenarioFile, EveryErrorSaysFileLineAndColumn) {
  EXPECT_EQ(error_of(""), "t.scn:1:1: empty lease scenario: expected 'zksim-lease-scenario 1'");
  EXPECT_EQ(error_of("recipe redlock\n"), "t.scn:1:1: expected 'zksim-lease-scenario 1' first");
  EXPECT_EQ(error_of("zksim-lease-scenario 2\n"), "t.scn:1:22: unsupported format version 2 (this is version 1)");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe lock\n").substr(0, 42), "t.scn:2:8: unknown lease lock 'lock' (know");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe redlock\nclients 0\n"),
            "t.scn:3:9: '0' is not a number from 1 to 16");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe redlock\nfaults pause partition\n").substr(0, 55),
            "t.scn:3:14: unknown lease fault class 'partition' (know");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe redlock\nrecipe redlock\n"),
            "t.scn:3:1: 'recipe' given twice (first on line 2)");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe redlock\nexpect violation mutual-exclusion\n").substr(0, 56),
            "t.scn:3:18: unknown property 'mutual-exclusion' (known: ");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nclients 3\n"), "t.scn:2:1: no 'recipe' line: which lease lock runs?");
  EXPECT_EQ(error_of("zksim-lease-scenario 1\nrecipe redlock\nseed \x01\n"),
            "t.scn:3:6: '\\x01' is not a seed (an unsigned 64-bit number)");
}

TEST(LeaseScenarioFile, AFileEndsWithItsExpectLine) {
  ParseError e;
  EXPECT_FALSE(parse_lease_scenario("zksim-lease-scenario 1\nrecipe redlock\nseed 3\n", "t.scn", &e));
  EXPECT_EQ(e.text(), "t.scn:3:1: the file ends without an 'expect' line (cut off?): a scenario ends with 'expect pass' or "
                      "'expect violation PROPERTY'");
  EXPECT_FALSE(parse_lease_scenario("zksim-lease-scenario 1\nrecipe redlock\nexpect pass\nseed 3\n", "t.scn", &e));
  EXPECT_EQ(e.text(), "t.scn:4:1: 'seed' after the 'expect' line (line 3), which ends a scenario");
}

TEST(LeaseScenarioFile, AScenarioReplaysItsRunExactly) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  const LeaseScenarioRun a = run_lease_scenario(*s);
  const LeaseScenarioRun b = run_lease_scenario(*s);
  EXPECT_EQ(a.run.trace, b.run.trace);
  EXPECT_EQ(a.run.trace_hash, b.run.trace_hash);
  EXPECT_FALSE(a.run.events.empty());
  EXPECT_FALSE(a.run.hold_list.empty());
}

TEST(LeaseScenarioFile, TheVerdictSaysWhetherTheExpectedPropertyWasLost) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  const LeaseScenarioRun lost = run_lease_scenario(*s);
  EXPECT_TRUE(lost.as_expected) << lost.verdict << "\n" << lost.run.trace;
  EXPECT_EQ(lost.verdict, "violation belief-exclusion");
  s->expect_violation.reset();
  EXPECT_FALSE(run_lease_scenario(*s).as_expected);
  s->workload.faults.clear();
  EXPECT_TRUE(run_lease_scenario(*s).as_expected);  // no faults: the flaw does not show
}

TEST(LeaseScenarioFile, ShrinkingKeepsTheViolationAndReplaysFromItsList) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  const ShrunkLease shrunk = shrink_lease_scenario(*s, "belief-exclusion", 300);
  ASSERT_TRUE(shrunk.reproduced);
  EXPECT_LE(shrunk.runs, 300);
  EXPECT_FALSE(shrunk.scenario.seed);
  EXPECT_EQ(shrunk.violation.property, "belief-exclusion");
  EXPECT_EQ(shrunk.scenario.expect_violation, "belief-exclusion");
  const LeaseScenarioRun replay = run_lease_scenario(shrunk.scenario);
  EXPECT_TRUE(replay.as_expected) << write_lease_scenario(shrunk.scenario);
  // The shrunk list is no longer than the seed's own.
  SeededDecisions seeded(1);
  RecordingDecisions rec(seeded);
  lease::run_lease(s->workload, rec);
  EXPECT_LE(shrunk.scenario.decisions.size(), rec.recorded().size());
}

TEST(LeaseScenarioFile, AScenarioThatDoesNotLoseThePropertyDoesNotShrink) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  s->workload.faults.clear();
  const ShrunkLease shrunk = shrink_lease_scenario(*s, "belief-exclusion", 100);
  EXPECT_FALSE(shrunk.reproduced);
  EXPECT_EQ(shrunk.runs, 1);
}

TEST(LeaseScenarioFile, WithNoDecisionsNothingGoesWrong) {
  auto s = parse_lease_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  s->seed.reset();
  const LeaseScenarioRun r = run_lease_scenario(*s);
  EXPECT_EQ(r.run.faults, 0);
  EXPECT_TRUE(r.run.violations.empty());
}

}  // namespace
}  // namespace zksim::scenarios
