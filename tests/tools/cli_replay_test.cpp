// zksim replay and zksim timeline: what any rendering must satisfy (exit
// statuses, output written and naming every client), and bad input.
#include "cli.h"

#include <gtest/gtest.h>

namespace zksim::cli_test {
namespace {

const char* kLock = "zksim-scenario 1\nrecipe lock\nclients 3\nrounds 2\nseed 5\nexpect pass\n";

TEST(CliReplay, PrintsATimelineNamingEveryClientAndTheVerdict) {
  TempDir d;
  const std::string f = d.write("lock.scn", kLock);
  Ran r = zksim({"replay", f});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* c : {"c0", "c1", "c2"}) EXPECT_NE(r.out.find(c), std::string::npos) << c;
  EXPECT_NE(r.out.find("verdict: pass (expected pass)"), std::string::npos) << r.out;
  // The same run every time.
  EXPECT_EQ(zksim({"replay", f}).out, r.out);
}

TEST(CliReplay, AVerdictOtherThanExpectedExits1) {
  TempDir d;
  const std::string f = d.write("claims-violation.scn",
                                "zksim-scenario 1\nrecipe lock\nclients 2\nrounds 1\nseed 5\nexpect violation mutual-exclusion\n");
  Ran r = zksim({"replay", f});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("verdict: pass (expected violation mutual-exclusion; NOT as expected)"), std::string::npos) << r.out;
  Ran j = zksim({"replay", "--json", f});
  EXPECT_EQ(j.status, 1);
  nlohmann::json doc = parse_json(j.out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_FALSE(doc["as_expected"].get<bool>());
  EXPECT_FALSE(doc["timeline"].get<std::string>().empty());
}

TEST(CliReplay, BadInputExits2WithOneLine) {
  TempDir d;
  const std::string bad = d.write("bad.scn", "zksim-scenario 3\n");
  const std::vector<std::vector<std::string>> cases{
      {"replay"}, {"replay", d.file("missing.scn")}, {"replay", bad}, {"replay", bad, bad}, {"replay", d.path()}};
  for (const auto& args : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  EXPECT_TRUE(zksim({"replay", bad}).err.starts_with(bad + ":1:16: unsupported format version 3"));
}

TEST(CliTimeline, WritesAPageNamingEveryClient) {
  TempDir d;
  const std::string f = d.write("lock.scn", kLock);
  Ran r = zksim({"timeline", f, "--html", d.file("page.html")});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string page = read_file(d.file("page.html"));
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("<html"), std::string::npos);
  for (const char* c : {"c0", "c1", "c2"}) EXPECT_NE(page.find(c), std::string::npos) << c;
  EXPECT_NE(r.out.find(d.file("page.html")), std::string::npos) << r.out;
}

TEST(CliTimeline, BadInputExits2WithOneLine) {
  TempDir d;
  const std::string f = d.write("lock.scn", kLock);
  const std::string bad = d.write("bad.scn", "zksim-scenario 1\nrecipe lock\nfault pause client 7 at 10\n");
  const std::vector<std::vector<std::string>> cases{
      {"timeline", f},                                                 // no --html
      {"timeline", f, "--html"},                                       // no OUT
      {"timeline", d.file("missing.scn"), "--html", d.file("x.html")},
      {"timeline", bad, "--html", d.file("x.html")},
      {"timeline", f, "--html", d.file("no-such-dir/x.html")}};
  for (const auto& args : cases) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  EXPECT_TRUE(zksim({"timeline", bad, "--html", d.file("x.html")}).err.starts_with(bad + ":3:1: fault names client 7"));
}

}  // namespace
}  // namespace zksim::cli_test
