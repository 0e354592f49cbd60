// The bug bank (tools/bug_bank/): the plugin loads and registers every bug
// it ports, each as a flawed recipe breaking a property zksim checks
// (bug_bank_sample_test.cpp catches a few; scripts/bug_bank.sh all).
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

namespace zksim::cli_test {
namespace {

const std::string kBank = ZKSIM_BUG_BANK;

// Every bug the bank ports (tools/bug_bank/README.md), and its correct mutex.
const std::set<std::string> kBugs = {
    "bank/zk-2931-writelock-order",
    "bank/zk-writelock-vanished-predecessor",
    "bank/zk-3162-c-lock-predecessor",
    "bank/kazoo-herd-first-predecessor",
    "bank/kazoo-exists-creation-watch",
    "bank/kazoo-732-nonblocking-cleanup",
    "bank/kazoo-649-rw-deadlock",
    "bank/kazoo-213-nonblocking-semaphore",
    "bank/kazoo-352-queue-stale-children",
    "bank/kazoo-366-lockingqueue-taken-leak",
    "bank/curator-276-rw-downgrade",
    "bank/curator-115-latch-deleted-is-leader",
    "bank/curator-18-latch-close-race",
    "bank/curator-652-latch-double-leader",
    "bank/curator-1290-ddb-notified-enter",
    "bank/curator-536-ddb-leave-loop",
    "bank/curator-318-ddb-timeout-leftover",
    "bank/curator-315-semaphore-orphan",
    "bank/curator-604-mutex-old-session-node",
};
const std::string kMutex = "bank/curator42-mutex-owner-checked";

nlohmann::json bank_recipes() {
  Ran r = zksim({"list", "--plugin", kBank, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  nlohmann::json out = nlohmann::json::array();
  nlohmann::json all = parse_json(r.out);
  for (const auto& recipe : all["recipes"]) {
    if (recipe["name"].get<std::string>().starts_with("bank/")) out.push_back(recipe);
  }
  return out;
}

TEST(BugBank, ListShowsEveryBugAndTheMutex) {
  Ran r = zksim({"list", "--plugin", kBank});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string& bug : kBugs) {
    EXPECT_NE(r.out.find("recipe " + bug + " flawed"), std::string::npos) << bug << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("recipe " + kMutex + " correct"), std::string::npos) << r.out;
  std::set<std::string> listed;
  for (const auto& recipe : bank_recipes()) listed.insert(recipe["name"].get<std::string>());
  std::set<std::string> expected = kBugs;
  expected.insert(kMutex);
  EXPECT_EQ(listed, expected);
}

TEST(BugBank, EveryBugIsFlawedBreakingAPropertyZksimChecks) {
  Ran r = zksim({"list", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json known = parse_json(r.out)["properties"];
  for (const auto& recipe : bank_recipes()) {
    const std::string name = recipe["name"];
    if (name == kMutex) {
      EXPECT_FALSE(recipe["flawed"].get<bool>());
      continue;
    }
    ASSERT_TRUE(recipe["flawed"].get<bool>()) << name;
    const std::string breaks = recipe["breaks"];
    EXPECT_NE(std::find(known.begin(), known.end(), breaks), known.end()) << name << " breaks " << breaks;
    const auto& checks = recipe["properties"];
    EXPECT_NE(std::find(checks.begin(), checks.end(), breaks), checks.end())
        << name << " breaks " << breaks << ", which its family does not check";
  }
}

// Curator's contract leaves which errors an acquire fails with to Curator
// (honest-expiry is zksim's own contract); a loss is still heeded.
TEST(BugBank, TheMutexIsJudgedByCuratorsContract) {
  for (const auto& recipe : bank_recipes()) {
    if (recipe["name"] != kMutex) continue;
    const auto& checks = recipe["properties"];
    EXPECT_EQ(std::find(checks.begin(), checks.end(), "honest-expiry"), checks.end()) << checks;
    EXPECT_NE(std::find(checks.begin(), checks.end(), "holds-after-loss"), checks.end()) << checks;
    EXPECT_NE(std::find(checks.begin(), checks.end(), "mutual-exclusion"), checks.end()) << checks;
    return;
  }
  ADD_FAILURE() << kMutex << " is not listed";
}

// The mutex states Curator's contract (Contract::Listener): a grant that
// returns while its caller has heard SUSPENDED is counted, not judged, and
// the count survives a merge. Three of the first 200 runs of the default
// search have one.
TEST(BugBank, TheMutexsGrantsWhileSuspendedAreCountedNotJudged) {
  TempDir d;
  const std::vector<std::string> run = {"explore", "--plugin", kBank, "--recipe", kMutex, "--runs", "200",
                                        "--shrink-runs", "0", "--out", d.path(), "--json"};
  Ran j = zksim(run);
  ASSERT_NE(j.status, 2) << j.err;
  const nlohmann::json report = parse_json(j.out);
  const nlohmann::json counted = report["granted_while_suspended"];
  ASSERT_TRUE(counted.is_object()) << j.out;
  const std::int64_t grants = counted["grants"], runs = counted["runs"];
  EXPECT_GE(grants, runs);
  EXPECT_GT(runs, 0);
  Ran merged = zksim({"merge", "--plugin", kBank, d.write("r.json", j.out)});
  EXPECT_NE(merged.out.find("granted while suspended: " + std::to_string(grants) + " in " + std::to_string(runs) +
                            " runs (the library's contract: held from RECONNECTED; not judged)"),
            std::string::npos)
      << merged.out << merged.err;
}

}  // namespace
}  // namespace zksim::cli_test
