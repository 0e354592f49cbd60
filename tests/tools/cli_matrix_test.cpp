// zksim matrix, the main job: the default run, its JSON, the verdicts and
// exit statuses, workers, bad input.
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace zksim::cli_test {
namespace {

// The main job as the README runs it. Whether every correct recipe holds is
// the recipes' business (a violation found is a finding, and exit 1 says
// so); this checks that every recipe has a row, every flawed one is caught,
// every violation has a note with its scenario file, and the exit status
// agrees with the rows.
TEST(CliMatrix, TheDefaultMatrixCoversEveryRecipeAndExitsAsItsRowsSay) {
  TempDir d;
  Ran r = zksim({"matrix", "--out", d.path()});
  ASSERT_NE(r.status, 2) << r.err;
  nlohmann::json list = parse_json(zksim({"list", "--json"}).out);
  bool all_hold = true;
  for (const auto& recipe : list["recipes"]) {
    const std::string name = recipe["name"];
    const auto row = r.out.find("\n" + name + " ");
    ASSERT_NE(row, std::string::npos) << name << " has no row";
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    if (recipe["flawed"].get<bool>()) {
      EXPECT_TRUE(line.ends_with("caught (" + recipe["breaks"].get<std::string>() + ")")) << line;
    } else {
      EXPECT_TRUE(line.ends_with(" holds") || line.ends_with(" VIOLATED")) << line;
      all_hold = all_hold && line.ends_with(" holds");
    }
  }
  for (int n = 1; r.out.find(" X" + std::to_string(n) + " ") != std::string::npos; ++n) {
    EXPECT_NE(r.out.find("\nX" + std::to_string(n) + " "), std::string::npos) << "no note " << n;
  }
  EXPECT_EQ(r.status, all_hold ? 0 : 1) << r.out;
  EXPECT_NE(r.out.find(all_hold ? "flawed recipes caught by the property they break: OK"
                                : "flawed recipes caught by the property they break: FAILED"),
            std::string::npos) << r.out;
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
  EXPECT_EQ(doc["campaigns"].size(), 2u * 7u);  // no faults and each of the six classes
  EXPECT_EQ(doc["runs"], 2 * 7 * 8);
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

TEST(CliMatrix, AFlawedRecipeNotCaughtExits1) {
  // The no-GUID lock only goes wrong when a create's reply is lost: with no
  // faults nothing catches it.
  TempDir d;
  Ran r = zksim({"matrix", "--budget", "5", "--recipes", "flawed/no-guid-lock", "--faults", "none", "--out", d.path()});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("NOT CAUGHT (liveness)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": FAILED"), std::string::npos) << r.out;
  Ran caught = zksim({"matrix", "--budget", "5", "--recipes", "flawed/no-guid-lock", "--faults", "drop-after-apply",
                      "--out", d.path()});
  EXPECT_EQ(caught.status, 0) << caught.out;
}

TEST(CliMatrix, WorkersGiveTheSameMatrix) {
  TempDir d;
  const std::vector<std::string> args{"matrix", "--budget", "12", "--recipes", "rw-lock,flawed/forgetful-lock",
                                      "--out", d.path()};
  Ran one = zksim(args);
  std::vector<std::string> two = args;
  two.insert(two.end(), {"--jobs", "2"});
  Ran parallel = zksim(two);
  EXPECT_EQ(one.status, 0) << one.out;
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
