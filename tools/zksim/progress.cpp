#include "progress.h"

#include <fmt/format.h>

#include <cstdio>

namespace zksim::cli {

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled), start_(Clock::now()), last_(start_) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::show(const std::string& what, std::int64_t runs, std::size_t probes, std::int64_t violations) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(runs) / elapsed : 0;
  std::fputs(fmt::format("\r\033[K{}  runs {}  {:.0f}/s  probes {}  violations {}", what, runs, rate, probes, violations).c_str(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace zksim::cli
