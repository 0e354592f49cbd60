// The live progress line of explore and matrix, on stderr, only when stderr
// is a terminal: redrawn in place at most ten times a second, erased when
// done. The one place (with time budgets) where wall-clock time is read.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace zksim::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // "<what>  runs 1200  3400/s  probes 12  violations 3".
  void show(const std::string& what, std::int64_t runs, std::size_t probes, std::int64_t violations);
  // Erases the line (before printing results).
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};

}  // namespace zksim::cli
