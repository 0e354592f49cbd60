// --out of explore and matrix: a place that cannot take the scenario files
// is bad input, found before any run (a campaign that finds nothing would
// never notice it otherwise).
#include "cli.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace zksim::cli_test {
namespace {

// A campaign of each command that finds no violation, so writes nothing.
std::vector<std::vector<std::string>> campaigns_writing_to(const std::string& out) {
  return {{"explore", "--recipe", "lock", "--runs", "3", "--out", out},
          {"matrix", "--recipes", "lock", "--faults", "none", "--budget", "2", "--out", out}};
}

TEST(CliOut, AnEmptyPathIsBadInput) {
  for (const auto& args : campaigns_writing_to("")) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 2) << args[0];
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("zksim " + args[0] + " --out: empty path"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliOut, APathThatIsNotADirectoryIsBadInputBeforeAnyRun) {
  TempDir d;
  const std::string plain = d.write("plain", "x");
  for (const std::string& out : {plain, plain + "/below"}) {
    for (const auto& args : campaigns_writing_to(out)) {
      Ran r = zksim(args);
      EXPECT_EQ(r.status, 2) << args[0] << " " << out;
      EXPECT_EQ(r.err, "zksim " + args[0] + " --out: not a directory: " + plain + "\n");
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

TEST(CliOut, AnUnwritablePlaceIsBadInputBeforeAnyRun) {
  // Root writes through permissions, but not into /proc.
  TempDir d;
  std::string place = "/proc";
  if (geteuid() != 0) {
    place = d.file("locked");
    ASSERT_EQ(mkdir(place.c_str(), 0555), 0);
  }
  for (const std::string& out : {place, place + "/failures/deeper"}) {
    for (const auto& args : campaigns_writing_to(out)) {
      Ran r = zksim(args);
      EXPECT_EQ(r.status, 2) << args[0] << " " << out;
      EXPECT_EQ(lines(r.err), 1) << r.err;
      EXPECT_TRUE(r.err.starts_with("zksim " + args[0] + " --out: cannot write in " + place + ": ")) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

// The page is checked before the run and the refusal says why.
TEST(CliOut, ATimelinePageThatCannotBeWrittenSaysWhy) {
  TempDir d;
  for (const std::string& place : {d.path(), d.file("no/such/dir/page.html"), std::string("/proc/page.html")}) {
    Ran r = zksim({"timeline", "--html", place, std::string(ZKSIM_LIBRARY_DIR) + "/lock-pause.scn"});
    EXPECT_EQ(r.status, 2) << place;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.err.starts_with("zksim timeline --html: cannot write " + place + ": ")) << r.err;
  }
}

TEST(CliOut, AMissingDirectoryIsFineAndMadeOnlyWhenSomethingIsWritten) {
  TempDir d;
  for (const auto& args : campaigns_writing_to(d.file("new/failures"))) {
    Ran r = zksim(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(d.file("new")));
}

}  // namespace
}  // namespace zksim::cli_test
