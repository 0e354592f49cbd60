// The lease locks on the command line: the matrix's lease table and
// `zksim lease`, which replays one of its cells.
#include "cli.h"

#include <gtest/gtest.h>

namespace zksim::cli_test {
namespace {

std::string lease_recipes() {
  std::string out;
  const nlohmann::json list = parse_json(zksim({"list", "--json"}).out);
  for (const auto& r : list["lease_recipes"]) {
    out += (out.empty() ? "" : ",") + r["name"].get<std::string>();
  }
  return out;
}

TEST(CliLease, TheMatrixHasARowPerLeaseLockAndExitsAsItsRowsSay) {
  Ran r = zksim({"matrix", "--recipes", lease_recipes(), "--budget", runs(40)});
  ASSERT_NE(r.status, 2) << r.err;
  bool all_ok = true;
  const nlohmann::json list = parse_json(zksim({"list", "--json"}).out);
  for (const auto& recipe : list["lease_recipes"]) {
    const std::string name = recipe["name"];
    const auto row = r.out.find("\n" + name + " ");
    ASSERT_NE(row, std::string::npos) << name << " has no row\n" << r.out;
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    if (recipe["flawed"].get<bool>()) {
      EXPECT_TRUE(line.ends_with("caught (" + recipe["breaks"].get<std::string>() + ")")) << line;
      all_ok = all_ok && line.ends_with(")");
    } else {
      EXPECT_EQ(line.find("VIOLATED"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(r.status, all_ok ? 0 : 1) << r.out;
  EXPECT_NE(r.out.find("lease summary: "), std::string::npos) << r.out;
}

TEST(CliLease, AnUnfencedLockLosesTheResourceUnderPausesAndItsFencedTwinDoesNot) {
  Ran r = zksim({"matrix", "--recipes", "etcd-mutex,etcd-mutex-fenced", "--faults", "pause", "--budget", runs(60)});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\netcd-mutex         r      safe only with fencing\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\netcd-mutex-fenced  ok     fenced: safe\n"), std::string::npos) << r.out;
}

TEST(CliLease, ACellReplaysWithItsTraceAndVerdict) {
  Ran r = zksim({"lease", "--recipe", "flawed/redis-del-unlock", "--faults", "lost-reply", "--seed", "1"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("LOST belief-exclusion: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> redis0 DEL lock"), std::string::npos) << r.out;
  Ran again = zksim({"lease", "--recipe", "flawed/redis-del-unlock", "--faults", "lost-reply", "--seed", "1"});
  EXPECT_EQ(again.out, r.out);
  Ran ok = zksim({"lease", "--recipe", "etcd-mutex-fenced", "--faults", "pause", "--seed", "1"});
  EXPECT_EQ(ok.status, 0) << ok.out;
}

TEST(CliLease, BadInputIsOneLineAndExit2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"lease"}, {"lease", "--recipe", "lock"}, {"lease", "--recipe", "redlock", "--faults", "partition"},
        {"lease", "--recipe", "redlock", "--seed", "x"}, {"matrix", "--recipes", "redlock,nope"}}) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args[1] << ": " << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
}

TEST(CliLease, AnOutputThatCannotBeWrittenIsRefusedBeforeTheRun) {
  const std::string dir = ::testing::TempDir();
  for (const std::string& place : {dir, dir + "/no/such/dir/run.scn"}) {
    Ran r = zksim({"lease", "--recipe", "redlock", "--save", place});
    EXPECT_EQ(r.status, 2) << place;
    EXPECT_TRUE(r.out.empty()) << "ran before refusing: " << r.out.substr(0, 200);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("zksim lease --save: cannot write " + place + ": "), std::string::npos) << r.err;
  }
}

TEST(CliLease, ASavedRunIsShrunkAndReplaysAsItsFileExpects) {
  TempDir dir;
  const std::string file = dir.file("etcd.scn");
  Ran r = zksim({"lease", "--recipe", "flawed/etcd-mutex-no-owner-check", "--faults", "keepalive-loss", "--seed", "1",
                 "--save", file, "--shrink-runs", "300"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("wrote " + file + " (expect violation belief-exclusion)"), std::string::npos) << r.out;
  const std::string text = read_file(file);
  EXPECT_NE(text.find("zksim-lease-scenario 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nseed "), std::string::npos) << text;  // shrunk: a decision list
  Ran replay = zksim({"replay", file});
  EXPECT_EQ(replay.status, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("|p0 "), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("verdict: violation belief-exclusion (expected violation belief-exclusion)\n"),
            std::string::npos)
      << replay.out;
  Ran run = zksim({"run", dir.path(), "--json"});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_EQ(parse_json(run.out)["files"][0]["verdict"], "violation belief-exclusion");
}

TEST(CliLease, ARunThatLostNothingIsSavedExpectingAPass) {
  TempDir dir;
  const std::string file = dir.file("ok.scn");
  Ran r = zksim({"lease", "--recipe", "etcd-mutex-fenced", "--seed", "2", "--save", file});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_file(file).find("\nseed 2\nexpect pass\n"), std::string::npos) << read_file(file);
  EXPECT_EQ(zksim({"replay", file}).status, 0);
}

TEST(CliLease, AMalformedLeaseScenarioIsFileLineColAndExit2) {
  TempDir dir;
  const std::string file = dir.write("bad.scn", "zksim-lease-scenario 1\nrecipe redlock\nfaults pause, restart\n");
  for (const char* command : {"replay", "run"}) {
    Ran r = zksim({command, file});
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.err, file + ":3:8: unknown lease fault class 'pause,' (known: none, pause, keepalive-loss, lost-reply, "
                            "lost-message, restart, clock-jump, clock-drift)\n")
        << command;
  }
}

TEST(CliLease, ALeaseScenarioDrawsAsAPageWithALanePerProcess) {
  TempDir dir;
  const std::string file = dir.write("ok.scn", "zksim-lease-scenario 1\nrecipe redlock\nseed 1\nexpect pass\n");
  Ran r = zksim({"timeline", file, "--html", dir.file("out.html")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("verdict: pass"), std::string::npos) << r.out;
  const std::string page = read_file(dir.file("out.html"));
  for (const char* lane : {"\"name\":\"p0\"", "\"name\":\"p1\"", "\"name\":\"p2\"", "\"name\":\"servers\""}) {
    EXPECT_NE(page.find(lane), std::string::npos) << lane;
  }
  EXPECT_EQ(page.find("\"kind\":\"znode\""), std::string::npos);
  EXPECT_NE(page.find("<title>zksim timeline: redlock \u2014 pass</title>"), std::string::npos);
}

}  // namespace
}  // namespace zksim::cli_test
