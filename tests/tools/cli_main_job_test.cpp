// zksim matrix with its defaults: the main job, as scripts/main.sh runs it.
// In its own binary, labelled `shrink` too: it catches and shrinks every
// flawed recipe, which takes minutes under the sanitizers (see test.sh).
#include "cli.h"

#include <gtest/gtest.h>

namespace zksim::cli_test {
namespace {

// The main job as the README runs it. Whether every correct recipe holds is
// the recipes' business (a violation found is a finding, and exit 1 says
// so); this checks that every recipe has a row, every flawed one is caught,
// every violation has a note with its scenario file, and the exit status
// agrees with the rows.
TEST(CliMainJob, TheDefaultMatrixCoversEveryRecipeAndExitsAsItsRowsSay) {
  TempDir d;
  Ran r = zksim({"matrix", "--out", d.path()});
  ASSERT_NE(r.status, 2) << r.err;
  nlohmann::json list = parse_json(zksim({"list", "--json"}).out);
  bool all_hold = true;
  for (const auto& recipe : list["recipes"]) {
    const std::string name = recipe["name"];
    const auto row = r.out.find("\n" + name + " ");
    ASSERT_NE(row, std::string::npos) << name << " has no row";
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    if (recipe["flawed"].get<bool>()) {
      EXPECT_TRUE(line.ends_with("caught (" + recipe["breaks"].get<std::string>() + ")")) << line;
    } else {
      EXPECT_TRUE(line.ends_with(" holds") || line.ends_with(" VIOLATED")) << line;
      all_hold = all_hold && line.ends_with(" holds");
    }
  }
  for (int n = 1; r.out.find(" X" + std::to_string(n) + " ") != std::string::npos; ++n) {
    EXPECT_NE(r.out.find("\nX" + std::to_string(n) + " "), std::string::npos) << "no note " << n;
  }
  EXPECT_EQ(r.status, all_hold ? 0 : 1) << r.out;
  EXPECT_NE(r.out.find(all_hold ? "flawed recipes caught by the property they break: OK"
                                : "flawed recipes caught by the property they break: FAILED"),
            std::string::npos) << r.out;
}

}  // namespace
}  // namespace zksim::cli_test
