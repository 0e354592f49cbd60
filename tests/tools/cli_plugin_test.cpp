// Plugins on the command line: `--plugin FILE` loads a shared library of
// recipes for every command, a scenario file names the plugin it needs, and
// a plugin that is missing or built against other headers is one line and
// exit 2.
#include "cli.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace zksim::cli_test {
namespace {

const std::string kPlugin = ZKSIM_TEST_PLUGIN;
const std::string kOtherAbi = ZKSIM_OTHER_ABI_PLUGIN;

TEST(CliPlugin, ListShowsAPluginsRecipes) {
  Ran r = zksim({"list", "--plugin", kPlugin});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("recipe plugin/lock correct checks mutual-exclusion"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recipe plugin/polling-lock flawed"), std::string::npos) << r.out;
  Ran json = zksim({"list", "--plugin", kPlugin, "--json"});
  EXPECT_NE(json.out.find(std::filesystem::canonical(kPlugin).string()), std::string::npos);
}

TEST(CliPlugin, ExploreCatchesAPluginsFlawAndItsFileReplaysWithoutTheOption) {
  TempDir d;
  // Under its own nemesis (zksim list: pauses, 600 ms holds), every run
  // the same: the default search's 3 s holds make a poller's runs long
  // (many minutes under the sanitizers).
  // Under the sanitizers a few shrinking runs drive the same code.
  Ran r = zksim({"explore", "--plugin", kPlugin, "--recipe", "plugin/polling-lock", "--fixed", "--faults", "pause",
                 "--rate", "30", "--hold-ms", "600", "--runs", runs(300), "--shrink-runs",
                 std::to_string(test::full_or_smoke(200, 10)), "--out", d.path()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION mutual-exclusion"), std::string::npos) << r.out;
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(d.path())) {
    if (e.path().filename().string().starts_with("plugin-polling-lock.mutual-exclusion")) file = e.path().string();
  }
  ASSERT_FALSE(file.empty());
  EXPECT_NE(read_file(file).find("\nplugin " + std::filesystem::canonical(kPlugin).string() + "\n"), std::string::npos);
  Ran replay = zksim({"replay", file});
  EXPECT_EQ(replay.status, 0) << replay.err;
}

TEST(CliPlugin, APluginsCorrectRecipeHoldsUnderFaultsWithWorkers) {
  Ran r = zksim({"explore", "--plugin", kPlugin, "--recipe", "plugin/lock", "--faults", "pause,any-time", "--runs",
                 runs(100), "--jobs", "2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // (Shrinking the flawed polling lock's finding is most of the work: under
  // the sanitizers a few shrinking runs drive the same code.)
  Ran m = zksim({"matrix", "--plugin", kPlugin, "--recipes", "plugin/lock,plugin/polling-lock", "--budget", runs(40),
                 "--faults", "none,pause", "--shrink-runs", std::to_string(test::full_or_smoke(500, 5))});
  EXPECT_EQ(m.status, 0) << m.out << m.err;
}

TEST(CliPlugin, AMissingPluginIsOneLineAndExit2) {
  Ran r = zksim({"explore", "--plugin", "/nonexistent/libnothing.so", "--recipe", "lock"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "zksim explore --plugin: /nonexistent/libnothing.so: no such plugin file\n");
}

TEST(CliPlugin, APluginBuiltForAnotherAbiIsRefused) {
  Ran r = zksim({"run", "--plugin", kOtherAbi, library_dir()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("built for plugin ABI 999, this zksim has "), std::string::npos) << r.err;
}

TEST(CliPlugin, AScenarioFileNamesThePluginItNeeds) {
  TempDir d;
  const std::string dir = std::filesystem::path(kPlugin).parent_path().string();
  const std::string ok = d.write("ok.scn", "zksim-scenario 2\nplugin " + kPlugin +
                                               "\nrecipe plugin/lock\nclients 3\nrounds 2\nseed 1\nexpect pass\n");
  Ran r = zksim({"run", ok});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string missing = d.write("missing.scn", "zksim-scenario 2\nrecipe lock\nplugin libgone.so\n");
  Ran m = zksim({"run", missing});
  EXPECT_EQ(m.status, 2);
  EXPECT_EQ(m.err, missing + ":3:8: " + d.path() + "/libgone.so: no such plugin file\n");
  const std::string without = d.write("without.scn", "zksim-scenario 2\nrecipe plugin/lock\n");
  Ran w = zksim({"run", without});
  EXPECT_EQ(w.status, 2);
  EXPECT_NE(w.err.find("unknown recipe 'plugin/lock'"), std::string::npos) << w.err;
}

}  // namespace
}  // namespace zksim::cli_test
