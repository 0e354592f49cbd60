// The text timeline and the HTML page, on library scenarios and on runs
// built by hand (hostile paths). The page in a real browser:
// timeline_browser_test.cpp.
#include "zksim/timeline/timeline.h"

#include "escape.h"
#include "model.h"
#include "timeline_testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace zksim::timeline {
namespace {

using testing::count;
using testing::library_run;
using testing::lines_of;

// The table of a text timeline: the lines after the first column-title row.
struct Table {
  std::vector<std::string> titles;          // the title row's cells, "time" first
  std::vector<std::vector<std::string>> rows;  // cells of each row (time first; "" on continuation lines)
  std::vector<std::string> raw;             // every table line, violations included
};

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t bar = line.find('|'); bar != std::string::npos; bar = line.find('|', at)) {
    out.push_back(line.substr(at, bar - at));
    at = bar + 1;
  }
  out.push_back(line.substr(at));
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

Table table_of(const std::string& text) {
  Table t;
  bool in_table = false;
  for (const std::string& line : lines_of(text)) {
    if (!in_table && trim(line).starts_with("time |")) in_table = true;
    if (!in_table) continue;
    t.raw.push_back(line);
    if (trim(line).starts_with("time |")) {
      if (t.titles.empty()) {
        for (const std::string& c : split_cells(line)) t.titles.push_back(trim(c));
      }
      continue;
    }
    if (line.starts_with("--------") || line.find("!!! VIOLATION") != std::string::npos) continue;
    t.rows.push_back(split_cells(line));
  }
  return t;
}

// The code-point columns at which '|' appears in `line`.
std::vector<std::size_t> bars(const std::string& line) {
  std::vector<std::size_t> out;
  std::size_t col = 0;
  for (unsigned char c : line) {
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    if (c == '|') out.push_back(col);
    ++col;
  }
  return out;
}

// The rows at time `t` (the first line and its continuation lines).
std::vector<std::vector<std::string>> rows_at(const Table& table, TimeMs t) {
  std::vector<std::vector<std::string>> out;
  bool inside = false;
  for (const auto& row : table.rows) {
    const std::string time = trim(row[0]);
    if (!time.empty()) inside = time == std::to_string(t);
    if (inside) out.push_back(row);
  }
  return out;
}

// The text of a client's cell without its two marker characters.
std::string content(const std::string& cell) { return cell.size() > 3 ? trim(cell.substr(3)) : std::string(); }

TEST(TimelineText, HeaderNamesTheRunVerdictAndViolations) {
  auto r = library_run("flawed-forgetful-lock");
  const std::string t = text(r.scenario, r.run);
  EXPECT_TRUE(t.starts_with("# It ignores session events")) << t.substr(0, 200);
  EXPECT_NE(t.find("recipe flawed/forgetful-lock: 4 clients, 4 rounds, hold 600 ms"), std::string::npos);
  EXPECT_NE(t.find("faults: nemesis pause 30; nemesis-pause-ms 3000"), std::string::npos);
  EXPECT_NE(t.find("seed 10"), std::string::npos);
  EXPECT_NE(t.find("verdict: violation mutual-exclusion (expected: violation mutual-exclusion), as expected"),
            std::string::npos);
  ASSERT_FALSE(r.run.result.violations.empty());
  for (const scenarios::Violation& v : r.run.result.violations) {
    EXPECT_NE(t.find(v.message), std::string::npos) << v.message;
  }

  auto pass = library_run("lock-holder-expires-while-holding");
  const std::string p = text(pass.scenario, pass.run);
  EXPECT_NE(p.find("verdict: pass (expected: pass), as expected"), std::string::npos);
  EXPECT_NE(p.find("violations: none"), std::string::npos);
  EXPECT_NE(p.find("faults: fault expire-session client 0 at 100"), std::string::npos);
}

TEST(TimelineText, AVerdictAgainstItsExpectationIsFlagged) {
  auto r = library_run("lock-holder-expires-while-holding");
  r.run.as_expected = false;
  EXPECT_NE(text(r.scenario, r.run).find("NOT AS EXPECTED"), std::string::npos);
}

TEST(TimelineText, AColumnPerClientAndTheServerAllAligned) {
  auto r = library_run("flawed-forgetful-lock");
  const std::string t = text(r.scenario, r.run);
  const Table table = table_of(t);
  EXPECT_EQ(table.titles, (std::vector<std::string>{"time", "c0", "c1", "c2", "c3", "server"}));
  ASSERT_GT(table.rows.size(), 50u);
  std::vector<std::size_t> expected;
  for (const std::string& line : table.raw) {
    if (trim(line).starts_with("time |")) expected = bars(line);
  }
  for (const std::string& line : table.raw) {
    if (line.find("!!! VIOLATION") != std::string::npos || line.starts_with("--------")) continue;
    EXPECT_EQ(bars(line), expected) << line;
  }
}

TEST(TimelineText, RowsAreInTimeOrderAndEveryTraceInstantHasOne) {
  auto r = library_run("flawed-herd-lock");
  const Table table = table_of(text(r.scenario, r.run));
  std::vector<TimeMs> times;
  for (const auto& row : table.rows) {
    if (!trim(row[0]).empty()) times.push_back(std::atoll(row[0].c_str()));
  }
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  EXPECT_EQ(std::adjacent_find(times.begin(), times.end()), times.end()) << "one row per instant";
  for (const TraceEvent& e : r.run.result.trace) {
    EXPECT_TRUE(std::binary_search(times.begin(), times.end(), e.time)) << "no row at t=" << e.time;
  }
}

TEST(TimelineText, EventsLandInTheirClientsColumn) {
  auto r = library_run("lock-holder-expires-while-holding");
  const Table table = table_of(text(r.scenario, r.run));
  // The scripted fault hits c0 at t=100; the server expires its session.
  auto at100 = rows_at(table, 100);
  ASSERT_FALSE(at100.empty());
  EXPECT_EQ(content(at100.at(0).at(1)), "** expire-session");
  EXPECT_EQ(content(at100.at(0).at(2)), "");
  EXPECT_EQ(trim(at100.at(0).at(4)), "c0 session expired");
  // c1 is woken by the deletion of c0's node and gets the lock at t=103.
  auto at101 = rows_at(table, 101);
  ASSERT_FALSE(at101.empty());
  EXPECT_NE(content(at101.at(0).at(2)).find("! deleted \u2026/_c_0-1-lock-\u20260"), std::string::npos);
  EXPECT_NE(content(at101.at(0).at(1)).find("= connecting"), std::string::npos);
  auto at103 = rows_at(table, 103);
  ASSERT_FALSE(at103.empty());
  EXPECT_EQ(content(at103.at(0).at(2)), "< ok; acquire ok fence 17");
  // c0 hears it lost the lock.
  auto at113 = rows_at(table, 113);
  ASSERT_FALSE(at113.empty());
  EXPECT_EQ(content(at113.at(0).at(1)), "= expired; told lost");
}

// op-chain's first fault (fault.h) shows its chain and the kind it was
// aimed at, which fit a cell; the follow-up (here the outage) shows as the
// fault it is.
TEST(TimelineText, AnOpChainShowsItsChainAndKind) {
  auto r = library_run("lock-op-chain");
  const Table table = table_of(text(r.scenario, r.run));
  auto at19 = rows_at(table, 19);
  ASSERT_GE(at19.size(), 2u);
  EXPECT_EQ(content(at19.at(0).at(4)), "** reply-lost-outage create");
  EXPECT_TRUE(content(at19.at(1).at(4)).starts_with("** drop-before-apply: op-c")) << content(at19.at(1).at(4));
}

TEST(TimelineText, MarkersShowHoldingWaitingPausedAndUnaware) {
  auto r = library_run("lock-holder-expires-while-holding");
  const Table table = table_of(text(r.scenario, r.run));
  auto marker = [&](TimeMs t, int client) { return rows_at(table, t).at(0).at(static_cast<std::size_t>(client) + 1).substr(0, 2); };
  EXPECT_EQ(marker(0, 0), ": ");   // acquire invoked: waiting
  EXPECT_EQ(marker(14, 0), "# ");  // granted
  EXPECT_EQ(marker(16, 0), "# ");
  EXPECT_EQ(marker(100, 0), "#!");  // expired on the server, not told yet
  EXPECT_EQ(marker(103, 0), " ~");  // told suspended at 101: reconnecting, no longer holding
  EXPECT_EQ(marker(103, 1), "# ");
  EXPECT_EQ(marker(405, 2), ": ");
  EXPECT_EQ(marker(407, 2), "# ");

  auto paused = library_run("flawed-forgetful-lock");
  const Table p = table_of(text(paused.scenario, paused.run));
  EXPECT_EQ(rows_at(p, 1245).at(0).at(1).substr(0, 2), "#z");  // c0 holds and is paused
  EXPECT_EQ(rows_at(p, 1245).at(0).at(3).substr(0, 2), ":z");  // c2 waits and is paused
}

void expect_violations_at_their_time(const std::string& scenario) {
  auto r = library_run(scenario);
  const std::vector<std::string> lines = lines_of(text(r.scenario, r.run));
  ASSERT_FALSE(r.run.result.violations.empty()) << scenario;
  for (const scenarios::Violation& v : r.run.result.violations) {
    auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find("!!! VIOLATION " + v.property + ": " + v.message) != std::string::npos;
    });
    ASSERT_NE(it, lines.end()) << v.message;
    EXPECT_EQ(std::atoll(it->c_str()), v.time);
    // The next row is at that time or later, the previous one earlier.
    auto next = std::find_if(it + 1, lines.end(), [](const std::string& l) { return l.find(" |") == 7; });
    ASSERT_NE(next, lines.end());
    EXPECT_GE(std::atoll(next->c_str()), v.time);
  }
}

TEST(TimelineText, ViolationsAppearAtTheirTime) {
  expect_violations_at_their_time("flawed-forgetful-lock");
  expect_violations_at_their_time("flawed-herd-lock");
}

TEST(TimelineText, ViolationsOfTheWholeRunComeAtTheEnd) {
  // A leak has no time and no clients: it is about the run's end state.
  scenarios::Scenario s;
  s.workload = scenarios::Workload{.recipe = "flawed/herd-lock", .clients = 2, .rounds = 1};
  scenarios::ScenarioRun run = scenarios::run_scenario(s);
  run.result.violations.push_back(scenarios::Violation{"no-leaks", "2 watches are left behind", {}, 0});
  const std::vector<std::string> lines = lines_of(text(s, run));
  EXPECT_NE(lines.back().find("end !!! VIOLATION of the whole run: no-leaks: 2 watches"), std::string::npos)
      << lines.back();
}

TEST(TimelineText, ManyClientsStayAlignedAndCellsAreCut) {
  scenarios::Scenario s;
  s.workload = scenarios::Workload{.recipe = "flawed/herd-lock", .clients = 7, .rounds = 6};
  s.seed = 3;
  const scenarios::ScenarioRun run = scenarios::run_scenario(s);
  ASSERT_GT(run.result.trace.size(), 500u);
  TextOptions narrow{.column_width = 16, .max_cell_lines = 2};
  const std::string t = text(s, run, narrow);
  const Table table = table_of(t);
  EXPECT_EQ(table.titles.size(), 9u);  // time, c0..c6, server
  EXPECT_GT(count(t, "\u2026"), 100) << "long cells end in an ellipsis";
  std::vector<std::size_t> expected = bars(table.raw.front());
  for (const std::string& line : table.raw) {
    if (line.find("!!!") != std::string::npos || line.starts_with("--------")) continue;
    EXPECT_EQ(bars(line), expected) << line;
  }
  // No client cell takes more than two lines: rows have at most one continuation line.
  int continuation = 0;
  for (const auto& row : table.rows) {
    continuation = trim(row[0]).empty() ? continuation + 1 : 0;
    EXPECT_LE(continuation, 1);
  }
  // Column titles repeat in long tables.
  EXPECT_GT(count(t, "   time |c0"), 3);
}

// A run by hand whose trace carries hostile strings.
scenarios::ScenarioRun hostile_run(const std::string& path) {
  scenarios::ScenarioRun run;
  run.verdict = "pass";
  run.as_expected = true;
  auto& trace = run.result.trace;
  trace.push_back(TraceEvent{.time = 1, .kind = TraceKind::Request, .client = 0, .session = SessionId{7}, .code = 0, .xid = 1, .path = path});
  trace.push_back(TraceEvent{.time = 3, .kind = TraceKind::Response, .client = 0, .session = SessionId{7}, .zxid = 2, .code = 0, .code2 = 0, .xid = 1, .path = path});
  trace.push_back(TraceEvent{.time = 5, .kind = TraceKind::Annotation, .client = 1, .detail = path});
  trace.push_back(TraceEvent{.time = 6, .kind = TraceKind::Fault, .client = 1, .code = 3, .detail = path});
  run.result.violations.push_back(scenarios::Violation{"mutual-exclusion", path, {0, 1}, 4});
  return run;
}

scenarios::Scenario two_clients() {
  scenarios::Scenario s;
  s.workload.clients = 2;
  return s;
}

TEST(TimelineText, ControlCharactersAndBadUtf8CannotBreakTheLayout) {
  const std::string evil = "/a\nb\r\x1b[31mred\x7f\xff\xc3(\xe2\x82\xac";
  const std::string t = text(two_clients(), hostile_run(evil));
  for (char c : t) {
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << "control character " << int(c);
  }
  EXPECT_EQ(detail::valid_utf8(t), t);
  EXPECT_NE(t.find("/a?b??[31mred?\uFFFD\uFFFD(\u20AC"), std::string::npos);
  const Table table = table_of(t);
  std::vector<std::size_t> expected = bars(table.raw.front());
  for (const std::string& line : table.raw) {
    if (line.find("!!!") == std::string::npos && !line.starts_with("-")) {
      EXPECT_EQ(bars(line), expected) << line;
    }
  }
}

TEST(TimelineHtml, SelfContained) {
  auto r = library_run("flawed-forgetful-lock");
  const std::string page = html(r.scenario, r.run);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  for (const char* fetch : {"http://", "https://", "src=", "href=", "url(", "@import", "//cdn", "fetch(", "XMLHttpRequest"}) {
    EXPECT_EQ(page.find(fetch), std::string::npos) << fetch;
  }
  // The browser is told to refuse any fetch at all.
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(count(page, "<script"), 2);
  EXPECT_EQ(count(page, "</script>"), 2);
  EXPECT_EQ(count(page, "<style>"), 1);
}

TEST(TimelineHtml, LanesForEveryClientTheServerAndEachZnode) {
  auto r = library_run("lock-holder-expires-while-holding");
  const std::string page = html(r.scenario, r.run);
  EXPECT_EQ(count(page, "{\"kind\":\"client\""), 3);
  EXPECT_EQ(count(page, "{\"kind\":\"server\""), 1);
  // /zksim, /zksim/recipe, c0's one node and c1's and c2's three each.
  EXPECT_EQ(count(page, "{\"kind\":\"znode\""), 9);
  EXPECT_NE(page.find("\"title\":\"/zksim/recipe/_c_0-1-lock-0000000000\""), std::string::npos);
  // Lanes are drawn by the script, so the page itself has none.
  EXPECT_EQ(count(page, "class=\"lane"), 0);
  EXPECT_NE(page.find("\"kind\":\"client\",\"name\":\"c0\""), std::string::npos);
  EXPECT_NE(page.find("\"holding\""), std::string::npos);
  EXPECT_NE(page.find("\"unaware\""), std::string::npos);
  EXPECT_NE(page.find("\"watch\""), std::string::npos);
  EXPECT_NE(page.find("[100,\"fault\",\"t=100 fault on c0: expire-session\",0]"), std::string::npos);
}

TEST(TimelineHtml, ViolationsAreHighlighted) {
  auto r = library_run("flawed-forgetful-lock");
  const std::string page = html(r.scenario, r.run);
  EXPECT_NE(page.find("<li>mutual-exclusion at t=4245: c0, c1 believed they held at t=4245 (at most 1 may)</li>"),
            std::string::npos);
  EXPECT_NE(page.find("{\"t\":4245,\"property\":\"mutual-exclusion\",\"message\":\"c0, c1 believed they held at "
                      "t=4245 (at most 1 may)\",\"placed\":true}"),
            std::string::npos);
  // The clients involved are marked.
  EXPECT_NE(page.find("\"name\":\"c0\",\"client\":0,\"title\":\"c0\",\"culprit\":true"), std::string::npos);
  EXPECT_NE(page.find("\"name\":\"c2\",\"client\":2,\"title\":\"c2\",\"culprit\":false"), std::string::npos);
  EXPECT_NE(page.find("id=\"legend\""), std::string::npos);
}

TEST(TimelineHtml, TraceStringsAreEscaped) {
  const std::string evil = "/x</script><script>alert(1)</script>\"'&<!--\xe2\x80\xa8\xff";
  scenarios::Scenario s = two_clients();
  s.comments.push_back("<b>bold</b> & \"quoted\"");
  const std::string page = html(s, hostile_run(evil));
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(count(page, "<script"), 2);
  EXPECT_EQ(count(page, "</script>"), 2);
  EXPECT_NE(page.find("/x\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\\"'\\u0026\\u003c!--\\u2028\uFFFD"),
            std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;"), std::string::npos);
  EXPECT_EQ(detail::valid_utf8(page), page);
}

TEST(TimelineHtml, Deterministic) {
  auto a = library_run("flawed-no-guid-lock");
  auto b = library_run("flawed-no-guid-lock");
  EXPECT_EQ(html(a.scenario, a.run), html(a.scenario, a.run));
  EXPECT_EQ(html(a.scenario, a.run), html(b.scenario, b.run));
  EXPECT_EQ(text(a.scenario, a.run), text(b.scenario, b.run));
  auto other = library_run("flawed-herd-lock");
  EXPECT_NE(html(a.scenario, a.run), html(other.scenario, other.run));
}

TEST(TimelineHtml, EmptyRunStillMakesAPage) {
  const std::string page = html(scenarios::Scenario{}, scenarios::ScenarioRun{});
  EXPECT_NE(page.find("\"lanes\":["), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  EXPECT_FALSE(text(scenarios::Scenario{}, scenarios::ScenarioRun{}).empty());
}

// The page's data: the text of <script id="data">.
std::string page_data(const std::string& page) {
  const std::string open = "<script id=\"data\" type=\"application/json\">\n";
  const std::size_t from = page.find(open);
  if (from == std::string::npos) return {};
  const std::size_t to = page.find("</script>", from);
  return page.substr(from + open.size(), to - from - open.size());
}

// A page of more marks than the limit says so at its top and draws each
// lane's time buckets instead: what the clients held and waited there adds
// up to what they held and waited in the run, every mark is counted once,
// and the violations are the full page's, exactly.
TEST(TimelineHtml, APageOverTheLimitSaysItIsFoldedAndKeepsTheViolationsExact) {
  auto r = library_run("flawed-forgetful-lock");
  const detail::Model full = detail::build_model(r.scenario, r.run);
  ASSERT_GT(full.marks.size(), 100u);
  std::ostringstream out;
  write_html(out, r.scenario, r.run, HtmlOptions{.max_marks = full.marks.size() - 1});
  const std::string page = out.str();
  const std::string note = fmt::format("<p class=\"folded-note\">Folded: this run has {} marks", full.marks.size());
  ASSERT_NE(page.find(note), std::string::npos) << page.substr(0, 2000);
  EXPECT_LT(page.find(note), page.find("<p class=\"verdict")) << "the note comes first";
  EXPECT_EQ(count(page, "<p class=\"folded-note\""), 1);
  // As many marks as the limit: every mark, no note.
  EXPECT_EQ(count(html(r.scenario, r.run), "<p class=\"folded-note\""), 0);
  std::ostringstream at_limit;
  write_html(at_limit, r.scenario, r.run, HtmlOptions{.max_marks = full.marks.size()});
  EXPECT_EQ(at_limit.str(), html(r.scenario, r.run));

  const nlohmann::json data = nlohmann::json::parse(page_data(page));
  const nlohmann::json every = nlohmann::json::parse(page_data(html(r.scenario, r.run)));
  EXPECT_EQ(data["violations"], every["violations"]);
  EXPECT_EQ(data["last"], every["last"]);
  EXPECT_EQ(data["folded"]["marks"], full.marks.size());
  EXPECT_EQ(data["folded"]["max_marks"], full.marks.size() - 1);
  const TimeMs bucket_ms = data["folded"]["bucket_ms"].get<TimeMs>();
  EXPECT_GE(bucket_ms * 400, full.last + 1) << "at most 400 buckets a lane";
  ASSERT_EQ(data["lanes"].size(), 5u) << "the clients and the server, no znodes";
  std::size_t marks = 0;
  TimeMs held_by_all = 0;
  for (int c = 0; c <= 4; ++c) {
    const nlohmann::json& lane = data["lanes"][static_cast<std::size_t>(c)];
    EXPECT_EQ(lane["kind"], c < 4 ? "client" : "server");
    EXPECT_EQ(lane["culprit"], every["lanes"][static_cast<std::size_t>(c)]["culprit"]);
    TimeMs held = 0, waited = 0, faults = 0;
    for (const nlohmann::json& b : lane["buckets"]) {
      held += b[1].get<TimeMs>();
      waited += b[2].get<TimeMs>();
      marks += b[3].get<std::size_t>();
      faults += b[4].get<TimeMs>();
    }
    TimeMs held_in_run = 0, waited_in_run = 0, faults_in_run = 0;
    for (const detail::Span& s : full.spans) {
      if (s.lane != c) continue;
      const TimeMs length = (s.to < 0 ? full.last + 1 : s.to) - s.from;
      if (s.kind == detail::SpanKind::Holding) held_in_run += length;
      if (s.kind == detail::SpanKind::Waiting) waited_in_run += length;
    }
    for (const detail::Mark& k : full.marks) faults_in_run += k.lane == (c < 4 ? c : -1) && k.kind == detail::MarkKind::Fault;
    EXPECT_EQ(held, held_in_run) << "c" << c;
    EXPECT_EQ(waited, waited_in_run) << "c" << c;
    EXPECT_EQ(faults, faults_in_run) << "c" << c;
    held_by_all += held;
  }
  EXPECT_EQ(marks, full.marks.size());
  EXPECT_GT(held_by_all, 0);
}

TEST(LeaseTimeline, ALeasePageOverTheLimitIsFoldedToo) {
  scenarios::LeaseScenario s;
  s.workload = {.recipe = "redisson-rlock", .faults = {lease::LeaseFault::Pause}, .fault_per_mille = 300};
  s.seed = 4;
  const scenarios::LeaseScenarioRun run = scenarios::run_lease_scenario(s);
  std::ostringstream out;
  write_lease_html(out, s, run, HtmlOptions{.max_marks = 10});
  EXPECT_NE(out.str().find(fmt::format("Folded: this run has {} marks", run.run.events.size())), std::string::npos);
  EXPECT_EQ(count(out.str(), "{\"kind\":\"client\""), 3);
  EXPECT_EQ(count(out.str(), "\"buckets\":["), 4);
}

// The pictures of every library scenario (and of one 20-client run), pinned
// by their length and FNV-1a hash in timeline_golden.txt: a faster way of
// drawing must draw the same bytes. For the page, what is pinned is its
// data (the JSON the script draws), not the script or the style. A change
// to the simulator or the recipes that changes these runs changes the
// pictures too: then check the new pictures and rewrite the file with
// ZKSIM_UPDATE_GOLDEN=1.
struct Pinned {
  std::string name;  // a library scenario, or "lock-20-clients"
  std::string what;  // "text" or "html-data"
  std::size_t bytes = 0;
  std::uint64_t hash = 0;
};

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::vector<Pinned> pictures() {
  std::vector<std::pair<std::string, testing::Loaded>> runs;
  std::vector<std::string> names;
  for (const auto& f : std::filesystem::directory_iterator(ZKSIM_LIBRARY_DIR)) {
    if (f.path().extension() == ".scn") names.push_back(f.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) runs.emplace_back(n, library_run(n));
  scenarios::ParseError e;
  const auto many = scenarios::parse_scenario(
      "zksim-scenario 1\nrecipe lock\nclients 20\nrounds 20\nseed 1\nexpect pass\n", "lock-20-clients", &e);
  runs.emplace_back("lock-20-clients", testing::Loaded{*many, scenarios::run_scenario(*many)});
  std::vector<Pinned> out;
  for (const auto& [name, r] : runs) {
    const std::string t = text(r.scenario, r.run), d = page_data(html(r.scenario, r.run));
    out.push_back({name, "text", t.size(), fnv1a(t)});
    out.push_back({name, "html-data", d.size(), fnv1a(d)});
  }
  return out;
}

TEST(TimelineGolden, PicturesOfTheLibraryScenariosAreUnchanged) {
  const std::string golden = std::string(ZKSIM_LIBRARY_DIR) + "/../../tests/tools/timeline_golden.txt";
  const std::vector<Pinned> now = pictures();
  ASSERT_GE(now.size(), 100u);
  if (std::getenv("ZKSIM_UPDATE_GOLDEN")) {
    std::ofstream out(golden);
    out << "# name, picture, bytes, FNV-1a 64 (tests/tools/timeline_test.cpp, TimelineGolden)\n";
    for (const Pinned& p : now) out << fmt::format("{} {} {} {:016x}\n", p.name, p.what, p.bytes, p.hash);
    GTEST_SKIP() << "rewrote " << golden;
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in) << "missing " << golden;
  std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::string>> pinned;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) continue;
    std::istringstream fields(line);
    std::string name, what, hash;
    std::size_t bytes = 0;
    fields >> name >> what >> bytes >> hash;
    pinned[{name, what}] = {bytes, hash};
  }
  EXPECT_EQ(pinned.size(), now.size());
  for (const Pinned& p : now) {
    auto it = pinned.find({p.name, p.what});
    if (it == pinned.end()) {
      ADD_FAILURE() << p.name << " " << p.what << " is not pinned (ZKSIM_UPDATE_GOLDEN=1 adds it)";
      continue;
    }
    EXPECT_EQ(it->second.first, p.bytes) << p.name << " " << p.what;
    EXPECT_EQ(it->second.second, fmt::format("{:016x}", p.hash)) << p.name << " " << p.what;
  }
}

// A lease lock's run: a column per process and one for the servers; its
// holds, waits and pauses as markers; the violation placed at its time.
TEST(LeaseTimeline, AColumnPerProcessWithItsHoldsWaitsAndTheViolation) {
  scenarios::LeaseScenario s;
  s.workload = {.recipe = "flawed/etcd-mutex-no-owner-check",
                .faults = {lease::LeaseFault::KeepAliveLoss, lease::LeaseFault::Pause},
                .fault_per_mille = 150};
  s.seed = 1;
  s.expect_violation = "belief-exclusion";
  const scenarios::LeaseScenarioRun run = scenarios::run_lease_scenario(s);
  ASSERT_TRUE(run.as_expected) << run.run.trace;
  const std::string text = lease_text(s, run);
  EXPECT_EQ(text, lease_text(s, run));
  const Table t = table_of(text);
  EXPECT_EQ(t.titles, (std::vector<std::string>{"time", "p0", "p1", "p2", "servers"}));
  std::map<char, int> markers;  // per first marker character of the process cells
  for (const auto& row : t.rows) {
    for (std::size_t c = 1; c + 1 < row.size() && c <= 3; ++c) {
      if (!row[c].empty()) ++markers[row[c][0]];
    }
  }
  EXPECT_GT(markers['#'], 0) << text;
  EXPECT_GT(markers[':'], 0) << text;
  EXPECT_NE(text.find("verdict: violation belief-exclusion (expected: violation belief-exclusion), as expected"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("!!! VIOLATION belief-exclusion: "), std::string::npos) << text;
  EXPECT_NE(text.find("> etcd txn"), std::string::npos) << text;
  EXPECT_NE(text.find("! etcd watch "), std::string::npos) << text;
  EXPECT_NE(text.find("** "), std::string::npos) << text;
}

TEST(LeaseTimeline, ThePageHasALanePerProcessAndALegendOfWhatALeaseRunShows) {
  scenarios::LeaseScenario s;
  s.workload = {.recipe = "redisson-rlock", .faults = {lease::LeaseFault::Pause}, .fault_per_mille = 300};
  s.seed = 4;
  const std::string page = lease_html(s, scenarios::run_lease_scenario(s));
  EXPECT_EQ(page, lease_html(s, scenarios::run_lease_scenario(s)));
  EXPECT_EQ(count(page, "{\"kind\":\"client\""), 3);
  EXPECT_EQ(count(page, "{\"kind\":\"server\",\"name\":\"servers\""), 1);
  EXPECT_NE(page.find(">holding (as the client believes)<"), std::string::npos);
  EXPECT_NE(page.find(">paused<"), std::string::npos);
  EXPECT_EQ(page.find(">session expired on the server, client not told yet<"), std::string::npos);
  EXPECT_EQ(page.find(">call begins<"), std::string::npos);
}

TEST(LeaseTimeline, APausedProcessShowsZ) {
  scenarios::LeaseScenario s;
  s.workload = {.recipe = "redis-set-nx", .faults = {lease::LeaseFault::Pause}, .fault_per_mille = 500};
  s.seed = 2;
  const scenarios::LeaseScenarioRun run = scenarios::run_lease_scenario(s);
  ASSERT_FALSE(run.run.pauses.empty());
  bool paused = false;
  for (const auto& p : run.run.pauses) paused = paused || !p.empty();
  ASSERT_TRUE(paused);
  const Table t = table_of(lease_text(s, run));
  bool z = false;
  for (const auto& row : t.rows) {
    for (std::size_t c = 1; c + 1 < row.size() && c <= 3; ++c) z = z || (row[c].size() > 1 && row[c][1] == 'z');
  }
  EXPECT_TRUE(z);
}

}  // namespace
}  // namespace zksim::timeline
