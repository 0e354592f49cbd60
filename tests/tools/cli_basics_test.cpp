// zksim --help, every subcommand's --help, unknown commands and options,
// and zksim list.
#include "cli.h"

#include <gtest/gtest.h>

namespace zksim::cli_test {
namespace {

const std::vector<std::string> kCommands{"matrix", "run", "explore", "merge", "replay", "timeline", "list", "serve"};

TEST(Cli, HelpListsEveryCommand) {
  for (const char* flag : {"--help", "-h", "help"}) {
    Ran r = zksim({flag});
    EXPECT_EQ(r.status, 0) << flag;
    EXPECT_TRUE(r.err.empty());
    for (const std::string& c : kCommands) EXPECT_NE(r.out.find("  " + c + " "), std::string::npos) << c;
  }
}

TEST(Cli, EveryCommandHasHelp) {
  for (const std::string& c : kCommands) {
    Ran r = zksim({c, "--help"});
    EXPECT_EQ(r.status, 0) << c;
    EXPECT_TRUE(r.out.starts_with("Usage: zksim " + c)) << r.out;
    EXPECT_NE(r.out.find("--help"), std::string::npos);
    if (c != "list") {
      EXPECT_NE(r.out.find("Exit status"), std::string::npos) << c;
    }
    EXPECT_EQ(r.out.find("--worker"), std::string::npos) << c << " shows an internal option";
  }
}

TEST(Cli, NoCommandOrAnUnknownOneIsOneLineAndExit2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{}, {"frobnicate"}, {"--bogus"}}) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(Cli, UnknownOptionIsOneLineAndExit2ForEveryCommand) {
  for (const std::string& c : kCommands) {
    Ran r = zksim({c, "--no-such-option", "x"});
    EXPECT_EQ(r.status, 2) << c;
    EXPECT_EQ(lines(r.err), 1) << c << ": " << r.err;
    EXPECT_NE(r.err.find("unknown option '--no-such-option'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos);
  }
}

TEST(Cli, MissingOrBadValuesAreOneLineAndExit2) {
  const std::vector<std::vector<std::string>> bad{
      {"explore", "--recipe"},                                // value missing
      {"explore", "--recipe", "lock", "--runs", "abc"},       // not a number
      {"explore", "--recipe", "lock", "--runs", "0"},         // out of range
      {"explore", "--recipe", "lock", "--runs", "12x"},
      {"explore", "--recipe", "lock", "--seed", "-1"},
      {"explore", "--recipe", "lock", "--seed", "99999999999999999999999"},
      {"explore", "--recipe", "lock", "--time", "-3"},
      {"explore", "--recipe", "lock", "--runs", "5", "--runs", "6"},  // given twice
      {"explore", "--recipe", "lock", "--json=yes"},          // a flag with a value
      {"matrix", "--budget", "1e3"},
      {"matrix", "--jobs", "0"},
      {"list", "extra"},                                      // positional where none is taken
  };
  for (const auto& args : bad) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << args.back() << ": " << r.err;
  }
}

TEST(Cli, ABoundThatRefusesAValueIsStated) {
  Ran r = zksim({"explore", "--recipe", "lock", "--time", "31536000"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "zksim explore --time: '31536000' is not a number of seconds from more than 0 to 10000000 (115 days)\n");
}

TEST(Cli, AFaultClassNamedTwiceIsRefusedAsInAFile) {
  Ran r = zksim({"explore", "--recipe", "lock", "--faults", "pause,pause"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "zksim explore --faults: 'pause' given twice ('pause,pause')\n");
}

TEST(Cli, AClientListIsSpelledWithCommasOrBlanksInBothPlaces) {
  for (const char* list : {"c,curator,kazoo", "c curator kazoo", "c, curator kazoo"}) {
    Ran r = zksim({"explore", "--recipe", "lock", "--client", list, "--runs", "2", "--json"});
    EXPECT_EQ(r.status, 0) << list << ": " << r.err;
    EXPECT_EQ(parse_json(r.out)["campaign"]["search"]["client"], "c,curator,kazoo") << list;
  }
  Ran bad = zksim({"explore", "--recipe", "lock", "--client", "c;curator"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "zksim explore --client: unknown client flavour 'c;curator' (known: any, c, curator, kazoo; a list is "
                     "'c,curator' or 'c curator')\n");
  Ran any = zksim({"explore", "--recipe", "lock", "--client", "any,c"});
  EXPECT_EQ(any.status, 2);
  EXPECT_EQ(any.err, "zksim explore --client: 'any' stands alone: each run draws every client's library\n");
}

TEST(Cli, ListNamesRecipesPropertiesAndFaultClassesOneALine) {
  Ran r = zksim({"list"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("recipe lock correct checks mutual-exclusion,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recipe flawed/herd-lock flawed checks"), std::string::npos);
  EXPECT_NE(r.out.find("breaks herd-effect under no faults"), std::string::npos);
  EXPECT_NE(r.out.find("property mutual-exclusion safety\n"), std::string::npos);
  EXPECT_NE(r.out.find("fault-class pause\n"), std::string::npos);
  Ran j = zksim({"list", "--json"});
  ASSERT_EQ(j.status, 0);
  nlohmann::json doc = parse_json(j.out);
  ASSERT_TRUE(doc.is_object());
  // Text and JSON list the same things: one line per recipe, property, class, strategy, flavour,
  // lease lock and lease fault class.
  EXPECT_EQ(lines(r.out), static_cast<int>(doc["recipes"].size() + doc["properties"].size() + doc["fault_classes"].size() +
                                           doc["strategies"].size() + doc["clients"].size() +
                                           doc["lease_recipes"].size() + doc["lease_fault_classes"].size()));
  EXPECT_NE(r.out.find("lease-recipe redlock redis\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lease-fault-class clock-jump\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("client kazoo: "), std::string::npos);
  // Six on requests, three on time, op-chain, five of the ensemble.
  EXPECT_EQ(doc["fault_classes"].size(), 15u);
  EXPECT_NE(r.out.find("fault-class op-chain\n"), std::string::npos);
  int flawed = 0;
  for (const auto& recipe : doc["recipes"]) {
    EXPECT_FALSE(recipe["properties"].empty()) << recipe["name"];
    if (recipe["flawed"].get<bool>()) {
      ++flawed;
      EXPECT_TRUE(recipe.contains("breaks")) << recipe["name"];
    }
  }
  EXPECT_GE(flawed, 6);
}

// Each property is classed safety, liveness or efficiency, in the one
// property list; list shows it, in text and JSON.
TEST(Cli, ListClassesEachProperty) {
  Ran r = zksim({"list"});
  ASSERT_EQ(r.status, 0);
  for (const char* line : {"property herd-effect efficiency\n", "property no-leaks efficiency\n",
                           "property liveness liveness\n", "property runaway liveness\n",
                           "property queue-no-loss safety\n", "property crashed safety\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  }
  const nlohmann::json doc = parse_json(zksim({"list", "--json"}).out);
  ASSERT_EQ(doc["property_classes"].size(), doc["properties"].size());
  for (const auto& [name, cls] : doc["property_classes"].items()) {
    EXPECT_TRUE(cls == "safety" || cls == "liveness" || cls == "efficiency") << name << ": " << cls;
  }
}

TEST(Cli, ListNamesTheStrategiesAndExploreHelpDocumentsThem) {
  Ran r = zksim({"list"});
  ASSERT_EQ(r.status, 0);
  Ran j = zksim({"list", "--json"});
  EXPECT_EQ(parse_json(j.out)["strategies"], nlohmann::json({"random", "fixed-latency", "dfs", "pct"}));
  Ran help = zksim({"explore", "--help"});
  ASSERT_EQ(help.status, 0);
  for (const char* name : {"random", "fixed-latency", "dfs", "pct"}) {
    EXPECT_NE(r.out.find(std::string("strategy ") + name + "\n"), std::string::npos) << name << ": " << r.out;
    EXPECT_NE(help.out.find(std::string("  ") + name + " "), std::string::npos) << name << ": " << help.out;
  }
  EXPECT_NE(help.out.find("--strategy NAME"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--depth D"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace zksim::cli_test
