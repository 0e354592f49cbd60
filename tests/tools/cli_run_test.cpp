// zksim run: verdicts against expectations, exit statuses, bad input.
#include "cli.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace zksim::cli_test {
namespace {

const char* kPassingLock =
    "zksim-scenario 1\nrecipe lock\nclients 2\nrounds 2\nseed 3\nexpect pass\n";

TEST(CliRun, TheLibraryBehavesAsItExpects) {
  Ran r = zksim({"run", library_dir()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(library_dir())) files += e.path().extension() == ".scn";
  ASSERT_GT(files, 0);
  EXPECT_EQ(lines(r.out), files + 1);  // a line per file, and the summary
  EXPECT_NE(r.out.find(std::to_string(files) + " scenario files: " + std::to_string(files) + " as expected, 0 not"),
            std::string::npos) << r.out;
}

TEST(CliRun, AnUnexpectedVerdictExits1AndSaysWhich) {
  TempDir d;
  const std::string good = d.write("good.scn", kPassingLock);
  // The herd lock wakes every waiter; this file claims it passes.
  const std::string wrong = d.write("wrong.scn", "zksim-scenario 1\nrecipe flawed/herd-lock\nclients 3\nrounds 2\ndecisions\nexpect pass\n");
  Ran r = zksim({"run", good, wrong});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("ok    " + good + ": pass"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL  " + wrong + ": violation herd-effect (expected pass)"), std::string::npos) << r.out;
  Ran j = zksim({"run", "--json", good, wrong});
  EXPECT_EQ(j.status, 1);
  nlohmann::json doc = parse_json(j.out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["unexpected"], 1);
  EXPECT_EQ(doc["as_expected"], 1);
  EXPECT_EQ(doc["files"][1]["verdict"], "violation herd-effect");
  EXPECT_FALSE(doc["files"][1]["as_expected"].get<bool>());
  EXPECT_FALSE(doc["files"][1]["violations"].empty());
}

TEST(CliRun, AMalformedFileIsFileLineColAndExit2BeforeAnythingRuns) {
  TempDir d;
  const std::string good = d.write("good.scn", kPassingLock);
  const std::string bad = d.write("bad.scn", "zksim-scenario 1\nrecipe lock\nclients many\n");
  Ran r = zksim({"run", good, bad});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, bad + ":3:9: 'many' is not a number from 1 to 10000\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
  const std::string unknown = d.write("unknown.scn", "zksim-scenario 1\nrecipe no-such-recipe\n");
  Ran u = zksim({"run", unknown});
  EXPECT_EQ(u.status, 2);
  EXPECT_TRUE(u.err.starts_with(unknown + ":2:8: unknown recipe 'no-such-recipe'")) << u.err;
  EXPECT_EQ(lines(u.err), 1);
}

TEST(CliRun, MissingFilesAndEmptyDirectoriesExit2) {
  TempDir d;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run"}, {"run", d.file("missing.scn")}, {"run", d.path()}}) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  EXPECT_NE(zksim({"run", d.file("missing.scn")}).err.find("missing.scn: no such file"), std::string::npos);
}

}  // namespace
}  // namespace zksim::cli_test
