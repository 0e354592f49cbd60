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

TEST(Harness, TheMatrixsMixSplitsEachConfigurationFourWays) {
  const std::vector<RecipeCampaign> c = campaigns_for("lock", small({"none", "burst"}, 10));
  ASSERT_EQ(c.size(), 8u);
  std::int64_t runs = 0;
  for (const RecipeCampaign& m : c) runs += m.campaign.runs;
  EXPECT_EQ(runs, 20);
  EXPECT_EQ(c[0].campaign.runs, 4);  // the first part takes what the split leaves over
  EXPECT_EQ(c[1].campaign.strategy, Strategy::Pct);
  EXPECT_TRUE(c[2].campaign.workload.varied);
  EXPECT_TRUE(c[0].campaign.workload.draw_flavours);
  // A flawed recipe under its own nemesis keeps its config and library.
  const std::vector<RecipeCampaign> f = campaigns_for("flawed/node-events-only-lock", small({"blip-all"}, 4));
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].campaign.workload.flavours, std::vector<Flavour>{Flavour::Kazoo});
  EXPECT_FALSE(f[0].campaign.workload.draw_flavours);
  EXPECT_EQ(f[0].campaign.workload.hold_ms, 300);
}

}  // namespace
}  // namespace zksim::scenarios
