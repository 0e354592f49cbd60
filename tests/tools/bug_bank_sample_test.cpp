// The CI sample of scripts/bug_bank.sh (label bug-bank): bugs of the bank
// (tools/bug_bank/) that need no fault, each caught by `zksim explore` with
// no option but the run budget (and where its files go).
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

namespace zksim::cli_test {
namespace {

const std::string kBank = ZKSIM_BUG_BANK;

class BugBankSample : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(BugBankSample, TheDefaultSearchCatchesIt) {
  const auto& [bug, property] = GetParam();
  TempDir d;
  Ran r = zksim({"explore", "--plugin", kBank, "--recipe", bug, "--runs", "200", "--shrink-runs", "0", "--out", d.path(),
                 "--json"});
  EXPECT_EQ(r.status, 1) << r.err;
  const nlohmann::json report = parse_json(r.out);
  bool caught = false;
  for (const auto& v : report["violations"]) caught = caught || v["property"] == property;
  EXPECT_TRUE(caught) << bug << " not caught breaking " << property << ":\n" << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    BugBank, BugBankSample,
    ::testing::Values(std::pair{std::string("bank/zk-3162-c-lock-predecessor"), std::string("liveness")},
                      std::pair{std::string("bank/kazoo-352-queue-stale-children"), std::string("liveness")},
                      std::pair{std::string("bank/kazoo-649-rw-deadlock"), std::string("liveness")}),
    [](const auto& info) {
      std::string name = info.param.first.substr(5);
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

}  // namespace
}  // namespace zksim::cli_test
