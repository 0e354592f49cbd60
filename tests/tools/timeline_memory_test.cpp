// The timelines' memory does not grow with the run's trace (label memory).
// In a child process the run is made first (its trace is the run's own:
// its checkers read it whole), free memory is handed back and the peak
// resident size reset (/proc/self/clear_refs); then a picture is written
// to a sink, and what the peak grew by is what the picture took. A run
// four times as long must take no more. Memory, not time: the figures do
// not depend on the machine's load. The sanitizer pass leaves this label
// out: ASan keeps freed memory in quarantine, so its peaks say nothing
// about the code's.
#include "zksim/timeline/timeline.h"

#include "model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <ostream>
#include <streambuf>
#include <string>

namespace zksim::timeline {
namespace {

// Counts what is written to it, and keeps nothing.
class CountingSink : public std::streambuf {
 public:
  std::size_t bytes = 0;

 protected:
  int_type overflow(int_type c) override {
    bytes += c != traits_type::eof();
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::size_t>(n);
    return n;
  }
};

// A /proc/self/status field in kB ("VmHWM", "VmRSS").
long status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(field + ":")) return std::atol(line.c_str() + field.size() + 1);
  }
  return -1;
}

// The herd lock of 20 clients and `rounds` rounds (seed 1, no faults):
// every release wakes every waiter, so its trace is long (about 37 events
// a recipe call) and its history short, as a long run's usually is.
scenarios::Scenario herd_scenario(int rounds) {
  scenarios::ParseError e;
  auto s = scenarios::parse_scenario(
      fmt::format("zksim-scenario 1\nrecipe flawed/herd-lock\nclients 20\nrounds {}\nseed 1\nexpect pass\n", rounds), "herd.scn", &e);
  EXPECT_TRUE(s) << e.text();
  return s ? *s : scenarios::Scenario{};
}

struct Growth {
  std::size_t events = 0;  // the run's trace events
  long kb = -1;            // how far the peak rose over what was resident before
  std::size_t bytes = 0;   // what the picture wrote
};

// The pictures measured.
enum class Picture { Text, FoldedPage, EveryMark };

void draw(Picture p, std::ostream& out, const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  switch (p) {
    case Picture::Text: write_text(out, s, run); break;
    // Over the limit (a run over the default's 100,000 marks would take
    // too long for a test): folded.
    case Picture::FoldedPage: write_html(out, s, run, HtmlOptions{.max_marks = 10'000}); break;
    // What a page of a run under the limit keeps (and the text kept before).
    case Picture::EveryMark: out << detail::build_model(s, run, detail::Keep::Everything).marks.size(); break;
  }
}

// In a child process: runs the herd scenario of `rounds` rounds, hands
// free memory back and resets the peak, then draws `p` to a sink.
Growth measure_in_child(int rounds, Picture p) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Growth g;
    {
      const scenarios::Scenario s = herd_scenario(rounds);
      const scenarios::ScenarioRun run = scenarios::run_scenario(s);
      g.events = run.result.trace.size();
      malloc_trim(0);
      std::ofstream("/proc/self/clear_refs") << "5";
      const long before = status_kb("VmRSS");
      CountingSink sink;
      {
        std::ostream out(&sink);
        draw(p, out, s, run);
      }
      g.kb = status_kb("VmHWM") - before;
      g.bytes = sink.bytes;
    }
    const bool written = write(fds[1], &g, sizeof g) == static_cast<ssize_t>(sizeof g);
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  Growth g;
  const bool got = read(fds[0], &g, sizeof g) == static_cast<ssize_t>(sizeof g);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(got && WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
  return g;
}

// 25 and 100 rounds: about 34,000 and 135,000 trace events (8 and 31 MB
// of trace, the run's own).
constexpr int kShort = 25, kLong = 100;
// What a picture may take, whatever the run's length: a row of text, the
// run's frame (its sessions, paths and recipe calls: a few hundred kB
// here) and the allocator's slack.
constexpr long kBoundKb = 4 * 1024;
// What a run four times as long may add: its frame's growth (3,000 more
// recipe calls here, at about 270 bytes each at the frame's peak: 800 kB).
constexpr long kMoreKb = 1536;

// The figures, printed by every test (for the log) and with a failure.
std::string figures(const Growth& a, const Growth& b) {
  return fmt::format("{} events: {} kB, {} bytes written; {} events: {} kB, {} bytes written", a.events, a.kb, a.bytes,
                     b.events, b.kb, b.bytes);
}

TEST(TimelineMemory, TheTextTimelineTakesNoMoreForALongerRun) {
  const Growth a = measure_in_child(kShort, Picture::Text), b = measure_in_child(kLong, Picture::Text);
  std::printf("text: %s\n", figures(a, b).c_str());
  ASSERT_GT(b.events, 3 * a.events);
  ASSERT_GT(b.bytes, 3 * a.bytes) << "the text has every event";
  EXPECT_GE(a.kb, 0);
  EXPECT_LT(b.kb, kBoundKb) << figures(a, b);
  EXPECT_LT(b.kb, a.kb + kMoreKb) << figures(a, b);
}

TEST(TimelineMemory, AFoldedPageTakesNoMoreForALongerRun) {
  const Growth a = measure_in_child(kShort, Picture::FoldedPage), b = measure_in_child(kLong, Picture::FoldedPage);
  std::printf("folded page: %s\n", figures(a, b).c_str());
  ASSERT_GT(b.events, 3 * a.events);
  EXPECT_LT(b.bytes, 2 * a.bytes) << "a folded page's size does not grow with the trace either; " << figures(a, b);
  EXPECT_GE(a.kb, 0);
  EXPECT_LT(b.kb, kBoundKb) << figures(a, b);
  EXPECT_LT(b.kb, a.kb + kMoreKb) << figures(a, b);
}

// The measure can fail: a model that keeps every mark grows with the run,
// well past the bound.
TEST(TimelineMemory, AModelOfEveryMarkIsSeenToGrow) {
  const Growth a = measure_in_child(kShort, Picture::EveryMark), b = measure_in_child(kLong, Picture::EveryMark);
  std::printf("every mark: %s\n", figures(a, b).c_str());
  EXPECT_GT(b.kb, 4 * kBoundKb) << figures(a, b);
  EXPECT_GT(b.kb, 3 * a.kb) << figures(a, b);
}

}  // namespace
}  // namespace zksim::timeline
