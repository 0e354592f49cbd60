// zksim explore and zksim merge: verdicts, the written scenario, parallel
// workers and shards giving the same results as one process, bad input.
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

namespace zksim::cli_test {
namespace {

// A flawed recipe whose violations need a lost reply, in a campaign that
// draws nothing (--fixed): findings, a scenario to shrink, and runs that
// differ, the same as before the default search.
std::vector<std::string> no_guid(const TempDir& d, const std::string& runs) {
  return {"explore", "--recipe", "flawed/no-guid-lock", "--fixed", "--faults", "drop-after-apply", "--rate", "50",
          "--runs", runs, "--clients", "3", "--rounds", "3", "--shrink-runs", "200", "--out", d.path()};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST(CliExplore, ACorrectRecipeHoldsAndExits0) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "lock", "--runs", "30", "--faults", "pause,crash", "--out", d.path()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no violation in 30 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixed: faults pause,crash"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(d.path()));
  EXPECT_TRUE(r.err.empty()) << "no progress line when stderr is not a terminal: " << r.err;
}

TEST(CliExplore, AViolationIsShrunkWrittenAndReplays) {
  TempDir d;
  Ran r = zksim(no_guid(d, "40"));
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION liveness"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clients:  c"), std::string::npos) << r.out;
  const auto replay = r.out.find("replay:   ");
  ASSERT_NE(replay, std::string::npos) << r.out;
  // The printed command replays it: the file expects the violation it shows.
  const std::string command = r.out.substr(replay + 10, r.out.find('\n', replay) - replay - 10);
  const std::string file = command.substr(command.rfind(' ') + 1);
  EXPECT_TRUE(command.starts_with(std::string(ZKSIM_BINARY) + " replay ")) << command;
  EXPECT_TRUE(file.starts_with(d.path() + "/flawed-no-guid-lock.liveness.seed")) << file;
  const std::string text = read_file(file);
  EXPECT_NE(text.find("expect violation liveness"), std::string::npos) << text;
  Ran again = zksim({"replay", file});
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("verdict: violation liveness (expected violation liveness)"), std::string::npos);
  // --json says the same.
  Ran j = zksim(with(no_guid(d, "40"), {"--json"}));
  EXPECT_EQ(j.status, 1);
  nlohmann::json doc = parse_json(j.out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["runs"], 40);
  EXPECT_TRUE(doc["complete"].get<bool>());
  bool liveness = false;
  for (const auto& v : doc["violations"]) {
    if (v["property"] != "liveness") continue;
    liveness = true;
    EXPECT_EQ(v["scenario"], file);
    EXPECT_LE(v["shrunk_decisions"].get<int>(), v["decisions"].get<int>());
    EXPECT_FALSE(v["clients"].empty());
  }
  EXPECT_TRUE(liveness);
}

TEST(CliExplore, ServersRunAnEnsembleAndItsScenariosReplay) {
  TempDir d;
  Ran r = zksim(with(no_guid(d, "40"), {"--servers", "3", "--json"}));
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  nlohmann::json doc = parse_json(r.out);
  EXPECT_EQ(doc["campaign"]["servers"], 3);
  ASSERT_FALSE(doc["violations"].empty());
  const std::string file = doc["violations"][0]["scenario"];
  EXPECT_NE(read_file(file).find("\nservers 3\n"), std::string::npos) << read_file(file);
  Ran again = zksim({"replay", file});
  EXPECT_EQ(again.status, 0) << again.out;
  // One server, the default, is not written: reports stay as they were.
  EXPECT_FALSE(parse_json(zksim(with(no_guid(d, "5"), {"--json"})).out)["campaign"].contains("servers"));
  EXPECT_EQ(zksim(with(no_guid(d, "5"), {"--servers", "0"})).status, 2);
}

TEST(CliExplore, ReportsWakeUpsWithoutProgress) {
  TempDir d;
  const std::vector<std::string> herd{"explore", "--recipe", "flawed/herd-lock", "--runs", "5", "--clients", "4",
                                      "--rounds", "3", "--shrink-runs", "0", "--out", d.path()};
  Ran j = zksim(with(herd, {"--json"}));
  ASSERT_EQ(j.status, 1) << j.err;
  const nlohmann::json doc = parse_json(j.out);
  EXPECT_GT(doc["wakeups_without_progress"].get<std::int64_t>(), 0) << j.out;
  EXPECT_LT(doc["wakeups_without_progress"].get<std::int64_t>(), doc["wakeups"].get<std::int64_t>()) << j.out;
  Ran text = zksim(herd);
  const std::string line = "wake-ups without progress: " +
                           std::to_string(doc["wakeups_without_progress"].get<std::int64_t>()) + " of " +
                           std::to_string(doc["wakeups"].get<std::int64_t>()) + " (measured, not judged)";
  EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
}

TEST(CliExplore, JobsGiveTheSameResultsAsOneProcess) {
  TempDir d;
  Ran one = zksim(with(no_guid(d, "45"), {"--json"}));
  Ran three = zksim(with(no_guid(d, "45"), {"--json", "--jobs", "3"}));
  EXPECT_EQ(one.status, 1);
  EXPECT_EQ(three.status, 1);
  EXPECT_FALSE(parse_json(one.out).is_null());
  EXPECT_EQ(three.out, one.out);
  EXPECT_EQ(zksim(with(no_guid(d, "45"), {"--jobs", "2"})).out, zksim(no_guid(d, "45")).out);
}

TEST(CliExplore, ShardsMergeToTheWhole) {
  TempDir d;
  Ran whole = zksim(with(no_guid(d, "45"), {"--json"}));
  std::vector<std::string> reports;
  for (const char* shard : {"0/3", "1/3", "2/3"}) {
    Ran s = zksim(with(no_guid(d, "45"), {"--json", "--shard", shard}));
    ASSERT_NE(s.status, 2) << s.err;
    EXPECT_EQ(parse_json(s.out)["runs"], 15);
    reports.push_back(d.write(std::string("shard") + shard[0] + ".json", s.out));
  }
  Ran merged = zksim({"merge", "--json", reports[0], reports[1], reports[2]});
  EXPECT_EQ(merged.status, 1) << merged.err;
  nlohmann::json m = parse_json(merged.out), w = parse_json(whole.out);
  EXPECT_EQ(m["shards"], nlohmann::json({"0/3", "1/3", "2/3"}));
  m.erase("shards");
  w.erase("shards");
  EXPECT_EQ(m, w);
  // Part of the campaign merges with a note; overlapping shards are refused.
  Ran part = zksim({"merge", reports[0], reports[2]});
  EXPECT_EQ(part.status, 1);
  EXPECT_NE(part.err.find("do not cover the whole campaign"), std::string::npos);
  EXPECT_NE(part.out.find("not the whole campaign"), std::string::npos) << part.out;
  Ran twice = zksim({"merge", reports[0], reports[0]});
  EXPECT_EQ(twice.status, 2);
  EXPECT_EQ(lines(twice.err), 1);
}

TEST(CliExplore, LongHoldsOfACorrectRecipeAreNotViolations) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "lock", "--hold-ms", "60000", "--runs", "20", "--out", d.path()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no violation in 20 runs"), std::string::npos) << r.out;
}

TEST(CliExplore, AWorkloadTooLargeForOneRunExits2WithOneLine) {
  Ran r = zksim({"explore", "--recipe", "lock", "--clients", "100", "--rounds", "10000", "--runs", "1"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("zksim explore: 100 clients x 10000 rounds is too much for one run"), std::string::npos) << r.err;
}

TEST(CliExplore, ARunawayRecipeIsFoundNotACrash) {
  TempDir d;
  // Its nemesis: a delete applied whose reply was lost.
  // Found is enough: shrinking a runaway run is slow and shows nothing more.
  Ran r = zksim({"explore", "--recipe", "flawed/stubborn-unlock-lock", "--faults", "drop-after-apply", "--runs", "20",
                 "--shrink-runs", "0", "--out", d.path()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION runaway"), std::string::npos) << r.out;
}

TEST(CliExplore, SwarmDrawsWhichOfTheNamedClassesStayOn) {
  TempDir d;
  Ran ok = zksim({"explore", "--recipe", "lock", "--faults", "pause,crash", "--swarm", "--runs", "40", "--json",
                  "--out", d.path()});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  const nlohmann::json search = parse_json(ok.out)["campaign"]["search"];
  EXPECT_EQ(search["faults"], nlohmann::json({"pause", "crash"}));
  EXPECT_TRUE(search["draw_faults"].get<bool>());
  Ran text = zksim({"explore", "--recipe", "lock", "--faults", "pause,crash", "--swarm", "--runs", "4", "--out", d.path()});
  EXPECT_NE(text.out.find("each run draws 0, 1 or 2 fault classes from 2 (pause,crash)"),
            std::string::npos) << text.out;
}

// The default search: each run draws, from its seed, everything the
// options leave open, and the header says what.
TEST(CliExplore, TheDefaultDrawsEverythingAndSaysSo) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "lock", "--runs", "30", "--json", "--out", d.path()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json search = parse_json(r.out)["campaign"]["search"];
  EXPECT_EQ(search["faults"].size(), 15u);
  EXPECT_TRUE(search["draw_faults"].get<bool>());
  for (const char* fixed : {"rate", "servers", "client", "hold_ms", "varied", "strategy", "sequence_start"}) {
    EXPECT_FALSE(search.contains(fixed)) << fixed << " is fixed, not drawn";
  }
  // A class drawn into a run or two that never struck there is chance, not news.
  EXPECT_EQ(parse_json(r.out)["warnings"], nlohmann::json::array()) << r.out;
  Ran text = zksim({"explore", "--recipe", "lock", "--runs", "3", "--out", d.path()});
  EXPECT_TRUE(text.out.starts_with("explore lock (each run draws 0, 1 or 2 of the 15 fault classes, rates 30/100/300"))
      << text.out;
  for (const char* says : {"rates 30/100/300\u2030", "1 or 3 servers", "clients c/curator/kazoo/mixed",
                           "holds 5/300/600/3000 ms", "plain or varied", "reentrancy and timeouts", "random or pct",
                           "sequences from 0 or near 2^31"}) {
    EXPECT_NE(text.out.find(says), std::string::npos) << says << ": " << text.out;
  }
}

// An option fixes only the dimension it names: what the recipe's runs
// draw otherwise stays drawn (before, --faults dropped a flawed recipe's
// own servers, rate and hold without a word).
TEST(CliExplore, AnOptionFixesOnlyWhatItNames) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "flawed/unsynced-protected-lock", "--faults", "drop-after-apply", "--runs", "3",
                 "--json", "--shrink-runs", "0", "--out", d.path()});
  ASSERT_NE(r.status, 2) << r.err;
  const nlohmann::json search = parse_json(r.out)["campaign"]["search"];
  EXPECT_EQ(search["faults"], nlohmann::json({"drop-after-apply"}));
  EXPECT_FALSE(search["draw_faults"].get<bool>());
  for (const char* drawn : {"rate", "servers", "client", "hold_ms", "varied", "strategy", "sequence_start"}) {
    EXPECT_FALSE(search.contains(drawn)) << drawn << " was fixed by an option that does not name it";
  }
  Ran hold = zksim({"explore", "--recipe", "lock", "--hold-ms", "600", "--client", "kazoo", "--runs", "3", "--json",
                    "--out", d.path()});
  const nlohmann::json fixed = parse_json(hold.out)["campaign"]["search"];
  EXPECT_EQ(fixed["hold_ms"], 600);
  EXPECT_EQ(fixed["client"], "kazoo");
  EXPECT_TRUE(fixed["draw_faults"].get<bool>());
  EXPECT_FALSE(fixed.contains("servers"));
  Ran text = zksim({"explore", "--recipe", "lock", "--hold-ms", "600", "--client", "kazoo", "--runs", "3", "--out", d.path()});
  EXPECT_NE(text.out.find("; fixed: clients kazoo, hold 600 ms; 4 clients x 4 rounds)"), std::string::npos) << text.out;
}

// A lock whose node names have no unique part cannot pass the wrap: at
// 2^31-1 ZooKeeper 3.8 gives every create the same name (NodeExists). With
// no fault at all, only runs whose directory starts there find it; the
// file says so and replays.
TEST(CliExplore, SomeRunsStartTheirSequencesNearTheWrap) {
  TempDir d;
  const std::vector<std::string> a{"explore", "--recipe", "flawed/no-guid-lock", "--faults", "none", "--runs", "60",
                                   "--shrink-runs", "20", "--out", d.path()};
  Ran r = zksim(a);
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION progress"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; sequences from 21474836"), std::string::npos) << r.out;
  const auto at = r.out.find("scenario: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string file = r.out.substr(at + 10, r.out.find('\n', at) - at - 10);
  EXPECT_NE(read_file(file).find("\nsequence-start 21474836"), std::string::npos) << read_file(file);
  EXPECT_EQ(zksim({"replay", file}).status, 0);
  Ran fresh = zksim(with(a, {"--sequence-start", "0"}));
  EXPECT_EQ(fresh.status, 0) << fresh.out;
  EXPECT_NE(fresh.out.find("fixed: faults none, sequences from 0"), std::string::npos) << fresh.out;
}

// A finding says what its run drew, and its file writes that down as
// plain directives: it replays without the draw.
TEST(CliExplore, AFindingOfTheSearchSaysWhatItsRunDrewAndItsFileReplays) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "flawed/herd-lock", "--runs", "10", "--shrink-runs", "50", "--out", d.path()});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\n  drew:     "), std::string::npos) << r.out;
  const auto at = r.out.find("scenario: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string file = r.out.substr(at + 10, r.out.find('\n', at) - at - 10);
  const std::string text = read_file(file);
  EXPECT_NE(text.find("Found by the search with seed "), std::string::npos) << text;
  EXPECT_EQ(text.find("swarm"), std::string::npos) << text;
  EXPECT_EQ(zksim({"run", file}).status, 0);
}

TEST(CliExplore, AClassOfTheEnsembleOnOneServerIsBadInput) {
  Ran r = zksim({"explore", "--recipe", "lock", "--faults", "partition", "--servers", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "zksim explore: fault class partition strikes the servers of an ensemble, and --servers 1 gives one "
                   "server\n");
}

// Runs where nothing can happen are named, in text and JSON.
TEST(CliExplore, AClassThatNeverStruckAndRunsWhereNothingCompletedAreNamed) {
  TempDir d;
  // A time-triggered class at 1 in 1000 windows, in runs of a few windows.
  const std::vector<std::string> rare{"explore", "--recipe", "lock", "--fixed", "--faults", "any-time", "--rate", "1",
                                      "--clients", "1", "--rounds", "1", "--runs", "5", "--out", d.path()};
  Ran never = zksim(with(rare, {"--json"}));
  ASSERT_EQ(never.status, 0) << never.err;
  EXPECT_EQ(parse_json(never.out)["warnings"], nlohmann::json({"fault class any-time never struck in 5 runs"}));
  Ran text = zksim(rare);
  EXPECT_NE(text.out.find("faults struck: any-time 0\ncalls completed: 10\nwarning: fault class any-time never struck in "
                          "5 runs\n"),
            std::string::npos) << text.out;
  Ran nothing = zksim({"explore", "--recipe", "lock", "--fixed", "--faults", "crash", "--rate", "1000", "--clients", "1",
                       "--rounds", "1", "--runs", "3", "--json", "--out", d.path()});
  ASSERT_NE(nothing.status, 2) << nothing.err;
  const nlohmann::json doc = parse_json(nothing.out);
  EXPECT_EQ(doc["completed_operations"], 0) << nothing.out;
  ASSERT_FALSE(doc["warnings"].empty()) << nothing.out;
  EXPECT_TRUE(doc["warnings"][0].get<std::string>().starts_with("no call completed in 3 runs")) << doc["warnings"];
}

// Which classes of property fail the run is the user's choice: a finding
// of another class is reported all the same, with its class, and the exit
// status is 0.
TEST(CliExplore, FailOnChoosesWhichClassesFailTheRun) {
  TempDir d;
  const std::vector<std::string> herd{"explore", "--recipe", "flawed/herd-lock", "--fixed", "--runs", "5",
                                      "--shrink-runs", "0", "--out", d.path()};
  Ran all = zksim(herd);
  EXPECT_EQ(all.status, 1) << all.out << all.err;
  EXPECT_NE(all.out.find("VIOLATION herd-effect (efficiency): in "), std::string::npos) << all.out;
  // It breaks herd-effect (efficiency), and, its herds slowing waiters,
  // progress (liveness); no safety property.
  Ran safety = zksim(with(herd, {"--fail-on", "safety"}));
  EXPECT_EQ(safety.status, 0) << safety.out << safety.err;
  EXPECT_NE(safety.out.find("VIOLATION herd-effect (efficiency): in "), std::string::npos) << safety.out;
  EXPECT_NE(safety.out.find("not failing the run (--fail-on safety): herd-effect"), std::string::npos) << safety.out;
  EXPECT_EQ(zksim(with(herd, {"--fail-on", "liveness"})).status, 1);
  Ran json = zksim(with(herd, {"--fail-on", "safety", "--json"}));
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(parse_json(json.out)["violations"][0]["class"], "efficiency") << json.out;
  Ran bad = zksim(with(herd, {"--fail-on", "safety,speed"}));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "zksim explore --fail-on: no class 'speed' (safety, liveness, efficiency)\n");
}

TEST(CliExplore, ATimeBudgetRunsAndStops) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "semaphore", "--time", "0.3", "--json", "--out", d.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  nlohmann::json doc = parse_json(r.out);
  EXPECT_GT(doc["runs"].get<int>(), 0);
  EXPECT_EQ(doc["campaign"]["runs_limit"], 0);
}

TEST(CliExplore, BadInputExits2WithOneLine) {
  TempDir d;
  const std::vector<std::vector<std::string>> cases{
      {"explore"},                                                    // no recipe
      {"explore", "--recipe", "no-such"},
      {"explore", "--recipe", "lock", "--faults", "pause,meteor"},
      {"explore", "--recipe", "lock", "--runs", "5", "--time", "1"},
      {"explore", "--recipe", "lock", "--shard", "3/3"},
      {"explore", "--recipe", "lock", "--shard", "1"},
      {"explore", "--recipe", "lock", "--shard", "0/0"},
      {"explore", "--recipe", "lock", "--shard", "a/b"},
      {"explore", "--recipe", "lock", "--shard", "-1/2"},
      {"explore", "--recipe", "lock", "--jobs", "many"},
      {"explore", "--recipe", "lock", "--rate", "1001"},
  };
  for (const auto& args : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << args.back() << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args.back();
  }
  EXPECT_NE(zksim({"explore", "--recipe", "lock", "--shard", "3/3"}).err.find("'3/3' is not a shard I/N"), std::string::npos);
}

TEST(CliExplore, NoneCombinedWithFaultClassesIsBadInput) {
  TempDir d;
  for (const char* faults : {"none,pause", "pause,none", "none,none"}) {
    Ran r = zksim({"explore", "--recipe", "lock", "--runs", "2", "--faults", faults, "--out", d.path()});
    EXPECT_EQ(r.status, 2) << faults;
    EXPECT_EQ(lines(r.err), 1) << faults << ": " << r.err;
    EXPECT_NE(r.err.find("zksim explore --faults: 'none' "), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_EQ(zksim({"explore", "--recipe", "lock", "--runs", "2", "--faults", "none", "--out", d.path()}).status, 0);
}

TEST(CliExplore, ShrinkingNeverRunsMoreThanShrinkRuns) {
  TempDir d;
  for (int limit : {0, 1, 7}) {
    Ran r = zksim({"explore", "--recipe", "flawed/no-guid-lock", "--runs", "40", "--clients", "3", "--rounds", "3",
                   "--shrink-runs", std::to_string(limit), "--json", "--out", d.path()});
    ASSERT_EQ(r.status, 1) << r.err;
    nlohmann::json doc = parse_json(r.out);
    ASSERT_FALSE(doc["violations"].empty());
    for (const auto& v : doc["violations"]) {
      EXPECT_LE(v["shrink_runs"].get<int>(), limit) << v.dump();
      if (limit == 0) {
        // Not shrunk: the recorded run is written as it is, and replays.
        EXPECT_EQ(v["shrunk_decisions"], v["decisions"]) << v.dump();
        Ran again = zksim({"replay", v["scenario"].get<std::string>()});
        EXPECT_EQ(again.status, 0) << again.out << again.err;
      }
    }
  }
}

// --- strategies ---

// Pinned before strategies existed (commit 1886248): the same campaign
// makes the same runs, finds the same first runs and shrinks them the same
// (with --fixed, as it was then the default).
TEST(CliExplore, FixedRandomRunsAreUnchanged) {
  TempDir d;
  Ran plain = zksim(with(no_guid(d, "40"), {"--json"}));
  Ran random = zksim(with(no_guid(d, "40"), {"--json", "--strategy", "random"}));
  ASSERT_EQ(plain.status, 1) << plain.err;
  EXPECT_EQ(random.out, plain.out);
  const nlohmann::json doc = parse_json(plain.out);
  EXPECT_EQ(doc["campaign"]["strategy"], "random");
  EXPECT_FALSE(doc.contains("exhausted"));
  EXPECT_EQ(doc["runs"], 40);
  EXPECT_EQ(doc["violating_runs"], 18);
  ASSERT_EQ(doc["violations"].size(), 2u);
  for (const auto& v : doc["violations"]) {
    EXPECT_EQ(v["first_run"], 1) << v.dump();
    EXPECT_EQ(v["seed"], 2) << v.dump();
    EXPECT_EQ(v["runs"], 18) << v.dump();
    EXPECT_EQ(v["decisions"], 148) << v.dump();
    EXPECT_EQ(v["shrunk_decisions"], 96) << v.dump();
    const std::string file = v["scenario"].get<std::string>();
    EXPECT_TRUE(file.ends_with(".seed2.scn")) << file;
    EXPECT_EQ(read_file(file).find("\nstrategy "), std::string::npos) << file;
  }
  Ran text = zksim(no_guid(d, "40"));
  EXPECT_TRUE(text.out.starts_with("explore flawed/no-guid-lock (every run: faults drop-after-apply 50\u2030; 1 server; "
                                   "clients c; hold 5 ms; plain; strategy random; 3 clients x 3 rounds): 40 runs from seed 1\n"))
      << text.out;
  EXPECT_NE(text.out.find("first in run 1 (seed 2)\n"), std::string::npos) << text.out;
}

TEST(CliExplore, UnknownStrategyIsBadInput) {
  for (const char* name : {"bfs", "", "Random"}) {
    Ran r = zksim({"explore", "--recipe", "lock", "--runs", "2", "--strategy", name});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_EQ(lines(r.err), 1) << name << ": " << r.err;
    EXPECT_NE(r.err.find("zksim explore --strategy: unknown strategy '" + std::string(name) + "' (known: random, fixed-latency, dfs, pct)"),
              std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// Each strategy's finding is written with its strategy, and replays; the
// fixed-latency one with its delays held to the latency, the pct one from
// the decisions its priorities made.
TEST(CliExplore, StrategyIsRecordedAndReplays) {
  TempDir d;
  for (const std::string strategy : {"fixed-latency", "dfs", "pct"}) {
    std::vector<std::string> args = no_guid(d, "400");
    if (strategy == "dfs") args = with(args, {"--depth", "8"});
    if (strategy == "pct") args = with(args, {"--depth", "2"});
    Ran r = zksim(with(args, {"--strategy", strategy, "--json"}));
    ASSERT_EQ(r.status, 1) << strategy << ": " << r.out << r.err;
    const nlohmann::json doc = parse_json(r.out);
    EXPECT_EQ(doc["campaign"]["strategy"], strategy);
    ASSERT_FALSE(doc["violations"].empty()) << strategy;
    for (const auto& v : doc["violations"]) {
      const std::string file = v["scenario"].get<std::string>();
      std::string suffix = strategy;
      suffix += strategy == "dfs" ? "-schedule" : "-seed";
      suffix += v["seed"].dump();
      EXPECT_TRUE(file.ends_with(suffix + ".scn")) << file;
      const std::string text = read_file(file);
      EXPECT_NE(text.find("\nstrategy " + strategy + "\n"), std::string::npos) << text;
      if (strategy == "fixed-latency") {
        EXPECT_NE(text.find("\ndelay-choices 1\n"), std::string::npos) << text;
      }
      Ran again = zksim({"replay", file});
      EXPECT_EQ(again.status, 0) << file << ": " << again.out << again.err;
      EXPECT_NE(again.out.find("(expected violation " + v["property"].get<std::string>() + ")"), std::string::npos);
    }
  }
}

TEST(CliExplore, FixedLatencyRunsAreOtherRunsAndMergeOnlyWithTheirOwn) {
  TempDir d;
  Ran random = zksim(with(no_guid(d, "40"), {"--json", "--shard", "0/2"}));
  Ran fixed = zksim(with(no_guid(d, "40"), {"--json", "--shard", "1/2", "--strategy", "fixed-latency"}));
  Ran fixed0 = zksim(with(no_guid(d, "40"), {"--json", "--shard", "0/2", "--strategy", "fixed-latency"}));
  ASSERT_NE(fixed.status, 2) << fixed.err;
  EXPECT_NE(parse_json(fixed0.out)["probes"], parse_json(random.out)["probes"]);
  Ran mixed = zksim({"merge", d.write("r.json", random.out), d.write("f.json", fixed.out)});
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.err.find("a different campaign"), std::string::npos) << mixed.err;
  EXPECT_NE(zksim({"merge", d.write("f0.json", fixed0.out), d.file("f.json")}).status, 2);
  // Workers run fixed-latency too, with the same results.
  EXPECT_EQ(zksim(with(no_guid(d, "40"), {"--json", "--strategy", "fixed-latency", "--jobs", "2"})).out,
            zksim(with(no_guid(d, "40"), {"--json", "--strategy", "fixed-latency"})).out);
}

TEST(CliExplore, DepthIsForDfsAndPctOnly) {
  TempDir d;
  Ran r = zksim(with(no_guid(d, "2"), {"--depth", "3"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--depth: only with --strategy dfs or pct"), std::string::npos) << r.err;
  Ran pct = zksim(with(no_guid(d, "2"), {"--strategy", "pct", "--depth", "0"}));
  EXPECT_EQ(pct.status, 2) << pct.err;
  Ran json = zksim(with(no_guid(d, "2"), {"--strategy", "pct", "--depth", "4", "--json"}));
  ASSERT_NE(json.status, 2) << json.err;
  EXPECT_EQ(parse_json(json.out)["campaign"]["depth"], 4);
  EXPECT_EQ(zksim(with(no_guid(d, "20"), {"--json", "--strategy", "pct", "--jobs", "2"})).out,
            zksim(with(no_guid(d, "20"), {"--json", "--strategy", "pct"})).out);
}

TEST(CliExplore, DfsExhaustsASmallSpaceAndSaysSo) {
  TempDir d;
  const std::vector<std::string> small{"explore", "--recipe", "lock", "--clients", "2", "--rounds", "1",
                                       "--strategy", "dfs", "--depth", "4", "--out", d.path()};
  Ran all = zksim(with(small, {"--json"}));
  ASSERT_EQ(all.status, 0) << all.err;
  const nlohmann::json doc = parse_json(all.out);
  EXPECT_TRUE(doc["exhausted"].get<bool>());
  EXPECT_EQ(doc["campaign"]["depth"], 4);
  const int schedules = doc["runs"].get<int>();
  EXPECT_GT(schedules, 1);
  EXPECT_LE(schedules, 81) << "at most 3 choices at each of 4 decisions";
  Ran text = zksim(small);
  EXPECT_TRUE(text.out.starts_with("explore lock (every run: faults none; 1 server; clients c; hold 5 ms; plain; strategy "
                                   "dfs, depth 4; 2 clients x 1 rounds): "))
      << text.out;
  EXPECT_NE(text.out.find("exhausted: all " + std::to_string(schedules) + " schedules within depth 4 explored\n"), std::string::npos)
      << text.out;
  // Stopped short of the last schedule, it says so.
  Ran part = zksim(with(small, {"--runs", std::to_string(schedules - 1)}));
  EXPECT_NE(part.out.find("not exhausted after " + std::to_string(schedules - 1) + " runs\n"), std::string::npos) << part.out;
  EXPECT_FALSE(parse_json(zksim(with(small, {"--runs", std::to_string(schedules - 1), "--json"})).out)["exhausted"].get<bool>());
  // A report of a search merges as one shard of its own.
  Ran merged = zksim({"merge", "--json", d.write("dfs.json", all.out)});
  EXPECT_EQ(merged.status, 0) << merged.err;
  EXPECT_TRUE(parse_json(merged.out)["exhausted"].get<bool>());
}

TEST(CliExplore, DfsFindsTheFlawedRecipeAndItsScenarioReplays) {
  TempDir d;
  // The herd lock fails with no fault at all: the first schedule (every decision 0) shows it.
  Ran herd = zksim({"explore", "--recipe", "flawed/herd-lock", "--clients", "3", "--strategy", "dfs", "--depth", "6",
                    "--out", d.path()});
  ASSERT_EQ(herd.status, 1) << herd.out << herd.err;
  EXPECT_NE(herd.out.find("VIOLATION herd-effect (efficiency): in "), std::string::npos) << herd.out;
  EXPECT_NE(herd.out.find("first in schedule 0\n"), std::string::npos) << herd.out;
  // The no-GUID lock needs a lost create reply: the search tries that at each nemesis decision.
  Ran j = zksim({"explore", "--recipe", "flawed/no-guid-lock", "--clients", "2", "--rounds", "2", "--faults",
                 "drop-after-apply", "--strategy", "dfs", "--runs", "300", "--shrink-runs", "200", "--json", "--out",
                 d.path()});
  ASSERT_EQ(j.status, 1) << j.out << j.err;
  const nlohmann::json doc = parse_json(j.out);
  EXPECT_EQ(doc["campaign"]["delay_choices"], 1) << "under a nemesis the search holds latency fixed";
  bool liveness = false;
  for (const auto& v : doc["violations"]) {
    EXPECT_EQ(v["seed"], v["first_run"]) << "a schedule's number stands for its seed";
    if (v["property"] != "liveness") continue;
    liveness = true;
    const std::string file = v["scenario"].get<std::string>();
    EXPECT_TRUE(file.ends_with(".liveness.dfs-schedule" + v["first_run"].dump() + ".scn")) << file;
    const std::string text = read_file(file);
    EXPECT_NE(text.find("Found by depth-first search to depth 12 (faults: drop-after-apply) as schedule "), std::string::npos)
        << text;
    EXPECT_NE(text.find("\nstrategy dfs\ndecisions "), std::string::npos) << text;
    Ran again = zksim({"replay", file});
    EXPECT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("verdict: violation liveness (expected violation liveness)"), std::string::npos) << again.out;
  }
  EXPECT_TRUE(liveness) << j.out;
}

TEST(CliExplore, DfsRefusesWhatItCannotSearchWithOneLine) {
  const std::vector<std::string> dfs{"explore", "--recipe", "lock", "--strategy", "dfs", "--runs", "2"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {with(dfs, {"--clients", "4"}), "zksim explore --strategy dfs: 4 clients are too many for an exhaustive search (at most 3)"},
      {with(dfs, {"--jobs", "2"}), "zksim explore --strategy dfs: --jobs and --shard do not apply"},
      {with(dfs, {"--shard", "0/2"}), "zksim explore --strategy dfs: --jobs and --shard do not apply"},
      {with(dfs, {"--seed", "5"}), "zksim explore --strategy dfs: --seed does not apply"},
      {with(dfs, {"--depth", "0"}), "zksim explore --depth: '0' is not a whole number from 1 to 64"},
      {with(dfs, {"--depth", "65"}), "zksim explore --depth: '65' is not a whole number from 1 to 64"},
      {{"explore", "--recipe", "lock", "--depth", "5"}, "zksim explore --depth: only with --strategy dfs"},
      {{"explore", "--recipe", "lock", "--strategy", "fixed-latency", "--depth", "5"}, "zksim explore --depth: only with --strategy dfs"},
  };
  for (const auto& [args, message] : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << message;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.err.starts_with(message)) << r.err;
    EXPECT_TRUE(r.out.empty()) << message;
  }
}

// zksim's queue states at-most-once delivery: what its lost take replies
// removed is counted in the report, in --json and through merge, and
// fails nothing.
TEST(CliExplore, ItemsAnAtMostOnceQueueLostInTransitAreCountedNotJudged) {
  TempDir d;
  auto shard = [&](const std::string& s) {
    return zksim({"explore", "--recipe", "queue", "--faults", "drop-after-apply", "--rate", "100", "--runs", "60",
                  "--shard", s, "--json", "--out", d.path()});
  };
  Ran text = zksim({"explore", "--recipe", "queue", "--faults", "drop-after-apply", "--rate", "100", "--runs", "60",
                    "--out", d.path()});
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("\nlost in transit: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(the recipe states at-most-once delivery"), std::string::npos) << text.out;
  Ran s0 = shard("0/2"), s1 = shard("1/2");
  ASSERT_EQ(s0.status, 0) << s0.err;
  const nlohmann::json a = parse_json(s0.out)["lost_in_transit"], b = parse_json(s1.out)["lost_in_transit"];
  ASSERT_TRUE(a.is_object() && b.is_object()) << s0.out << s1.out;
  Ran merged = zksim({"merge", "--json", d.write("s0.json", s0.out), d.write("s1.json", s1.out)});
  ASSERT_EQ(merged.status, 0) << merged.err;
  const nlohmann::json both = parse_json(merged.out)["lost_in_transit"];
  EXPECT_EQ(both["items"], a["items"].get<int>() + b["items"].get<int>());
  EXPECT_EQ(both["runs"], a["runs"].get<int>() + b["runs"].get<int>());
  nlohmann::json bad = parse_json(s0.out);
  bad["lost_in_transit"]["runs"] = 1000;
  Ran m = zksim({"merge", d.write("bad.json", bad.dump())});
  EXPECT_EQ(m.status, 2) << m.out;
  EXPECT_NE(m.err.find("'runs'"), std::string::npos) << m.err;
}

TEST(CliMerge, EveryNumberInAReportIsChecked) {
  TempDir d;
  Ran r = zksim({"explore", "--recipe", "flawed/no-guid-lock", "--runs", "40", "--clients", "3", "--rounds", "3",
                 "--shrink-runs", "5", "--json", "--out", d.path()});
  ASSERT_EQ(r.status, 1) << r.err;
  const nlohmann::json good = parse_json(r.out);
  ASSERT_FALSE(good["violations"].empty());
  EXPECT_EQ(zksim({"merge", d.write("good.json", r.out)}).status, 1);
  using nlohmann::json;
  // Each case: a JSON pointer into the report, a bad value, and the field the error names (or its words).
  const std::vector<std::tuple<std::string, json, std::string>> cases{
      {"/runs", -5, "runs"},
      {"/runs", 2.5, "runs"},
      {"/runs", 0, "violating_runs"},  // more violating runs than runs
      {"/violating_runs", -1, "violating_runs"},
      {"/probes/crashed-holder", -2, "crashed-holder"},
      {"/violations/0/first_run", -1, "first_run"},
      {"/violations/0/seed", -7, "seed"},
      {"/violations/0/runs", 0, "runs"},
      {"/violations/0/runs", 1000, "runs"},  // more than the violating runs
      {"/violations/0/time_ms", -3, "time_ms"},
      {"/violations/0/decisions", -1, "decisions"},
      {"/violations/0/shrunk_decisions", -1, "shrunk_decisions"},
      {"/violations/0/shrink_runs", -1, "shrink_runs"},
      {"/violations/0/clients", json::array({-1}), "clients"},
      {"/campaign/clients", -5, "clients"},
      {"/campaign/rounds", -1, "rounds"},
      {"/campaign/seed", -1, "seed"},
      {"/campaign/runs_limit", -40, "runs_limit"},
      {"/campaign/hold_ms", 1.5, "hold_ms"},
      {"/campaign/nemesis_per_mille/drop-after-apply", 5000, "drop-after-apply"},
      {"/campaign/delay_choices", 0, "delay_choices"},
      {"/campaign/strategy", "bfs", "strategy"},
      {"/campaign/strategy", 3, "strategy"},
      // A finding's run must be one of the campaign's, and its seed that run's.
      {"/violations/0/first_run", 40, "not a run of this report"},
      {"/violations/0/seed", 12345, "not the seed of run"},
  };
  for (const auto& [pointer, value, field] : cases) {
    json bad = good;
    bad[json::json_pointer(pointer)] = value;
    Ran m = zksim({"merge", d.write("bad.json", bad.dump())});
    EXPECT_EQ(m.status, 2) << pointer << " = " << value.dump() << ": " << m.out;
    EXPECT_EQ(lines(m.err), 1) << pointer << ": " << m.err;
    const std::string named = field.find(' ') == std::string::npos ? "'" + field + "'" : field;
    EXPECT_NE(m.err.find(named), std::string::npos) << pointer << ": " << m.err;
  }
}

TEST(CliMerge, BadReportsExit2WithOneLine) {
  TempDir d;
  Ran a = zksim({"explore", "--recipe", "lock", "--runs", "4", "--json", "--shard", "0/2", "--out", d.path()});
  Ran b = zksim({"explore", "--recipe", "lock", "--runs", "4", "--json", "--shard", "1/2", "--seed", "9", "--out", d.path()});
  const std::string ra = d.write("a.json", a.out), rb = d.write("b.json", b.out);
  const std::string junk = d.write("junk.json", "not json"), other = d.write("other.json", "{\"x\": 1}");
  const std::vector<std::vector<std::string>> cases{
      {"merge"}, {"merge", d.file("missing.json")}, {"merge", junk}, {"merge", other}, {"merge", ra, rb}};
  for (const auto& args : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << args.back() << ": " << r.err;
  }
  EXPECT_NE(zksim({"merge", ra, rb}).err.find("a different campaign"), std::string::npos);
}

}  // namespace
}  // namespace zksim::cli_test
