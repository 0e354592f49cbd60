// The scenario file format: parsing, writing back, replay, and every error
// reported as file:line:col: message.
#include "zksim/scenarios/scenario.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace zksim::scenarios {
namespace {

const char* kExample = R"(# two clients, one lost create reply
zksim-scenario 1
recipe lock
clients 2
rounds 3
hold-ms 5   # ms in the critical section
nemesis pause 30
nemesis-pause-ms 3000
fault drop-after-apply client 0 on create nth 1
fault expire-session client 1 at 1200
seed 42
expect pass
)";

std::string error_of(const std::string& text) {
  ParseError e;
  auto s = parse_scenario(text, "t.scn", &e);
  return s ? "" : e.text();
}

TEST(ScenarioFile, ParsesEveryDirective) {
  ParseError e;
  auto s = parse_scenario(kExample, "x.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->workload.recipe, "lock");
  EXPECT_EQ(s->workload.clients, 2);
  EXPECT_EQ(s->workload.rounds, 3);
  EXPECT_EQ(s->config.nemesis.per_mille[static_cast<int>(FaultKind::Pause)], 30u);
  EXPECT_EQ(s->config.nemesis.pause_ms, 3000);
  ASSERT_EQ(s->faults.size(), 2u);
  EXPECT_EQ(s->faults[0].kind, FaultKind::DropAfterApply);
  EXPECT_EQ(s->faults[0].on->kind, request_kind<CreateRequest>);
  EXPECT_EQ(*s->faults[1].at, 1200);
  EXPECT_EQ(*s->seed, 42u);
  EXPECT_FALSE(s->expect_violation);
  EXPECT_EQ(s->comments, std::vector<std::string>{"two clients, one lost create reply"});
}

// The writer puts `expect` last: a file that ends before it was cut off,
// and one with directives after it was pieced together.
TEST(ScenarioFile, AFileEndsWithItsExpectLine) {
  EXPECT_EQ(error_of("zksim-scenario 2\nrecipe lock\nseed 3\n"),
            "t.scn:3:1: the file ends without an 'expect' line (cut off?): a scenario ends with 'expect pass' or "
            "'expect violation PROPERTY'");
  EXPECT_EQ(error_of("zksim-scenario 2\nrecipe lock\nexpect pass\nseed 3\n"),
            "t.scn:4:1: 'seed' after the 'expect' line (line 3), which ends a scenario");
  std::string whole = kExample;
  EXPECT_EQ(error_of(whole.substr(0, whole.find("expect"))).substr(0, 6), "t.scn:");
  EXPECT_EQ(error_of(whole + "# a comment after it\n\n"), "");
}

TEST(ScenarioFile, AClientListIsSpelledWithCommasOrBlanks) {
  for (const char* line : {"client c curator kazoo", "client c,curator,kazoo", "client c, curator kazoo"}) {
    ParseError e;
    auto s = parse_scenario(fmt::format("zksim-scenario 2\nrecipe lock\n{}\nexpect pass\n", line), "t.scn", &e);
    ASSERT_TRUE(s) << line << ": " << e.text();
    EXPECT_EQ(s->workload.flavours, (std::vector<Flavour>{Flavour::C, Flavour::Curator, Flavour::Kazoo})) << line;
  }
  EXPECT_EQ(error_of("zksim-scenario 2\nrecipe lock\nclient c zkpython\nexpect pass\n"),
            "t.scn:3:10: unknown client flavour 'zkpython' (known: any, c, curator, kazoo; a list is 'c,curator' or "
            "'c curator')");
}

TEST(ScenarioFile, WritingAndParsingAgainGivesTheSameFile) {
  auto s = parse_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  s->decisions = {0, 3, 1, 0, 7};
  s->expect_violation = "mutual-exclusion";
  std::string text = write_scenario(*s);
  auto again = parse_scenario(text, "y.scn", nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(write_scenario(*again), text);
}

TEST(ScenarioFile, ReplayingTwiceGivesTheSameTraceHash) {
  auto s = parse_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  ScenarioRun a = run_scenario(*s), b = run_scenario(*s);
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_TRUE(a.as_expected) << a.verdict;
}

TEST(ScenarioFile, AFileWithoutServersRunsOneServerAndIsWrittenWithout) {
  auto s = parse_scenario(kExample, "x.scn", nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->config.servers, 1);
  EXPECT_EQ(write_scenario(*s).find("servers"), std::string::npos);
}

TEST(ScenarioFile, ServersAreReadWrittenAndRunAnEnsemble) {
  std::string text = kExample;
  text.insert(text.find("expect"), "servers 3\nfollower-lag-ms 7\n");
  ParseError e;
  auto s = parse_scenario(text, "x.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->config.servers, 3);
  EXPECT_EQ(s->config.follower_lag_ms, 7);
  const std::string written = write_scenario(*s);
  EXPECT_NE(written.find("\nservers 3\nfollower-lag-ms 7\n"), std::string::npos) << written;
  auto again = parse_scenario(written, "y.scn", nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(write_scenario(*again), written);
  ScenarioRun a = run_scenario(*s), b = run_scenario(*s);
  EXPECT_TRUE(a.as_expected) << a.verdict;
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  // The followers' lags are decisions of their own: not the one-server run.
  EXPECT_NE(a.result.trace_hash, run_scenario(*parse_scenario(kExample, "x.scn", nullptr)).result.trace_hash);
  EXPECT_EQ(error_of("zksim-scenario 2\nservers 0\n").substr(0, 11), "t.scn:2:9: ");
}

TEST(ScenarioFile, ExpectedViolationIsMatchedByProperty) {
  std::string text = R"(zksim-scenario 1
recipe flawed/prefix-write-lock
clients 4
rounds 4
expect violation mutual-exclusion
)";
  auto s = parse_scenario(text, "p.scn", nullptr);
  ASSERT_TRUE(s);
  // The first seed whose run shows it; the same on every run.
  std::uint64_t found = 0;
  for (std::uint64_t seed = 1; seed <= 50 && !found; ++seed) {
    s->seed = seed;
    ScenarioRun r = run_scenario(*s);
    if (r.as_expected) {
      found = seed;
      EXPECT_EQ(r.verdict, "violation mutual-exclusion");
    }
  }
  EXPECT_NE(found, 0u);
  s->workload.recipe = "lock";
  EXPECT_FALSE(run_scenario(*s).as_expected);  // the correct lock does not show it
}

TEST(ScenarioFile, ProducersAreReadAndWritten) {
  const char* text = R"(zksim-scenario 1
recipe locking-queue
clients 4
producers 3
seed 5
expect pass
)";
  ParseError e;
  auto s = parse_scenario(text, "q.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->workload.recipe, "locking-queue");
  EXPECT_EQ(s->workload.producers, 3);
  std::string written = write_scenario(*s);
  EXPECT_NE(written.find("\nproducers 3\n"), std::string::npos) << written;
  auto again = parse_scenario(written, "q2.scn", nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->workload.producers, 3);
  // Without the directive: one producer.
  auto defaults = parse_scenario("zksim-scenario 1\nrecipe queue\nclients 1\nexpect pass\n", "d.scn", nullptr);
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->workload.producers, 1);
}

// Directories there before the run, with their counter near the wrap; a
// file without the line starts from new directories, as before the line.
TEST(ScenarioFile, ASequenceStartIsReadWrittenAndRun) {
  ParseError e;
  auto s = parse_scenario("zksim-scenario 2\nrecipe lock\nclients 2\nrounds 3\nsequence-start 2147483645\nexpect pass\n",
                          "w.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->workload.sequence_start, 2147483645);
  const std::string written = write_scenario(*s);
  EXPECT_NE(written.find("\nsequence-start 2147483645\n"), std::string::npos) << written;
  const ScenarioRun r = run_scenario(*s);
  EXPECT_TRUE(r.as_expected) << r.verdict;
  EXPECT_TRUE(std::any_of(r.result.trace.begin(), r.result.trace.end(),
                          [](const TraceEvent& ev) { return ev.path.ends_with("-2147483647"); }));
  auto plain = parse_scenario("zksim-scenario 2\nrecipe lock\nexpect pass\n", "p.scn", nullptr);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->workload.sequence_start, 0);
  EXPECT_EQ(write_scenario(*plain).find("sequence-start"), std::string::npos);
  EXPECT_EQ(error_of("zksim-scenario 2\nsequence-start 2147483648\n"),
            "t.scn:2:16: '2147483648' is not a number from -2147483648 to 2147483647");
}

TEST(ScenarioFile, TimedFaultClassesAndFaultsOnAllClientsAreReadAndWritten) {
  const std::string text =
      "zksim-scenario 1\nrecipe lock\nclients 3\nnemesis any-time 20\nnemesis blip-all 10\nnemesis burst 5\n"
      "fault drop-before-apply client all at 700\nexpect pass\n";
  ParseError e;
  auto s = parse_scenario(text, "t.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->config.nemesis.per_mille[static_cast<int>(TimedFault::AnyTime)], 20u);
  EXPECT_EQ(s->config.nemesis.per_mille[static_cast<int>(TimedFault::BlipAll)], 10u);
  EXPECT_EQ(s->config.nemesis.per_mille[static_cast<int>(TimedFault::Burst)], 5u);
  ASSERT_EQ(s->faults.size(), 1u);
  EXPECT_EQ(s->faults[0].client, kAllClients);
  const std::string written = write_scenario(*s);
  EXPECT_NE(written.find("nemesis blip-all 10\n"), std::string::npos) << written;
  EXPECT_NE(written.find("fault drop-before-apply client all at 700"), std::string::npos) << written;
  auto again = parse_scenario(written, "w.scn", &e);
  ASSERT_TRUE(again) << e.text();
  EXPECT_EQ(write_scenario(*again), written);
}

// Version 2 leaves the time-triggered windows to the harness (0: sized to
// the workload's round) and opens the first at once; a version 1 file meant
// a window a second from the first second, and replays so.
TEST(ScenarioFile, Version1FilesKeepTheirTimedWindowOfASecond) {
  const std::string body = "recipe lock\nclients 3\nnemesis any-time 20\nexpect pass\n";
  auto v1 = parse_scenario("zksim-scenario 1\n" + body, "t.scn", nullptr);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->config.nemesis.window_ms, 1000);
  EXPECT_EQ(v1->config.nemesis.first_window_ms, 1000);
  auto v2 = parse_scenario("zksim-scenario 2\n" + body, "t.scn", nullptr);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->config.nemesis.window_ms, 0);
  EXPECT_EQ(v2->config.nemesis.first_window_ms, 0);
  // Written again (as version 2), the first says what it meant.
  const std::string written = write_scenario(*v1);
  EXPECT_NE(written.find("zksim-scenario 2\n"), std::string::npos) << written;
  EXPECT_NE(written.find("nemesis-window-ms 1000\nnemesis-first-window-ms 1000\n"), std::string::npos) << written;
  auto again = parse_scenario(written, "w.scn", nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->config.nemesis.window_ms, 1000);
  EXPECT_EQ(again->config.nemesis.first_window_ms, 1000);
  // Without a time-triggered class there is no window to speak of.
  auto plain = parse_scenario("zksim-scenario 1\nrecipe lock\nnemesis pause 20\nexpect pass\n", "t.scn", nullptr);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->config.nemesis.window_ms, 0);
  EXPECT_EQ(write_scenario(*plain).find("window"), std::string::npos);
}

TEST(ScenarioFile, ClientAnyDrawsEachRunsLibrariesAndIsWrittenBack) {
  auto s = parse_scenario("zksim-scenario 2\nrecipe lock\nclient any\nexpect pass\n", "t.scn", nullptr);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->workload.draw_flavours);
  EXPECT_EQ(s->workload.flavours, std::vector<Flavour>{Flavour::C});
  EXPECT_NE(write_scenario(*s).find("\nclient any\n"), std::string::npos) << write_scenario(*s);
  EXPECT_EQ(error_of("zksim-scenario 2\nclient any c\n"),
            "t.scn:2:12: 'any' stands alone: each run draws every client's library");
}

TEST(ScenarioFile, TimedWindowsAreReadAndWritten) {
  auto s = parse_scenario("zksim-scenario 2\nrecipe lock\nnemesis burst 5\nnemesis-window-ms 40\n"
                          "nemesis-first-window-ms 7\nexpect pass\n", "t.scn", nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->config.nemesis.window_ms, 40);
  EXPECT_EQ(s->config.nemesis.first_window_ms, 7);
  const std::string written = write_scenario(*s);
  EXPECT_NE(written.find("nemesis-window-ms 40\nnemesis-first-window-ms 7\n"), std::string::npos) << written;
  EXPECT_EQ(error_of("zksim-scenario 2\nnemesis-window-ms 0\n"), "t.scn:2:19: '0' is not a number from 1 to 86400000");
  EXPECT_EQ(error_of("zksim-scenario 2\nnemesis-window-ms 5\nnemesis-window-ms 5\n"),
            "t.scn:3:1: 'nemesis-window-ms' given twice (first on line 2)");
}

TEST(ScenarioFileErrors, AFaultOnAllClientsNeedsATime) {
  EXPECT_EQ(error_of("zksim-scenario 1\nrecipe lock\nfault drop-before-apply client all on create\n"),
            "t.scn:3:36: a fault on 'client all' needs 'at <ms>'");
}

// How a run was found is written down; the run itself is the file's config
// and decisions, the same with or without the line.
TEST(ScenarioFile, StrategyIsRecordedAndReplays) {
  const std::string body = "zksim-scenario 1\nrecipe lock\nclients 2\nrounds 2\ndelay-choices 1\n";
  ParseError e;
  auto s = parse_scenario(body + "strategy fixed-latency\nseed 7\nexpect pass\n", "f.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->strategy, Strategy::FixedLatency);
  const std::string written = write_scenario(*s);
  EXPECT_NE(written.find("\nstrategy fixed-latency\n"), std::string::npos) << written;
  auto again = parse_scenario(written, "g.scn", nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->strategy, Strategy::FixedLatency);
  EXPECT_EQ(write_scenario(*again), written);
  auto plain = parse_scenario(body + "seed 7\nexpect pass\n", "p.scn", nullptr);
  ASSERT_TRUE(plain);
  EXPECT_EQ(run_scenario(*again).result.trace_hash, run_scenario(*plain).result.trace_hash);
  // Random is the default, and not written.
  EXPECT_EQ(plain->strategy, Strategy::Random);
  EXPECT_EQ(write_scenario(*plain).find("strategy"), std::string::npos);
  // A dfs schedule is a decision list.
  auto dfs = parse_scenario(body + "strategy dfs\ndecisions 0 2 1\nexpect pass\n", "d.scn", &e);
  ASSERT_TRUE(dfs) << e.text();
  EXPECT_EQ(dfs->strategy, Strategy::Dfs);
  EXPECT_NE(write_scenario(*dfs).find("\nstrategy dfs\ndecisions 0 2 1\n"), std::string::npos) << write_scenario(*dfs);
}

TEST(ScenarioFileErrors, UnknownStrategy) {
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy bfs\n"), "t.scn:2:10: unknown strategy 'bfs' (known: random, fixed-latency, dfs, pct)");
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy\n"), "t.scn:2:10: missing strategy name");
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy dfs dfs\n"), "t.scn:2:14: unexpected 'dfs'");
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy dfs\nstrategy dfs\n"), "t.scn:3:1: 'strategy' given twice (first on line 2)");
}

TEST(ScenarioFileErrors, AStrategyMustBeHowTheFileRuns) {
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy fixed-latency\nseed 3\n"),
            "t.scn:2:10: 'strategy fixed-latency' draws no delays: it needs 'delay-choices 1' (this file has 3)");
  EXPECT_EQ(error_of("zksim-scenario 1\ndelay-choices 1\nstrategy fixed-latency\nseed 3\nexpect pass\n"), "");
  EXPECT_EQ(error_of("zksim-scenario 1\nseed 3\nstrategy dfs\n"),
            "t.scn:3:10: 'strategy dfs' has no seed: its run is its decision list");
  EXPECT_EQ(error_of("zksim-scenario 1\nstrategy random\nseed 3\nexpect pass\n"), "");
}

TEST(ScenarioFileErrors, MissingVersionLine) {
  EXPECT_EQ(error_of("recipe lock\n"), "t.scn:1:1: expected 'zksim-scenario 2' first");
  EXPECT_EQ(error_of(""), "t.scn:1:1: empty scenario: expected 'zksim-scenario 2'");
}

TEST(ScenarioFileErrors, UnsupportedVersion) {
  EXPECT_EQ(error_of("zksim-scenario 9\n"), "t.scn:1:16: unsupported format version 9 (this is version 2; 1 is read too)");
  EXPECT_EQ(error_of("zksim-scenario 0\n"), "t.scn:1:16: unsupported format version 0 (this is version 2; 1 is read too)");
}

TEST(ScenarioFileErrors, UnknownDirectiveAndRecipe) {
  EXPECT_EQ(error_of("zksim-scenario 1\n  frobnicate 3\n"), "t.scn:2:3: unknown directive 'frobnicate'");
  EXPECT_EQ(error_of("zksim-scenario 1\nrecipe nope\n").substr(0, 40), "t.scn:2:8: unknown recipe 'nope' (known:");
}

TEST(ScenarioFileErrors, BadNumbers) {
  EXPECT_EQ(error_of("zksim-scenario 1\nclients x\n"), "t.scn:2:9: 'x' is not a number from 1 to 10000");
  EXPECT_EQ(error_of("zksim-scenario 1\nclients 0\n"), "t.scn:2:9: '0' is not a number from 1 to 10000");
  EXPECT_EQ(error_of("zksim-scenario 1\nclients\n"), "t.scn:2:9: missing number");
  EXPECT_EQ(error_of("zksim-scenario 1\nnemesis pause 2000\n"), "t.scn:2:15: '2000' is not a number from 0 to 1000");
  EXPECT_EQ(error_of("zksim-scenario 1\nseed -1\n"), "t.scn:2:6: '-1' is not a seed (an unsigned 64-bit number)");
}

TEST(ScenarioFileErrors, MoreProducersThanClients) {
  EXPECT_EQ(error_of("zksim-scenario 1\nrecipe queue\nproducers 3\nclients 2\n"),
            "t.scn:3:11: 3 producers, but there are 2 clients");
  EXPECT_EQ(error_of("zksim-scenario 1\nproducers -1\n"), "t.scn:2:11: '-1' is not a number from 0 to 10000");
  EXPECT_EQ(error_of("zksim-scenario 1\nclients 2\nproducers 2\nexpect pass\n"), "");
}

TEST(ScenarioFileErrors, TrailingWords) {
  EXPECT_EQ(error_of("zksim-scenario 1\nrounds 3 4\n"), "t.scn:2:10: unexpected '4'");
}

TEST(ScenarioFileErrors, BadFaults) {
  EXPECT_TRUE(error_of("zksim-scenario 1\nfault melt client 0 at 5\n")
                  .starts_with("t.scn:2:7: unknown fault class 'melt' (known: drop-before-apply, "));
  EXPECT_EQ(error_of("zksim-scenario 1\nfault pause 0\n"), "t.scn:2:13: expected 'client <n>' or 'client all'");
  EXPECT_EQ(error_of("zksim-scenario 1\nfault pause client 0\n"), "t.scn:2:22: expected 'at <ms>' or 'on <request>'");
  EXPECT_TRUE(error_of("zksim-scenario 1\nfault pause client 0 on frob\n")
                  .starts_with("t.scn:2:25: unknown request kind 'frob' (known: any, "));
  EXPECT_EQ(error_of("zksim-scenario 1\nclients 2\nfault crash client 5 at 10\n"),
            "t.scn:3:1: fault names client 5, but there are 2 clients (0 to 1)");
}

TEST(ScenarioFileErrors, BadExpectation) {
  EXPECT_EQ(error_of("zksim-scenario 1\nexpect maybe\n"), "t.scn:2:8: expected 'pass' or 'violation <property>'");
  EXPECT_EQ(error_of("zksim-scenario 1\nexpect violation\n"), "t.scn:2:18: missing property name after 'violation'");
}

TEST(ScenarioFileErrors, ADirectiveGivenTwiceIsAnError) {
  EXPECT_EQ(error_of("zksim-scenario 1\nclients 4\nrounds 2\n  clients 5\n"),
            "t.scn:4:3: 'clients' given twice (first on line 2)");
  EXPECT_EQ(error_of("zksim-scenario 1\nexpect pass\nexpect violation fifo\n"),
            "t.scn:3:1: 'expect' given twice (first on line 2)");
  EXPECT_EQ(error_of("zksim-scenario 1\nseed 1\nseed 2\n"), "t.scn:3:1: 'seed' given twice (first on line 2)");
  EXPECT_EQ(error_of("zksim-scenario 1\nnemesis pause 30\nnemesis crash 5\nnemesis pause 40\n"),
            "t.scn:4:1: 'nemesis pause' given twice (first on line 2)");
  // Faults and decision lines are lists: repeating them adds.
  EXPECT_EQ(error_of("zksim-scenario 1\nclients 2\nfault pause client 0 at 5\nfault pause client 1 at 9\n"
                     "decisions 1 2\ndecisions 3\nexpect pass\n"),
            "");
}

TEST(ScenarioFileErrors, AnUnknownExpectedPropertyIsAnError) {
  EXPECT_TRUE(error_of("zksim-scenario 1\nexpect violation nonsense-property\n")
                  .starts_with("t.scn:2:18: unknown property 'nonsense-property' (known: mutual-exclusion, "));
  for (const std::string& p : property_names()) {
    EXPECT_EQ(error_of("zksim-scenario 1\nexpect violation " + p + "\n"), "") << p;
  }
}

TEST(ScenarioFileErrors, ControlBytesInAMessageAreShownEscaped) {
  const std::string nul = "zksim-scenario 1\nfrob" + std::string(1, '\0') + "nicate 3\n";
  EXPECT_EQ(error_of(nul), "t.scn:2:1: unknown directive 'frob\\x00nicate'");
  EXPECT_TRUE(error_of("zksim-scenario 1\nrecipe lo\x01" "ck\n").starts_with("t.scn:2:8: unknown recipe 'lo\\x01ck' (known:"));
}

TEST(ScenarioFileErrors, MissingFile) {
  ParseError e;
  EXPECT_FALSE(load_scenario("/nonexistent/x.scn", &e));
  EXPECT_EQ(e.text(), "/nonexistent/x.scn:0:0: cannot read the file");
}

}  // namespace
}  // namespace zksim::scenarios
