// Running the zksim program from tests: its exit status, stdout and stderr,
// in a temporary directory of the test's own.
#pragma once

#include "smoke.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace zksim::cli_test {

struct Ran {
  int status = -1;  // exit status; -1: killed by a signal
  std::string out, err;
};

// Runs the built zksim with `args`, in the current directory.
Ran zksim(const std::vector<std::string>& args);

// A fresh directory, removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to file(name) and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
// The number of lines in `s` (a last line without '\n' counts).
int lines(const std::string& s);
// `text` as JSON; a test failure (and null) when it does not parse.
nlohmann::json parse_json(const std::string& text);

// A campaign's size in a test: `n` runs, a fifth of them (at least 1)
// under the sanitizers (smoke.h). What such a test checks (an exit status,
// a verdict that one run can show, the same output from one and two
// workers) needs no more.
inline std::string runs(int n) { return std::to_string(test::full_or_smoke(n, n / 5 > 0 ? n / 5 : 1)); }

// The library of scenario files in the source tree.
inline std::string library_dir() { return ZKSIM_LIBRARY_DIR; }

}  // namespace zksim::cli_test
