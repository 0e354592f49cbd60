// zksim matrix, the main job: the default run, its JSON, the verdicts and
// exit statuses, workers, bad input.
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace zksim::cli_test {
namespace {

TEST(CliMatrix, ServersPutsEveryCampaignOnThatEnsembleAndTheEnsemblesClassesOnThreeAtLeast) {
  TempDir d;
  for (const char* servers : {"", "1", "5"}) {
    std::vector<std::string> args{"matrix", "--json", "--budget", "4", "--recipes", "lock", "--out", d.path()};
    if (*servers) args.insert(args.end(), {"--servers", servers});
    Ran r = zksim(args);
    ASSERT_EQ(r.status, 0) << r.err;
    nlohmann::json doc = parse_json(r.out);
    for (const auto& c : doc["campaigns"]) {
      const std::string fault = c["campaign"]["faults"];
      const bool ensemble_class = fault == "lag-burst" || fault == "server-crash" || fault == "leader-crash" ||
                                  fault == "partition" || fault == "session-moved";
      const nlohmann::json search = c["campaign"]["search"];
      if (!*servers && !ensemble_class) {
        EXPECT_FALSE(search.contains("servers")) << fault << ": drawn per run";
        continue;
      }
      const int want = std::string(servers) == "5" ? 5 : ensemble_class ? 3 : 1;
      EXPECT_EQ(search.value("servers", 0), want) << fault << " with --servers " << servers;
    }
  }
  EXPECT_EQ(zksim({"matrix", "--servers", "0"}).status, 2);
}

TEST(CliMatrix, JsonHasEveryCellAndTheScenarioBehindEachViolation) {
  TempDir d;
  Ran r = zksim({"matrix", "--json", "--budget", "8", "--recipes", "lock,flawed/herd-lock", "--out", d.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json doc = parse_json(r.out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_TRUE(doc["ok"].get<bool>());
  nlohmann::json list = parse_json(zksim({"list", "--json"}).out);
  ASSERT_EQ(doc["recipes"].size(), 2u);
  // No faults and each of the fifteen classes, one campaign each, whose
  // runs draw the rest (the default search, with the class fixed).
  EXPECT_EQ(doc["campaigns"].size(), 2u * 16u);
  EXPECT_EQ(doc["runs"], 2 * 16 * 8);
  for (const auto& c : doc["campaigns"]) {
    const nlohmann::json search = c["campaign"]["search"];
    EXPECT_FALSE(search["draw_faults"].get<bool>()) << c["campaign"];
    const std::string fault = c["campaign"]["faults"];
    EXPECT_EQ(search["faults"], fault == "none" ? nlohmann::json::array() : nlohmann::json({fault}));
    EXPECT_FALSE(search.contains("client")) << "the clients' libraries are drawn per run";
  }
  for (const auto& row : doc["recipes"]) {
    nlohmann::json checks;
    for (const auto& l : list["recipes"]) {
      if (l["name"] == row["name"]) checks = l["properties"];
    }
    ASSERT_EQ(row["properties"].size(), list["properties"].size());
    for (const auto& [property, cell] : row["properties"].items()) {
      const bool applies = std::find(checks.begin(), checks.end(), property) != checks.end();
      EXPECT_EQ(cell["verdict"] == "n/a", !applies) << row["name"] << " " << property;
      if (cell["verdict"] != "violated") continue;
      EXPECT_EQ(row["name"], "flawed/herd-lock") << property;
      Ran replay = zksim({"replay", cell["scenario"]});
      EXPECT_EQ(replay.status, 0) << cell["scenario"] << ": " << replay.out;
    }
  }
  EXPECT_EQ(doc["recipes"][1]["properties"]["herd-effect"]["verdict"], "violated");
  EXPECT_EQ(doc["recipes"][0]["properties"]["mutual-exclusion"]["verdict"], "holds");
}

// --varied: every run of every campaign has varied operation sequences
// (without it each run draws whether); the files it writes say so.
TEST(CliMatrix, VariedFixesVariedWorkloadsAndSaysSo) {
  TempDir d;
  Ran r = zksim({"matrix", "--varied", "--budget", "5", "--recipes", "rw-lock", "--faults", "none", "--out", d.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("fixed: varied"), std::string::npos) << r.out;
  Ran plain = zksim({"matrix", "--budget", "5", "--recipes", "rw-lock", "--faults", "none", "--out", d.path()});
  EXPECT_NE(plain.out.find("plain or varied"), std::string::npos) << plain.out;
  Ran flawed = zksim({"matrix", "--json", "--budget", "30", "--recipes", "flawed/eager-downgrade-rw-lock", "--faults",
                      "none", "--varied", "--out", d.path()});
  ASSERT_EQ(flawed.status, 0) << flawed.err;
  const nlohmann::json cell = parse_json(flawed.out)["recipes"][0]["properties"]["read-write-exclusion"];
  ASSERT_EQ(cell["verdict"], "violated");
  EXPECT_NE(read_file(cell["scenario"]).find("\nvaried yes\n"), std::string::npos);
  Ran replay = zksim({"replay", cell["scenario"]});
  EXPECT_EQ(replay.status, 0) << replay.out;
}

// --sequence-start: every run starts its recipe's directories there
// (without it, a quarter of the runs start near 2^31).
TEST(CliMatrix, SequenceStartFixesWhereTheCountersStartAndSaysSo) {
  TempDir d;
  const std::vector<std::string> a{"matrix", "--budget", "60", "--recipes", "flawed/no-guid-lock", "--faults", "none",
                                   "--shrink-runs", "0", "--out", d.path()};
  Ran drawn = zksim(a);
  EXPECT_NE(drawn.out.find("sequences from 0 or near 2^31"), std::string::npos) << drawn.out;
  EXPECT_NE(drawn.out.find("violates progress under no faults"), std::string::npos) << drawn.out;
  std::vector<std::string> fresh = a;
  fresh.insert(fresh.end(), {"--sequence-start", "0"});
  Ran r = zksim(fresh);
  EXPECT_NE(r.out.find("fixed: sequences from 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("violates progress"), std::string::npos) << r.out;
  Ran fixed = zksim({"matrix", "--fixed", "--sequence-start", "5"});
  EXPECT_EQ(fixed.status, 2);
  EXPECT_EQ(lines(fixed.err), 1) << fixed.err;
}

TEST(CliMatrix, ReportsWakeUpsWithoutProgressPerRecipe) {
  TempDir d;
  // The herd lock wakes waiters for nothing without any fault.
  const std::vector<std::string> args{"matrix", "--budget", "8", "--recipes", "lock,flawed/herd-lock",
                                      "--faults", "none", "--out", d.path()};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  Ran j = zksim(json_args);
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = parse_json(j.out);
  std::int64_t summed = 0;
  for (const auto& c : doc["campaigns"]) {
    if (c["recipe"] == "flawed/herd-lock") summed += c["result"]["wakeups_without_progress"].get<std::int64_t>();
  }
  const nlohmann::json& herd = doc["recipes"][1];
  EXPECT_EQ(herd["wakeups_without_progress"].get<std::int64_t>(), summed);
  EXPECT_GT(summed, 0);
  EXPECT_LT(summed, herd["wakeups"].get<std::int64_t>());
  Ran text = zksim(args);
  EXPECT_NE(text.out.find("wake-ups without progress (measured, not judged)"), std::string::npos) << text.out;
  const std::string line = std::to_string(summed) + " of " + std::to_string(herd["wakeups"].get<std::int64_t>()) +
                           " wake-ups";
  EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
}

TEST(CliMatrix, AFlawedRecipeNotCaughtExits1) {
  // The no-GUID lock only goes wrong when a create's reply is lost: with no
  // faults nothing catches it.
  TempDir d;
  Ran r = zksim({"matrix", "--budget", "5", "--recipes", "flawed/no-guid-lock", "--faults", "none", "--out", d.path()});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("NOT CAUGHT (liveness)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": FAILED"), std::string::npos) << r.out;
  Ran caught = zksim({"matrix", "--budget", "20", "--recipes", "flawed/no-guid-lock", "--faults", "drop-after-apply",
                      "--out", d.path()});
  EXPECT_EQ(caught.status, 0) << caught.out;
}

TEST(CliMatrix, WorkersGiveTheSameMatrix) {
  TempDir d;
  const std::vector<std::string> args{"matrix", "--budget", runs(24), "--recipes", "rw-lock,flawed/forgetful-lock",
                                      "--out", d.path()};
  Ran one = zksim(args);
  std::vector<std::string> two = args;
  two.insert(two.end(), {"--jobs", "2"});
  Ran parallel = zksim(two);
  // Caught or not in so few runs (the sanitizers' smoke budget is 4), the
  // matrix is the same.
  EXPECT_NE(one.status, 2) << one.err;
  EXPECT_EQ(parallel.status, one.status);
  EXPECT_EQ(parallel.out, one.out);
}

TEST(CliMatrix, BadInputExits2WithOneLine) {
  const std::vector<std::vector<std::string>> cases{
      {"matrix", "--recipes", "lock,nope"}, {"matrix", "--faults", "meteor"}, {"matrix", "--budget", "-1"},
      {"matrix", "extra"}, {"matrix", "--json", "--json"}};
  for (const auto& args : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << args.back() << ": " << r.err;
  }
}

}  // namespace
}  // namespace zksim::cli_test
