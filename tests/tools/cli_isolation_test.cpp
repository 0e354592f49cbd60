// A recipe that crashes or leaks does not take the campaign with it: each
// crash is a "crashed" verdict with its scenario file, which shrinks and
// replays; a leak is reported and its child processes replaced; a child
// killed from outside stops the command at once with exit status 3.
#include "cli.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace zksim::cli_test {
namespace {

const std::string kPlugin = ZKSIM_MISBEHAVING_PLUGIN;

struct Misdeed {
  const char* recipe;
  const char* how;  // what the verdict says of the crash
  const char* name;  // the test's
};

void PrintTo(const Misdeed& m, std::ostream* os) { *os << m.recipe; }

class CrashIsAVerdict : public ::testing::TestWithParam<Misdeed> {};

TEST_P(CrashIsAVerdict, AndTheCampaignGoesOnAndItsFileReplaysTheCrash) {
  const Misdeed m = GetParam();
  TempDir d;
  Ran r = zksim({"explore", "--plugin", kPlugin, "--recipe", m.recipe, "--runs", "30", "--shrink-runs", "60", "--out",
                 d.path(), "--json"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  const nlohmann::json doc = parse_json(r.out);
  EXPECT_EQ(doc["runs"], 30) << "the campaign stopped at the crash";
  const nlohmann::json* crashed = nullptr;
  for (const auto& v : doc["violations"]) {
    if (v["property"] == "crashed") crashed = &v;
  }
  ASSERT_NE(crashed, nullptr) << r.out;
  EXPECT_LT((*crashed)["runs"].get<int>(), 30) << "every run crashed: the plugin crashes in some grants only";
  EXPECT_NE((*crashed)["message"].get<std::string>().find(m.how), std::string::npos) << (*crashed)["message"];
  const std::string file = (*crashed)["scenario"];
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_NE(read_file(file).find("expect violation crashed\n"), std::string::npos) << read_file(file);
  Ran again = zksim({"run", file});
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("ok    " + file + ": violation crashed"), std::string::npos) << again.out;
}

INSTANTIATE_TEST_SUITE_P(Misbehaving, CrashIsAVerdict,
                         ::testing::Values(Misdeed{"misbehaving/segv-lock", "SIGSEGV", "Segv"},
                                           Misdeed{"misbehaving/abort-lock", "SIGABRT", "Abort"},
                                           Misdeed{"misbehaving/throw-lock",
                                                   "exception std::runtime_error: the recipe gave up", "Throw"},
                                           Misdeed{"misbehaving/exit-lock", "exit status 7", "Exit"}),
                         [](const ::testing::TestParamInfo<Misdeed>& i) { return std::string(i.param.name); });

TEST(Isolation, ResultsWithCrashesAreTheSameForAnyNumberOfJobs) {
  TempDir d;
  const std::vector<std::string> base{"explore", "--plugin", kPlugin, "--recipe", "misbehaving/segv-lock", "--runs",
                                      "40", "--shrink-runs", "0", "--out", d.path(), "--json"};
  std::vector<std::string> two = base;
  two.insert(two.end(), {"--jobs", "2"});
  nlohmann::json one = parse_json(zksim(base).out), both = parse_json(zksim(two).out);
  EXPECT_EQ(one["violations"], both["violations"]);
  EXPECT_EQ(one["runs"], both["runs"]);
}

TEST(Isolation, ALeakIsReportedAndItsChildReplaced) {
  // 32 MB a run: a child grows past 256 MB in about eight.
  Ran r = zksim({"explore", "--plugin", kPlugin, "--recipe", "misbehaving/leak-lock", "--fixed", "--runs", "24", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json doc = parse_json(r.out);
  EXPECT_EQ(doc["runs"], 24);
  ASSERT_TRUE(doc.contains("memory")) << r.out;
  EXPECT_GE(doc["memory"]["recycled"].get<int>(), 1);
  EXPECT_GT(doc["memory"]["largest_growth_bytes"].get<std::uint64_t>(), 256ull << 20);
  Ran text = zksim({"explore", "--plugin", kPlugin, "--recipe", "misbehaving/leak-lock", "--fixed", "--runs", "24"});
  EXPECT_NE(text.out.find("memory: the recipe's runs grew a child process by "), std::string::npos) << text.out;
}

// The children of a `zksim` process: those whose parent is `pid`.
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = read_file(e.path().string() + "/stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int parent = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &parent) == 2 && parent == pid) {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

TEST(Isolation, AChildKilledFromOutsideStopsTheCommandAtOnceWithItsOwnStatus) {
  TempDir d;
  const std::string err = d.path() + "/err";
  const pid_t zk = fork();
  ASSERT_GE(zk, 0);
  if (zk == 0) {
    freopen("/dev/null", "w", stdout);
    freopen(err.c_str(), "w", stderr);
    execl(ZKSIM_BINARY, "zksim", "explore", "--recipe", "lock", "--time", "600", "--jobs", "2", "--out",
          d.path().c_str(), nullptr);
    _exit(127);
  }
  // Waits (as long as it takes: a loaded machine is slow to fork) for the
  // two children making runs, then kills one.
  std::vector<pid_t> kids;
  while ((kids = children_of(zk)).size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(kids[0], SIGKILL);
  int status = 0;
  waitpid(zk, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string said = read_file(err);
  EXPECT_EQ(lines(said), 1) << said;
  EXPECT_NE(said.find("zksim explore: a child process making runs was killed (SIGKILL) in run "), std::string::npos)
      << said;
  EXPECT_NE(said.find(" of lock (shard 0/1)"), std::string::npos) << said;
}

}  // namespace
}  // namespace zksim::cli_test
