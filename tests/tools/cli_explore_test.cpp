// zksim explore and zksim merge: verdicts, the written scenario, parallel
// workers and shards giving the same results as one process, bad input.
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

namespace zksim::cli_test {
namespace {

// A flawed recipe whose violations need a lost reply: a campaign with
// findings, a scenario to shrink, and runs that differ.
std::vector<std::string> no_guid(const TempDir& d, const std::string& runs) {
  return {"explore", "--recipe", "flawed/no-guid-lock", "--runs", runs, "--clients", "3", "--rounds", "3",
          "--shrink-runs", "200", "--out", d.path()};
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
  EXPECT_NE(r.out.find("faults: pause,crash"), std::string::npos) << r.out;
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
  Ran r = zksim({"explore", "--recipe", "flawed/stubborn-unlock-lock", "--runs", "20", "--shrink-runs", "50",
                 "--out", d.path()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION runaway"), std::string::npos) << r.out;
}

TEST(CliExplore, SwarmRunsEveryClassByDefaultAndItsScenariosReplay) {
  TempDir d;
  Ran ok = zksim({"explore", "--recipe", "lock", "--swarm", "--runs", "40", "--out", d.path()});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("faults: drop-before-apply,drop-after-apply,expire-session,pause,crash,delay,any-time,blip-all,burst"),
            std::string::npos) << ok.out;
  Ran found = zksim({"explore", "--recipe", "flawed/herd-lock", "--swarm", "--runs", "10", "--shrink-runs", "50",
                     "--out", d.path()});
  ASSERT_EQ(found.status, 1) << found.out << found.err;
  const std::string file = d.path() + "/flawed-herd-lock.herd-effect.seed1.scn";
  EXPECT_NE(read_file(file).find("swarm yes\n"), std::string::npos);
  EXPECT_EQ(zksim({"run", file}).status, 0);
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
