// The text timeline: a header, then one row per instant at which something
// happened, with a column per client and one for the server. Each client
// cell starts with two marker characters that show what lasts (holding,
// waiting, paused, ...), so a stretch of rows shows a span as a vertical line.
#include "zksim/timeline/timeline.h"

#include "model.h"
#include "escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <queue>
#include <sstream>

namespace zksim::timeline {
namespace {

using detail::Mark;
using detail::Model;
using detail::Words;
using detail::Span;
using detail::SpanKind;

constexpr int kTimeWidth = 7;
constexpr int kHeaderEvery = 50;  // rows between repeated column titles

// The two marker characters of each client lane, row after row. A span
// enters when its row time reaches its start and leaves once the time is
// past its end, so a row costs the spans that start or end at it, not every
// span of the run. REQUIRES: `spans` by lane, then start (Model::spans);
// at() called with non-decreasing times.
class Markers {
 public:
  Markers(const std::vector<Span>& spans, int clients) : lanes_(static_cast<std::size_t>(clients)) {
    for (const Span& s : spans) {
      if (s.lane >= 0 && s.lane < clients) lanes_[static_cast<std::size_t>(s.lane)].spans.push_back(&s);
    }
  }

  // What lasts on `lane` at `t`: holding '#' (or ':' in a call), and the
  // most telling session condition (X crashed > z paused > ! expired, not
  // told > ~ reconnecting).
  std::string at(int lane, TimeMs t) {
    Lane& l = lanes_[static_cast<std::size_t>(lane)];
    for (; l.next < l.spans.size() && l.spans[l.next]->from <= t; ++l.next) {
      const Span& s = *l.spans[l.next];
      ++l.open[static_cast<std::size_t>(s.kind)];
      l.ends.push({s.to < 0 ? INT64_MAX : s.to, s.kind});
    }
    for (; !l.ends.empty() && l.ends.top().first < t; l.ends.pop()) --l.open[static_cast<std::size_t>(l.ends.top().second)];
    const auto open = [&](SpanKind k) { return l.open[static_cast<std::size_t>(k)] > 0; };
    const char belief = open(SpanKind::Holding) ? '#' : open(SpanKind::Waiting) || open(SpanKind::Call) ? ':' : ' ';
    const char session = open(SpanKind::Crashed) ? 'X' : open(SpanKind::Paused) ? 'z' : open(SpanKind::Unaware) ? '!'
                         : open(SpanKind::Disconnected) ? '~' : ' ';
    return {belief, session};
  }

 private:
  using End = std::pair<TimeMs, SpanKind>;
  struct Lane {
    std::vector<const Span*> spans;               // by start
    std::size_t next = 0;                         // the first span not yet started
    std::array<int, detail::kSpanKinds> open{};  // spans open now, per kind
    std::priority_queue<End, std::vector<End>, std::greater<>> ends;  // of the open spans, soonest first
  };
  std::vector<Lane> lanes_;
};

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
  for (int c = 0; c < m.clients; ++c) row += fmt::format("|{}", detail::pad(m.lane(c), w));
  row += fmt::format("|{}\n", m.server_title);
  std::string rule(static_cast<std::size_t>(kTimeWidth) + 1, '-');
  for (int c = 0; c <= m.clients; ++c) rule += fmt::format("+{}", std::string(c < m.clients ? w : 10, '-'));
  return row + rule + "\n";
}

std::string header(const Model& m) {
  std::string out;
  for (const std::string& line : m.header) out += detail::printable(line) + "\n";
  if (!m.verdict.empty()) {  // a trace without a verdict was not judged (zksim serve's)
    out += fmt::format("verdict: {} (expected: {}){}\n", m.verdict, m.expected,
                       m.as_expected ? ", as expected" : ", NOT AS EXPECTED");
    if (m.violations.empty()) out += "violations: none\n";
  }
  for (const scenarios::Violation& v : m.violations) {
    std::string who;
    for (int c : v.clients) who += fmt::format("{}{}", who.empty() ? "" : ", ", m.lane(c));
    const std::string when = detail::about_whole_run(v) ? std::string("of the whole run") : fmt::format("at t={}", v.time);
    out += detail::printable(fmt::format("violation {}: {}{}: {}", when, v.property,
                                         who.empty() ? std::string() : fmt::format(" ({})", who), v.message)) + "\n";
  }
  out += fmt::format("trace: {} events until t={}", m.trace_events, m.last);
  if (!m.base.empty()) out += detail::printable(fmt::format("; paths: \u2026 is {}, \u2026/x is {}/x", m.base, m.base));
  out += "\n";
  for (const std::string& line : m.legend) out += line + "\n";
  return out;
}

}  // namespace

namespace detail {

void render_text(const Model& m, int column_width, int max_cell_lines, std::ostream& out) {
  const std::size_t w = static_cast<std::size_t>(std::max(column_width, 12));
  const std::size_t content = w - 3;
  const std::size_t max_lines = static_cast<std::size_t>(std::max(max_cell_lines, 1));

  out << header(m) << "\n";
  const std::string titles = title_rows(m, w);
  std::size_t v = 0, rows = 0;
  Markers markers(m.spans, m.clients);
  std::vector<scenarios::Violation> in_time, whole_run;
  for (const scenarios::Violation& x : m.violations) (detail::about_whole_run(x) ? whole_run : in_time).push_back(x);
  const auto violations_until = [&](TimeMs t) {
    for (; v < in_time.size() && in_time[v].time <= t; ++v) {
      const scenarios::Violation& x = in_time[v];
      out << detail::printable(fmt::format("{:>{}} !!! VIOLATION {}: {}", x.time, kTimeWidth, x.property, x.message)) << "\n";
    }
  };
  // The row of one instant, written when the marks reach the next: every
  // lane's labels at t (clients 0.., then the server).
  std::vector<std::vector<std::string>> labels(static_cast<std::size_t>(m.clients) + 1);
  TimeMs t = 0;
  bool any = false;
  std::string row;
  const auto write_row = [&] {
    if (rows++ % kHeaderEvery == 0) out << titles;
    violations_until(t);
    std::vector<std::string> marker(static_cast<std::size_t>(m.clients));
    for (int lane = 0; lane < m.clients; ++lane) marker[static_cast<std::size_t>(lane)] = markers.at(lane, t);
    std::vector<std::vector<std::string>> cells;
    std::size_t height = 1;
    for (const auto& l : labels) {
      const bool server = cells.size() == static_cast<std::size_t>(m.clients);
      cells.push_back(pack(l, server ? content + 12 : content, max_lines));
      height = std::max(height, cells.back().size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      row = line == 0 ? fmt::format("{:>{}} ", t, kTimeWidth) : std::string(kTimeWidth + 1, ' ');
      for (std::size_t lane = 0; lane < cells.size(); ++lane) {
        const bool server = lane + 1 == cells.size();
        const std::string text = line < cells[lane].size() ? cells[lane][line] : std::string();
        if (server) {
          row += fmt::format("|{}", text);
        } else {
          row += fmt::format("|{} {}", marker[lane], detail::pad(text, content));
        }
      }
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out << row << "\n";
    }
    for (auto& l : labels) l.clear();
  };
  m.each_mark(Words::Label, [&](const Mark& k) {
    if (any && k.t != t) write_row();
    t = k.t;
    any = true;
    const std::size_t lane = k.lane < 0 ? labels.size() - 1 : static_cast<std::size_t>(k.lane);
    labels[lane].push_back(k.label);
  });
  if (any) write_row();
  violations_until(INT64_MAX);
  for (const scenarios::Violation& x : whole_run) {
    out << detail::printable(fmt::format("{:>{}} !!! VIOLATION of the whole run: {}: {}", "end", kTimeWidth, x.property, x.message)) << "\n";
  }
}

}  // namespace detail

void write_text(std::ostream& out, const scenarios::Scenario& s, const scenarios::ScenarioRun& run,
                const TextOptions& options) {
  detail::render_text(detail::build_model(s, run, detail::Keep::Frame), options.column_width, options.max_cell_lines, out);
}

std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run, const TextOptions& options) {
  std::ostringstream out;
  write_text(out, s, run, options);
  return std::move(out).str();
}

std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  return text(s, run, TextOptions{});
}

void write_lease_text(std::ostream& out, const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                      const TextOptions& options) {
  detail::render_text(detail::build_lease_model(s, run, detail::Keep::Frame), options.column_width,
                      options.max_cell_lines, out);
}

std::string lease_text(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                       const TextOptions& options) {
  std::ostringstream out;
  write_lease_text(out, s, run, options);
  return std::move(out).str();
}

}  // namespace zksim::timeline
