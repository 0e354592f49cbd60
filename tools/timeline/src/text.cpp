// The text timeline: a header, then one row per instant at which something
// happened, with a column per client and one for the server. Each client
// cell starts with two marker characters that show what lasts (holding,
// waiting, paused, ...), so a stretch of rows shows a span as a vertical line.
#include "zksim/timeline/timeline.h"

#include "model.h"
#include "escape.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::timeline {
namespace {

using detail::Mark;
using detail::Model;
using detail::Span;
using detail::SpanKind;

constexpr int kTimeWidth = 7;
constexpr int kHeaderEvery = 50;  // rows between repeated column titles

bool covers(const Span& s, TimeMs t) { return s.from <= t && (s.to < 0 || t <= s.to); }

// The two marker characters of `lane` at `t`.
std::string markers(const std::vector<Span>& spans, int lane, TimeMs t) {
  char belief = ' ', session = ' ';
  int rank = 0;  // of `session`: the most telling condition wins
  for (const Span& s : spans) {
    if (s.lane != lane || !covers(s, t)) continue;
    if (s.kind == SpanKind::Holding) belief = '#';
    if ((s.kind == SpanKind::Waiting || s.kind == SpanKind::Call) && belief == ' ') belief = ':';
    const auto raise = [&](int r, char c) {
      if (r > rank) rank = r, session = c;
    };
    if (s.kind == SpanKind::Disconnected) raise(1, '~');
    if (s.kind == SpanKind::Unaware) raise(2, '!');
    if (s.kind == SpanKind::Paused) raise(3, 'z');
    if (s.kind == SpanKind::Crashed) raise(4, 'X');
  }
  return {belief, session};
}

// Labels packed into lines of `width` columns, at most `max_lines`; what
// does not fit ends in an ellipsis.
std::vector<std::string> pack(const std::vector<std::string>& labels, std::size_t width, std::size_t max_lines) {
  std::vector<std::string> lines;
  for (const std::string& raw : labels) {
    const std::string label = detail::printable(raw);
    if (!lines.empty() && detail::columns(lines.back()) + 2 + detail::columns(label) <= width) {
      lines.back() += fmt::format("; {}", label);
    } else {
      lines.push_back(label);
    }
  }
  if (lines.size() > max_lines) {
    std::string rest = lines[max_lines - 1];
    for (std::size_t i = max_lines; i < lines.size(); ++i) rest += fmt::format("; {}", lines[i]);
    lines.resize(max_lines);
    lines.back() = rest;
  }
  for (std::string& l : lines) l = detail::clip(l, width);
  return lines;
}

std::string title_rows(const Model& m, std::size_t w) {
  std::string row = fmt::format("{:>{}} ", "time", kTimeWidth);
  for (int c = 0; c < m.clients; ++c) row += fmt::format("|{}", detail::pad(detail::lane_name(c), w));
  row += "|server\n";
  std::string rule(static_cast<std::size_t>(kTimeWidth) + 1, '-');
  for (int c = 0; c <= m.clients; ++c) rule += fmt::format("+{}", std::string(c < m.clients ? w : 10, '-'));
  return row + rule + "\n";
}

std::string header(const Model& m) {
  std::string out;
  for (const std::string& line : m.header) out += detail::printable(line) + "\n";
  out += fmt::format("verdict: {} (expected: {}){}\n", m.verdict, m.expected,
                     m.as_expected ? ", as expected" : ", NOT AS EXPECTED");
  if (m.violations.empty()) out += "violations: none\n";
  for (const scenarios::Violation& v : m.violations) {
    std::string who;
    for (int c : v.clients) who += fmt::format("{}{}", who.empty() ? "" : ", ", detail::lane_name(c));
    const std::string when = detail::about_whole_run(v) ? std::string("of the whole run") : fmt::format("at t={}", v.time);
    out += detail::printable(fmt::format("violation {}: {}{}: {}", when, v.property,
                                         who.empty() ? std::string() : fmt::format(" ({})", who), v.message)) + "\n";
  }
  out += fmt::format("trace: {} events until t={}", m.trace_events, m.last);
  if (!m.base.empty()) out += detail::printable(fmt::format("; paths: \u2026 is {}, \u2026/x is {}/x", m.base, m.base));
  out += "\n";
  out += "markers: # holding  : in a call (waiting)  z paused  ! expired on the server, not yet told  "
         "~ reconnecting  X crashed\n";
  out += "events: f() call begins  f ok/FAIL/INFO call ends  told: news from the recipe  > request  < reply  "
         "! watch event  = session state  ** fault  fence N: the grant's fencing token\n";
  return out;
}

}  // namespace

std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run, const TextOptions& options) {
  const Model m = detail::build_model(s, run);
  const std::size_t w = static_cast<std::size_t>(std::max(options.column_width, 12));
  const std::size_t content = w - 3;
  const std::size_t max_lines = static_cast<std::size_t>(std::max(options.max_cell_lines, 1));

  std::string out = header(m) + "\n";
  const std::string titles = title_rows(m, w);
  std::size_t v = 0, rows = 0;
  std::vector<scenarios::Violation> in_time, whole_run;
  for (const scenarios::Violation& x : m.violations) (detail::about_whole_run(x) ? whole_run : in_time).push_back(x);
  const auto violations_until = [&](TimeMs t) {
    for (; v < in_time.size() && in_time[v].time <= t; ++v) {
      const scenarios::Violation& x = in_time[v];
      out += detail::printable(fmt::format("{:>{}} !!! VIOLATION {}: {}", x.time, kTimeWidth, x.property, x.message)) + "\n";
    }
  };
  for (std::size_t i = 0; i < m.marks.size();) {
    const TimeMs t = m.marks[i].t;
    // Every lane's labels at t: clients 0.., then the server.
    std::vector<std::vector<std::string>> labels(static_cast<std::size_t>(m.clients) + 1);
    for (; i < m.marks.size() && m.marks[i].t == t; ++i) {
      const Mark& k = m.marks[i];
      const std::size_t lane = k.lane < 0 ? labels.size() - 1 : static_cast<std::size_t>(k.lane);
      labels[lane].push_back(k.label);
    }
    if (rows++ % kHeaderEvery == 0) out += titles;
    violations_until(t);
    std::vector<std::vector<std::string>> cells;
    std::size_t height = 1;
    for (const auto& l : labels) {
      const bool server = cells.size() == static_cast<std::size_t>(m.clients);
      cells.push_back(pack(l, server ? content + 12 : content, max_lines));
      height = std::max(height, cells.back().size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      std::string row = line == 0 ? fmt::format("{:>{}} ", t, kTimeWidth) : std::string(kTimeWidth + 1, ' ');
      for (std::size_t lane = 0; lane < cells.size(); ++lane) {
        const bool server = lane + 1 == cells.size();
        const std::string text = line < cells[lane].size() ? cells[lane][line] : std::string();
        if (server) {
          row += fmt::format("|{}", text);
        } else {
          row += fmt::format("|{} {}", markers(m.spans, static_cast<int>(lane), t), detail::pad(text, content));
        }
      }
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n";
    }
  }
  violations_until(INT64_MAX);
  for (const scenarios::Violation& x : whole_run) {
    out += detail::printable(fmt::format("{:>{}} !!! VIOLATION of the whole run: {}: {}", "end", kTimeWidth, x.property, x.message)) + "\n";
  }
  return out;
}

std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  return text(s, run, TextOptions{});
}

}  // namespace zksim::timeline
