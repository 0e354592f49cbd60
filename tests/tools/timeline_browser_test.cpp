// The HTML timeline in a real browser: Debian's headless Chromium loads a
// library scenario's page from a file, runs its script and dumps the DOM.
// The page must draw a lane per client, the server and each znode, a band
// per violation, and write nothing to the console. Pages with a script
// error show that the checks can fail. Chromium missing is a failure, not
// a skip (scripts/install-deps.sh installs it).
#include "zksim/timeline/timeline.h"

#include "model.h"
#include "timeline_testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace zksim::timeline {
namespace {

using testing::count;
using testing::library_run;

struct Loaded {
  int exit_code = -1;
  std::string dom;      // the DOM after the scripts ran
  std::string console;  // the console lines chromium logged
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// Loads `page` from a file in a fresh temporary directory (its HOME and
// profile too) with a 90 s limit, in a 1400x900 window. --no-sandbox: CI
// runs as root.
Loaded load(const std::string& page) {
  std::string dir_template = (std::filesystem::temp_directory_path() / "zksim-timeline-XXXXXX").string();
  if (!mkdtemp(dir_template.data())) {
    ADD_FAILURE() << "cannot make a temporary directory";
    return {};
  }
  const std::filesystem::path dir = dir_template;
  std::ofstream(dir / "page.html", std::ios::binary) << page;
  const std::string command = fmt::format(
      "cd '{0}' && HOME='{0}' timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--no-first-run --window-size=1400,900 --user-data-dir='{0}/profile' --enable-logging=stderr --v=0 "
      "--dump-dom 'file://{0}/page.html' >dom.html 2>log.txt",
      dir.string());
  Loaded out;
  const int status = std::system(command.c_str());
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.dom = slurp(dir / "dom.html");
  // Chromium logs every console message (any level) and every uncaught
  // error as a "CONSOLE" line; the page writes nothing on purpose.
  std::istringstream log(slurp(dir / "log.txt"));
  for (std::string line; std::getline(log, line);) {
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) {
      out.console += fmt::format("{}\n", line);
    }
  }
  if (out.exit_code != 0) out.console += fmt::format("chromium exited with {}; its log:\n{}", out.exit_code, slurp(dir / "log.txt"));
  std::filesystem::remove_all(dir);
  return out;
}

#define REQUIRE_CHROMIUM()                                                                              \
  ASSERT_TRUE(have_chromium()) << "chromium is not installed: the HTML timeline test needs Debian's " \
                                  "chromium package (scripts/install-deps.sh installs it)"

TEST(TimelineBrowser, LibraryPageLoadsCleanlyAndDrawsItsLanes) {
  REQUIRE_CHROMIUM();
  auto r = library_run("flawed-forgetful-lock");
  const std::string page = html(r.scenario, r.run);
  const int znodes = count(page, "{\"kind\":\"znode\"");
  ASSERT_GE(znodes, 10);
  ASSERT_EQ(count(page, "class=\"lane"), 0) << "lanes are the script's to draw";

  const Loaded got = load(page);
  ASSERT_EQ(got.exit_code, 0) << got.console;
  EXPECT_EQ(got.console, "") << "the page wrote to the console";
  EXPECT_EQ(count(got.dom, "class=\"lane client"), 4);
  EXPECT_EQ(count(got.dom, "class=\"lane server"), 1);
  EXPECT_EQ(count(got.dom, "class=\"lane znode"), znodes);
  EXPECT_NE(got.dom.find(fmt::format("data-lanes-drawn=\"{}\"", 4 + 1 + znodes)), std::string::npos);
  // What the script added (the legend has one of each already): a band per
  // violation, a bar per belief of holding, a span per pause, a time axis.
  auto drawn = [&](const std::string& cls) { return count(got.dom, cls) - count(page, cls); };
  const auto& violations = r.run.result.violations;
  ASSERT_FALSE(violations.empty());
  EXPECT_EQ(drawn("class=\"band\""), static_cast<int>(violations.size()));
  EXPECT_NE(got.dom.find(fmt::format("{} t={}", violations[0].property, violations[0].time)), std::string::npos);
  int pauses = 0;
  for (const TraceEvent& e : r.run.result.trace) {
    pauses += e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Pause);
  }
  ASSERT_GE(pauses, 1);
  const auto held = scenarios::beliefs(r.run.result.history, "acquire", "release").size();
  ASSERT_GE(held, 8u);
  EXPECT_EQ(drawn("class=\"span holding"), static_cast<int>(held));
  EXPECT_EQ(drawn("class=\"span paused"), pauses);
  EXPECT_GE(drawn("class=\"tick\""), 3);
  EXPECT_NE(got.dom.find("title=\"/zksim/recipe/_c_0-1-lock-0000000002\""), std::string::npos);
}

TEST(TimelineBrowser, HostileTraceStringsStayText) {
  REQUIRE_CHROMIUM();
  auto r = library_run("lock-holder-expires-while-holding");
  // Strings that would run script, or fetch, if they reached the markup.
  const std::string evil = "</script><script>console.log('INJECTED')</script><img src=x onerror=\"console.log('INJECTED')\">";
  r.run.result.trace.front().path = fmt::format("/zksim/recipe/{}", evil);
  r.run.result.violations.push_back(scenarios::Violation{"mutual-exclusion", evil, {0}, 50});
  r.scenario.comments.push_back(evil);
  const std::string page = html(r.scenario, r.run);
  const Loaded got = load(page);
  ASSERT_EQ(got.exit_code, 0) << got.console;
  EXPECT_EQ(got.console, "");
  EXPECT_EQ(got.dom.find("<img"), std::string::npos);
  EXPECT_EQ(count(got.dom, "class=\"lane client"), 3);
  EXPECT_EQ(count(got.dom, "class=\"band\"") - count(page, "class=\"band\""), 1);
}

// Measuring the drawn page: `script` runs after the page's own script and
// leaves "key=value;..." in <body data-measured>; the figures come back as
// a map (a missing key reads as -1).
std::map<std::string, double> measure(const std::string& page, const std::string& script) {
  const std::size_t body = page.rfind("</body>");
  EXPECT_NE(body, std::string::npos);
  const Loaded got = load(fmt::format("{}<script>{}</script>\n{}", page.substr(0, body), script, page.substr(body)));
  EXPECT_EQ(got.exit_code, 0) << got.console;
  EXPECT_EQ(got.console, "") << "the page (or the measuring script) wrote to the console";
  std::map<std::string, double> out;
  const std::string key = "data-measured=\"";
  const std::size_t at = got.dom.find(key);
  if (at == std::string::npos) return out;
  std::istringstream fields(got.dom.substr(at + key.size(), got.dom.find('"', at + key.size()) - at - key.size()));
  for (std::string field; std::getline(fields, field, ';');) {
    const std::size_t eq = field.find('=');
    if (eq != std::string::npos) out[field.substr(0, eq)] = std::atof(field.c_str() + eq + 1);
  }
  return out;
}

double get(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? -1 : it->second;
}

// Shared by the measuring scripts: boxes, the part of the chart in view (right
// of the sticky lane names), and the lanes with what each shows in view.
constexpr const char* kMeasureJs = R"js(
function box(e) { return e.getBoundingClientRect(); }
function overlap(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }
function report(figures) {
  document.body.setAttribute('data-measured',
      Object.keys(figures).map(function (k) { return k + '=' + figures[k]; }).join(';'));
}
function view() {
  var scroller = box(document.getElementById('scroller'));
  var names = box(document.querySelector('#chart .lane .name'));
  return { left: names.right, right: scroller.right };
}
// Lanes with tracks other than the axis: whether something happens well
// inside the view (a mark, or a span's start or end, 3 px in), or nothing
// near it (3 px out).
function lanes() {
  var v = view(), out = [];
  document.querySelectorAll('#chart .lane').forEach(function (row) {
    if (row.classList.contains('axis') || !row.querySelector('.track .span, .track .mark')) return;
    var inside = false, near = false;
    row.querySelectorAll('.track .span, .track .mark').forEach(function (e) {
      var r = box(e);
      var xs = e.classList.contains('mark') ? [(r.left + r.right) / 2] : [r.left, r.right];
      xs.forEach(function (x) {
        if (x > v.left + 3 && x < v.right - 3) inside = true;
        if (x > v.left - 3 && x < v.right + 3) near = true;
      });
    });
    out.push({ row: row, busy: inside, idle: !near, height: row.offsetHeight,
               culprit: !!row.querySelector('.name.culprit') });
  });
  return out;
}
function folding() {
  var f = { lanes: 0, thin: 0, busy_thin: 0, idle_thick: 0, culprits_thin: 0 };
  lanes().forEach(function (l) {
    var thin = l.height <= 8;
    f.lanes++;
    if (thin) f.thin++;
    if (thin && l.busy) f.busy_thin++;
    if (!thin && l.idle && !l.culprit) f.idle_thick++;
    if (thin && l.culprit) f.culprits_thin++;
  });
  return f;
}
function zoomed() {
  var v = view();
  return document.querySelector('#chart .lane .track').offsetWidth > 2 * (v.right - v.left) ? 1 : 0;
}
)js";

// A run with many lanes: 20 clients on the lock, 5 rounds each (about 120
// lanes), with a violation made by hand between c3 and c11 halfway through.
testing::Loaded large_run_with_a_violation() {
  scenarios::ParseError e;
  const auto s = scenarios::parse_scenario(
      "zksim-scenario 1\nrecipe lock\nclients 20\nrounds 5\nseed 1\nexpect pass\n", "large.scn", &e);
  testing::Loaded r{*s, scenarios::run_scenario(*s)};
  const TimeMs t = r.run.result.trace[r.run.result.trace.size() / 2].time;
  r.run.result.violations.push_back(scenarios::Violation{"mutual-exclusion", "made by hand", {3, 11}, t});
  return r;
}

TEST(TimelineBrowser, ViolationLabelDoesNotOverlapAxisLabel) {
  REQUIRE_CHROMIUM();
  for (const char* name : {"flawed-forgetful-lock", "flawed-herd-lock", "flawed-prefix-write-lock"}) {
    auto r = library_run(name);
    const auto m = measure(html(r.scenario, r.run), std::string(kMeasureJs) + R"js(
      var f = { labels: 0, empty: 0, overlaps: 0, apart: 0, ticks: 0 };
      var bands = document.querySelectorAll('#chart .band');
      var ticks = document.querySelectorAll('#chart .tick');
      f.ticks = ticks.length;
      document.querySelectorAll('#chart .label').forEach(function (label, i) {
        var b = box(label);
        f.labels++;
        if (b.width < 10 || b.height < 8) f.empty++;
        // Beside its own band, not somewhere else.
        if (!bands[i] || Math.abs(b.left - box(bands[i]).left) > 6) f.apart++;
        ticks.forEach(function (t) { if (overlap(b, box(t))) f.overlaps++; });
      });
      report(f);
    )js");
    int placed = 0;
    for (const auto& v : r.run.result.violations) placed += !detail::about_whole_run(v);
    ASSERT_GE(placed, 1) << name;
    EXPECT_EQ(get(m, "labels"), placed) << name;
    EXPECT_GE(get(m, "ticks"), 3) << name;
    EXPECT_EQ(get(m, "empty"), 0) << name;
    EXPECT_EQ(get(m, "apart"), 0) << name;
    EXPECT_EQ(get(m, "overlaps"), 0) << name;
  }
}

TEST(TimelineBrowser, LargeRunsOpenZoomedOnTheViolation) {
  REQUIRE_CHROMIUM();
  const std::string where = std::string(kMeasureJs) + R"js(
    var v = view(), band = box(document.querySelector('#chart .band'));
    report({ zoomed: zoomed(), band_in_view: band.left > v.left && band.left < v.right ? 1 : 0 });
  )js";
  auto large = large_run_with_a_violation();
  const auto m = measure(html(large.scenario, large.run), where);
  EXPECT_EQ(get(m, "zoomed"), 1);
  EXPECT_EQ(get(m, "band_in_view"), 1);
  // A small run opens whole.
  auto small = library_run("flawed-forgetful-lock");
  const auto whole = measure(html(small.scenario, small.run), where);
  EXPECT_EQ(get(whole, "zoomed"), 0);
  EXPECT_EQ(get(whole, "band_in_view"), 1);
}

TEST(TimelineBrowser, LargeRunsWithoutAViolationOpenOnTheirStartWithMarksApart) {
  REQUIRE_CHROMIUM();
  scenarios::ParseError e;
  const auto s = scenarios::parse_scenario(
      "zksim-scenario 1\nrecipe lock\nclients 20\nrounds 50\nseed 1\nexpect pass\n", "large.scn", &e);
  const auto m = measure(html(*s, scenarios::run_scenario(*s)), std::string(kMeasureJs) + R"js(
    var v = view(), clients = 0, marks = 0;
    document.querySelectorAll('#chart .lane.client').forEach(function (row) {
      clients++;
      row.querySelectorAll('.mark').forEach(function (e) {
        var x = (box(e).left + box(e).right) / 2;
        if (x > v.left && x < v.right) marks++;
      });
    });
    report({ zoomed: zoomed(), from: document.getElementById('scroller').scrollLeft, clients: clients,
             px_per_mark: marks ? (v.right - v.left) * clients / marks : 0 });
  )js");
  EXPECT_EQ(get(m, "clients"), 20);
  EXPECT_EQ(get(m, "zoomed"), 1);
  EXPECT_EQ(get(m, "from"), 0);
  EXPECT_GE(get(m, "px_per_mark"), 6) << "marks on a client's lane stand apart";
}

TEST(TimelineBrowser, IdleLanesCollapseOnLargeRuns) {
  REQUIRE_CHROMIUM();
  const std::string fold = std::string(kMeasureJs) + "report(folding());";
  auto large = large_run_with_a_violation();
  const auto m = measure(html(large.scenario, large.run), fold);
  ASSERT_GE(get(m, "lanes"), 60);
  EXPECT_GE(get(m, "thin"), get(m, "lanes") / 2) << "most lanes have nothing in view near the violation";
  EXPECT_EQ(get(m, "busy_thin"), 0) << "a lane with something in view is folded";
  EXPECT_EQ(get(m, "idle_thick"), 0) << "a lane with nothing in view (not a culprit's) is not folded";
  EXPECT_EQ(get(m, "culprits_thin"), 0);
  // A small run keeps every lane.
  auto small = library_run("flawed-forgetful-lock");
  const auto all = measure(html(small.scenario, small.run), fold);
  EXPECT_GE(get(all, "lanes"), 15);
  EXPECT_EQ(get(all, "thin"), 0);
}

TEST(TimelineBrowser, ShowAllShowsTheWholeRunAndEveryLane) {
  REQUIRE_CHROMIUM();
  auto large = large_run_with_a_violation();
  const auto m = measure(html(large.scenario, large.run), std::string(kMeasureJs) + R"js(
    var button = document.getElementById('show-all');
    if (button) button.click();
    var f = folding();
    var v = view(), track = document.querySelector('#chart .lane .track');
    report({ button: button ? 1 : 0, zoomed: zoomed(), fits: track.offsetWidth <= v.right - v.left ? 1 : 0,
             lanes: f.lanes, thin: f.thin });
  )js");
  EXPECT_EQ(get(m, "button"), 1);
  EXPECT_EQ(get(m, "zoomed"), 0);
  EXPECT_EQ(get(m, "fits"), 1);
  EXPECT_GE(get(m, "lanes"), 60);
  EXPECT_EQ(get(m, "thin"), 0);
}

TEST(TimelineBrowser, ViolationLabelsDoNotOverlapEachOther) {
  REQUIRE_CHROMIUM();
  auto r = library_run("flawed-prefix-write-lock");  // ten violations in 100 ms
  const auto m = measure(html(r.scenario, r.run), std::string(kMeasureJs) + R"js(
    var labels = Array.prototype.slice.call(document.querySelectorAll('#chart .label')), overlaps = 0;
    labels.forEach(function (a, i) {
      labels.slice(i + 1).forEach(function (b) { if (overlap(box(a), box(b))) overlaps++; });
    });
    report({ labels: labels.length, overlaps: overlaps });
  )js");
  EXPECT_GE(get(m, "labels"), 8);
  EXPECT_EQ(get(m, "overlaps"), 0);
}

// A small run (3 clients) with `n` violations made by hand, at times spread
// over the run (some close together), all between c0 and c1.
testing::Loaded run_with_violations(int n) {
  auto r = library_run("lock-holder-expires-while-holding");
  const TimeMs last = r.run.result.trace.back().time;
  for (int i = 0; i < n; ++i) {
    const TimeMs t = (last * i) / n + (i % 3);
    r.run.result.violations.push_back(
        scenarios::Violation{"mutual-exclusion", fmt::format("made by hand, number {}", i), {0, 1}, t});
  }
  return r;
}

// Where the bands are against the time axis: how many cross a tick's label,
// how many start above the axis's bottom, and how many stop short of the
// last lane.
constexpr const char* kBandsJs = R"js(
  var f = { bands: 0, ticks: 0, crossings: 0, above_axis: 0, short_of_lanes: 0 };
  var axis = box(document.querySelector('#chart .lane.axis'));
  var lanes = document.querySelectorAll('#chart .lane');
  var lastLane = box(lanes[lanes.length - 1]);
  var ticks = document.querySelectorAll('#chart .tick');
  f.ticks = ticks.length;
  document.querySelectorAll('#chart .band').forEach(function (band) {
    var b = box(band);
    f.bands++;
    ticks.forEach(function (t) { if (overlap(b, box(t))) f.crossings++; });
    if (b.top < axis.bottom - 0.5) f.above_axis++;
    if (b.bottom < lastLane.bottom - 1) f.short_of_lanes++;
  });
  report(f);
)js";

TEST(TimelineBrowser, ViolationBandsDoNotCrossTheAxisLabels) {
  REQUIRE_CHROMIUM();
  std::vector<std::pair<std::string, testing::Loaded>> runs;
  for (const char* name : {"flawed-forgetful-lock", "flawed-prefix-write-lock"}) runs.emplace_back(name, library_run(name));
  runs.emplace_back("60 violations", run_with_violations(60));
  for (const auto& [name, r] : runs) {
    const auto m = measure(html(r.scenario, r.run), std::string(kMeasureJs) + kBandsJs);
    int placed = 0;
    for (const auto& v : r.run.result.violations) placed += !detail::about_whole_run(v);
    EXPECT_EQ(get(m, "bands"), placed) << name;
    EXPECT_GE(get(m, "ticks"), 3) << name;
    EXPECT_EQ(get(m, "crossings"), 0) << name;
    EXPECT_EQ(get(m, "above_axis"), 0) << name;
    EXPECT_EQ(get(m, "short_of_lanes"), 0) << name << ": a band reaches the last lane";
  }
}

TEST(TimelineBrowser, ManyViolationsLeaveTheLanesInTheFirstView) {
  REQUIRE_CHROMIUM();
  const auto r = run_with_violations(150);
  const auto m = measure(html(r.scenario, r.run), std::string(kMeasureJs) + R"js(
    var list = document.querySelector('ul.violations');
    var lane = box(document.querySelector('#chart .lane.client'));
    var strip = box(document.querySelector('#chart .lane.violations'));
    report({ items: list.querySelectorAll('li').length, scrolls: list.scrollHeight > list.clientHeight ? 1 : 0,
             lane_bottom: lane.bottom, view: window.innerHeight, strip: strip.height,
             shown: Array.prototype.filter.call(document.querySelectorAll('#chart .label'),
                                                function (l) { return box(l).width > 0; }).length });
  )js");
  EXPECT_EQ(get(m, "items"), 150) << "the list has every violation";
  EXPECT_EQ(get(m, "scrolls"), 1);
  EXPECT_GT(get(m, "view"), 500);
  EXPECT_LE(get(m, "lane_bottom"), get(m, "view")) << "the first client's lane is in the first view";
  EXPECT_LE(get(m, "strip"), 4 * 15 + 2) << "at most four rows of violation labels";
  EXPECT_GE(get(m, "shown"), 4);
}

TEST(TimelineBrowser, AFoldedPageDrawsItsBucketsAndTheViolationsExactly) {
  REQUIRE_CHROMIUM();
  auto r = library_run("flawed-forgetful-lock");
  std::ostringstream page;
  write_html(page, r.scenario, r.run, HtmlOptions{.max_marks = 100});
  ASSERT_NE(page.str().find("class=\"folded-note\""), std::string::npos);
  const int buckets = count(page.str(), "],[") + count(page.str(), "\"buckets\":[[");
  const auto m = measure(page.str(), std::string(kMeasureJs) + R"js(
    var note = box(document.querySelector('.folded-note'));
    var lane = box(document.querySelector('#chart .lane.client'));
    report({ lanes: document.querySelectorAll('#chart .lane.client').length,
             servers: document.querySelectorAll('#chart .lane.server').length,
             znodes: document.querySelectorAll('#chart .lane.znode').length,
             buckets: document.querySelectorAll('#chart .bucket').length,
             marks: document.querySelectorAll('#chart .lane .mark:not(.fault)').length,
             bands: document.querySelectorAll('#chart .band').length,
             note_first: note.bottom <= lane.top ? 1 : 0, zoomed: zoomed() });
  )js");
  EXPECT_EQ(get(m, "lanes"), 4);
  EXPECT_EQ(get(m, "servers"), 1);
  EXPECT_EQ(get(m, "znodes"), 0);
  EXPECT_GE(get(m, "buckets"), 50);
  EXPECT_EQ(get(m, "buckets"), buckets) << "a cell per bucket with something in it";
  EXPECT_EQ(get(m, "marks"), 0) << "no mark drawn one by one";
  int placed = 0;
  for (const auto& v : r.run.result.violations) placed += !detail::about_whole_run(v);
  ASSERT_GE(placed, 1);
  EXPECT_EQ(get(m, "bands"), placed);
  EXPECT_EQ(get(m, "note_first"), 1);
  EXPECT_EQ(get(m, "zoomed"), 0) << "a folded page opens on the whole run";
}

// The checks above can fail: a page whose script throws is caught both by
// the console and by the lanes it did not draw.
TEST(TimelineBrowser, AScriptErrorIsCaught) {
  REQUIRE_CHROMIUM();
  const Loaded thrown = load("<!DOCTYPE html><html><body><script>no_such_function();</script></body></html>");
  EXPECT_EQ(thrown.exit_code, 0);
  EXPECT_NE(thrown.console.find("Uncaught ReferenceError: no_such_function is not defined"), std::string::npos)
      << thrown.console;

  const Loaded logged = load("<!DOCTYPE html><html><body><script>console.error('broken');</script></body></html>");
  EXPECT_NE(logged.console.find("broken"), std::string::npos) << logged.console;

  // The real page with its data spoiled: JSON.parse throws, nothing is drawn.
  auto r = library_run("lock-holder-expires-while-holding");
  std::string page = html(r.scenario, r.run);
  const std::size_t lanes = page.find("\"lanes\":[");
  ASSERT_NE(lanes, std::string::npos);
  page = fmt::format("{},{}", page.substr(0, lanes + 9), page.substr(lanes + 9));
  const Loaded spoiled = load(page);
  EXPECT_NE(spoiled.console.find("Uncaught SyntaxError"), std::string::npos) << spoiled.console;
  EXPECT_EQ(count(spoiled.dom, "class=\"lane"), 0);
  EXPECT_EQ(spoiled.dom.find("data-lanes-drawn=\""), std::string::npos);
}

}  // namespace
}  // namespace zksim::timeline
