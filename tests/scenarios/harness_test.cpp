// The harness in one call (harness.h) and its googletest matchers (gtest.h):
// what a user's test of their own recipe reads like.
#include "zksim/scenarios/gtest.h"
#include "zksim/scenarios/harness.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace zksim::scenarios {
namespace {

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("zksim-harness-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

CheckOptions small(std::vector<std::string> faults, std::int64_t runs) {
  CheckOptions o;
  o.faults = std::move(faults);
  o.runs = runs;
  return o;
}

TEST(Harness, ACorrectRecipeHoldsEveryPropertyItsRunsCheck) {
  const Report r = check("lock", small({"none", "drop-after-apply", "any-time"}, 40));
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.runs, 3 * 40);
  EXPECT_EQ(r.properties.size(), properties_of("lock").size());
  EXPECT_THAT(r, HoldsEveryProperty());
  EXPECT_THAT(r, Holds("mutual-exclusion"));
  EXPECT_THAT(r, ::testing::Not(Holds("queue-fifo")));  // not a lock's property: not checked
}

TEST(Harness, AFlawedRecipeIsCaughtWithAScenarioFileThatReplaysIt) {
  CheckOptions o = small({"none"}, 20);
  o.out_dir = temp_dir("herd");
  const Report r = check("flawed/herd-lock", o);
  EXPECT_THAT(r, Violates("herd-effect"));
  const PropertyVerdict* v = r.find("herd-effect");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fault, "none");
  ASSERT_FALSE(v->scenario_file.empty());
  EXPECT_EQ(v->replay, "zksim replay " + v->scenario_file);
  std::ifstream in(v->scenario_file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), v->scenario);
  ParseError e;
  auto s = load_scenario(v->scenario_file, &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_TRUE(run_scenario(*s).as_expected);
  EXPECT_NE(r.text().find("replay:   zksim replay " + v->scenario_file), std::string::npos) << r.text();
  std::filesystem::remove_all(o.out_dir);
}

TEST(Harness, AFailedMatchSaysTheViolationAndTheCommandThatReplaysIt) {
  CheckOptions o = small({"none"}, 10);
  o.out_dir = temp_dir("explain");
  const Report r = check("flawed/herd-lock", o);
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(Holds("herd-effect"), r, &listener));
  EXPECT_NE(listener.str().find("herd-effect was violated under none: one change of"), std::string::npos)
      << listener.str();
  EXPECT_NE(listener.str().find("replay:   zksim replay " + o.out_dir), std::string::npos) << listener.str();
  std::filesystem::remove_all(o.out_dir);
}

TEST(Harness, WithoutAnOutputDirectoryTheScenarioIsKeptInTheReport) {
  const Report r = check("flawed/herd-lock", small({"none"}, 10));
  const PropertyVerdict* v = r.find("herd-effect");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->holds);
  EXPECT_TRUE(v->scenario_file.empty());
  ParseError e;
  auto s = parse_scenario(v->scenario, "report", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_TRUE(run_scenario(*s).as_expected);
}

TEST(Harness, TheSameOptionsGiveTheSameReport) {
  const CheckOptions o = small({"none", "pause"}, 12);
  EXPECT_EQ(check("flawed/forgetful-lock", o).text(), check("flawed/forgetful-lock", o).text());
}

TEST(Harness, BadOptionsAreAnErrorNotACrash) {
  EXPECT_EQ(check("nope").error, "unknown recipe 'nope'");
  EXPECT_EQ(check("lock", small({"meltdown"}, 1)).error, "unknown fault configuration 'meltdown'");
  EXPECT_EQ(check("lock", small({"none"}, 0)).error, "0 runs per fault configuration: at least 1");
  CheckOptions many = small({"none"}, 1);
  many.clients = 0;
  EXPECT_FALSE(check("lock", many).error.empty());
  EXPECT_THAT(check("nope"), ::testing::Not(HoldsEveryProperty()));
}

// A check's campaigns strike with their fault configuration in every run
// and draw the rest as explore does with no option; the options fix what
// they name, and without a search nothing is drawn.
TEST(Harness, EachConfigurationStrikesInEveryRunAndTheRestIsDrawn) {
  const std::vector<RecipeCampaign> c = campaigns_for("lock", small({"none", "burst"}, 10));
  ASSERT_EQ(c.size(), 2u);
  for (const RecipeCampaign& m : c) {
    EXPECT_EQ(m.campaign.runs, 10);
    ASSERT_TRUE(m.campaign.search);
    EXPECT_FALSE(m.campaign.search->draw_faults);
    EXPECT_FALSE(m.campaign.search->flavours);
    EXPECT_FALSE(m.campaign.search->strategy);
  }
  EXPECT_TRUE(c[0].campaign.search->faults.empty());
  EXPECT_EQ(c[1].campaign.search->faults, std::vector<int>{static_cast<int>(TimedFault::Burst)});
  CheckOptions c_only = small({"pause"}, 4);
  c_only.search->flavours = std::vector<Flavour>{Flavour::C};
  EXPECT_EQ(campaigns_for("lock", c_only)[0].campaign.search->flavours, std::vector<Flavour>{Flavour::C});
  CheckOptions fixed = small({"pause"}, 4);
  fixed.search.reset();
  const Campaign plain = campaigns_for("lock", fixed)[0].campaign;
  EXPECT_FALSE(plain.search);
  EXPECT_EQ(plain.workload.hold_ms, 600);  // a pause finds a holder
  EXPECT_EQ(plain.config.nemesis.per_mille[static_cast<int>(FaultKind::Pause)], 30u);
}

}  // namespace
}  // namespace zksim::scenarios
