// The HTML page: a static header (what ran, the verdict, the violations, a
// legend) and the lanes as JSON in a <script type="application/json">,
// drawn by the page's own script. Nothing is fetched: style and script are
// inline. Every string is escaped for where it goes (html_escape for markup,
// json_string for the data).
#include "zksim/timeline/timeline.h"

#include "assets.h"
#include "escape.h"
#include "model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <span>
#include <sstream>

namespace zksim::timeline {
namespace {

using detail::html_escape;
using detail::json_string;
using detail::Model;

std::string span_json(TimeMs from, TimeMs to, std::string_view kind, std::string_view label, std::string_view detail) {
  return fmt::format("[{},{},{},{},{}]", from, to, json_string(kind), json_string(label), json_string(detail));
}

void write_violations(const Model& m, std::ostream& out) {
  out << "\"violations\":[";
  bool first = true;
  for (const scenarios::Violation& v : m.violations) {
    out << fmt::format("{}{{\"t\":{},\"property\":{},\"message\":{},\"placed\":{}}}", first ? "" : ",\n", v.time,
                       json_string(v.property), json_string(v.message), !detail::about_whole_run(v) ? "true" : "false");
    first = false;
  }
  out << "]}";
}

std::set<int> culprits_of(const Model& m) {
  std::set<int> culprits;
  for (const scenarios::Violation& v : m.violations) culprits.insert(v.clients.begin(), v.clients.end());
  return culprits;
}

// The page's data: every lane with every span and mark. Written lane by
// lane from indices into the model, so that no second copy of the marks
// (as text) is held at once.
void write_data(const Model& m, std::ostream& out) {
  const std::set<int> culprits = culprits_of(m);
  bool first_lane = true;
  auto lane = [&](std::string_view kind, const std::string& name, int client, const std::string& title,
                  const auto& write_spans, const auto& write_marks) {
    out << fmt::format("{}{{\"kind\":{},\"name\":{},\"client\":{},\"title\":{},\"culprit\":{},\"spans\":[",
                       first_lane ? "" : ",\n", json_string(kind), json_string(name), client, json_string(title),
                       kind == "client" && culprits.count(client) ? "true" : "false");
    write_spans();
    out << "],\"marks\":[";
    write_marks();
    out << "]}";
    first_lane = false;
  };
  // Each client's spans and marks, and the server's marks (index
  // m.clients is the server's lane).
  const std::size_t server = static_cast<std::size_t>(m.clients);
  std::vector<std::vector<std::size_t>> spans(server + 1), marks(server + 1);
  for (std::size_t i = 0; i < m.spans.size(); ++i) {
    const int l = m.spans[i].lane;
    if (l >= 0 && l < m.clients) spans[static_cast<std::size_t>(l)].push_back(i);
  }
  for (std::size_t i = 0; i < m.marks.size(); ++i) {
    const int l = m.marks[i].lane;
    if (l == detail::kServerLane) {
      marks[server].push_back(i);
    } else if (l >= 0 && l < m.clients) {
      marks[static_cast<std::size_t>(l)].push_back(i);
    }
  }
  const auto write_spans = [&](std::size_t l) {
    return [&, l] {
      for (std::size_t j = 0; j < spans[l].size(); ++j) {
        const detail::Span& s = m.spans[spans[l][j]];
        out << (j ? "," : "") << span_json(s.from, s.to, detail::span_kind_name(s.kind), s.label, s.detail);
      }
    };
  };
  const auto write_marks = [&](std::size_t l) {
    return [&, l] {
      for (std::size_t j = 0; j < marks[l].size(); ++j) {
        const detail::Mark& k = m.marks[marks[l][j]];
        out << fmt::format("{}[{},{},{},{}]", j ? "," : "", k.t, json_string(detail::mark_kind_name(k.kind)),
                           json_string(k.detail), l != server && k.alert ? 1 : 0);
      }
    };
  };
  out << fmt::format("{{\"last\":{},\n\"lanes\":[\n", m.last);
  for (int c = 0; c < m.clients; ++c) {
    const auto i = static_cast<std::size_t>(c);
    lane("client", m.lane(c), c, m.lane(c), write_spans(i), write_marks(i));
  }
  // The server's lane goes after the clients'.
  lane("server", m.server_title, -1, m.server_title, [] {}, write_marks(server));
  // A lane per znode path, its lifetimes as spans, in order of first creation.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const detail::Znode*>> by_path;
  for (const detail::Znode& z : m.znodes) {
    if (!by_path.count(z.path)) order.push_back(z.path);
    by_path[z.path].push_back(&z);
  }
  for (const std::string& path : order) {
    const auto& nodes = by_path[path];
    lane("znode", path == m.base ? path : detail::short_path(path, m.base), nodes.front()->client, path,
         [&] {
           for (std::size_t j = 0; j < nodes.size(); ++j) {
             out << (j ? "," : "")
                 << span_json(nodes[j]->created, nodes[j]->deleted, "znode", detail::short_path(path, m.base),
                              nodes[j]->detail);
           }
         },
         [] {});
  }
  out << "],\n";
  write_violations(m, out);
}

// A folded page's lanes: per client (and the server), time buckets of
// `bucket_ms` with how long the client held and waited in each, and how
// many marks and faults it had.
struct Bucket {
  TimeMs held = 0, waited = 0;
  std::int64_t marks = 0, faults = 0;
};

// A folded page draws at most this many buckets a lane, and this many in
// all (a run of many clients gets fewer a lane).
constexpr int kFoldedBuckets = 400;
constexpr int kFoldedCells = 100'000;

struct Folding {
  TimeMs bucket_ms = 1;
  std::vector<std::vector<Bucket>> lanes;  // clients, then the server
};

Folding fold(const Model& m) {
  const int lanes = m.clients + 1;
  const int buckets = std::clamp(kFoldedCells / lanes, 1, kFoldedBuckets);
  const TimeMs end = m.last + 1;
  Folding f;
  f.bucket_ms = std::max<TimeMs>(1, (end + buckets - 1) / buckets);
  f.lanes.assign(static_cast<std::size_t>(lanes), std::vector<Bucket>(static_cast<std::size_t>(buckets)));
  const auto bucket_of = [&](TimeMs t) {
    return static_cast<std::size_t>(std::clamp<TimeMs>(t / f.bucket_ms, 0, buckets - 1));
  };
  for (const detail::Span& s : m.spans) {
    if (s.lane < 0 || s.lane >= m.clients || (s.kind != detail::SpanKind::Holding && s.kind != detail::SpanKind::Waiting)) continue;
    std::vector<Bucket>& lane = f.lanes[static_cast<std::size_t>(s.lane)];
    const TimeMs to = s.to < 0 ? end : s.to;
    for (TimeMs from = s.from; from < to;) {
      const std::size_t i = bucket_of(from);
      const TimeMs until = std::min(to, static_cast<TimeMs>(i + 1) * f.bucket_ms);
      if (until <= from) break;  // past the last bucket
      (s.kind == detail::SpanKind::Holding ? lane[i].held : lane[i].waited) += until - from;
      from = until;
    }
  }
  m.each_mark(detail::Words::None, [&](const detail::Mark& k) {
    if (k.lane >= m.clients || k.lane < detail::kServerLane) return;
    Bucket& b = f.lanes[k.lane == detail::kServerLane ? static_cast<std::size_t>(m.clients) : static_cast<std::size_t>(k.lane)]
                       [bucket_of(k.t)];
    ++b.marks;
    if (k.kind == detail::MarkKind::Fault) ++b.faults;
  });
  return f;
}

// A folded page's data: the lanes' buckets (only those with something in
// them: [index, held ms, waited ms, marks, faults]) and every violation.
void write_folded_data(const Model& m, std::size_t max_marks, std::ostream& out) {
  const Folding f = fold(m);
  const std::set<int> culprits = culprits_of(m);
  out << fmt::format("{{\"last\":{},\n\"folded\":{{\"marks\":{},\"max_marks\":{},\"bucket_ms\":{}}},\n\"lanes\":[\n",
                     m.last, m.mark_count, max_marks, f.bucket_ms);
  for (std::size_t l = 0; l < f.lanes.size(); ++l) {
    const bool server = l + 1 == f.lanes.size();
    const int client = server ? -1 : static_cast<int>(l);
    const std::string name = server ? m.server_title : m.lane(client);
    out << fmt::format("{}{{\"kind\":{},\"name\":{},\"client\":{},\"title\":{},\"culprit\":{},\"buckets\":[",
                       l ? ",\n" : "", json_string(server ? "server" : "client"), json_string(name), client,
                       json_string(name), !server && culprits.count(client) ? "true" : "false");
    bool first = true;
    for (std::size_t i = 0; i < f.lanes[l].size(); ++i) {
      const Bucket& b = f.lanes[l][i];
      if (b.marks == 0 && b.held == 0 && b.waited == 0) continue;
      out << fmt::format("{}[{},{},{},{},{}]", first ? "" : ",", i, b.held, b.waited, b.marks, b.faults);
      first = false;
    }
    out << "]}";
  }
  out << "],\n";
  write_violations(m, out);
}

// One of each thing the page draws, or (a model with its own legend
// kinds) only those; a folded page's own.
std::string legend(const Model& m, bool folded) {
  struct Item {
    const char* kind;  // a span or mark kind's name, "band", or a folded page's "bucket-..."
    const char* html;
    const char* text;
  };
  static const Item folded_items[] = {
      {"bucket-held", R"(<span class="bucket" style="width:22px;height:12px"><span class="held" style="height:100%"></span></span>)",
       "time held in the bucket (height: its share)"},
      {"bucket-waited", R"(<span class="bucket" style="width:22px;height:12px"><span class="waited" style="height:100%"></span></span>)",
       "time waited in the bucket"},
      {"bucket-marks", R"x(<span class="bucket" style="width:22px;height:12px;background:rgba(84,110,122,0.5)"></span>)x",
       "events in the bucket (darker: more)"},
      {"bucket-faults", R"(<span class="mark fault" style="top:0;margin:0">&#x25B2;</span>)", "faults in the bucket"},
      {"band", R"(<span class="band" style="top:0;height:12px;bottom:auto"></span>)", "violation (exact)"},
  };
  static const Item items[] = {
      {"holding", R"(<span class="span holding" style="top:0;width:22px"></span>)", "holding (as the client believes)"},
      {"waiting", R"(<span class="span waiting" style="top:3px;width:22px"></span>)", "waiting (acquire in progress)"},
      {"call", R"(<span class="span call" style="top:4px;width:22px"></span>)", "other call in progress"},
      {"paused", R"(<span class="span paused" style="top:2px;width:22px"></span>)", "paused"},
      {"unaware", R"(<span class="span unaware" style="top:2px;width:22px"></span>)", "session expired on the server, client not told yet"},
      {"disconnected", R"(<span class="span disconnected" style="top:5px;width:22px"></span>)", "reconnecting"},
      {"crashed", R"(<span class="span crashed" style="top:2px;width:22px"></span>)", "crashed"},
      {"watch-span", R"(<span class="span watch" style="top:5px;width:22px"></span>)", "watch set (inferred) until it fired"},
      {"invoke", R"(<span class="mark invoke" style="top:0;margin:0">&#x25B8;</span>)", "call begins"},
      {"ok", R"(<span class="mark ok" style="top:0;margin:0">&#x2713;</span>)", "call ok"},
      {"fail", R"(<span class="mark fail" style="top:0;margin:0">&#x2717;</span>)", "call failed / ? unknown"},
      {"note", R"(<span class="mark note" style="top:0;margin:0">&#x2691;</span>)", "told (suspended, lost, ...)"},
      {"request", R"(<span class="mark request" style="top:0;margin:0">&#x2502;</span>)", "request"},
      {"error", R"(<span class="mark error" style="top:0;margin:0">&#xD7;</span>)", "error reply"},
      {"watch", R"(<span class="mark watch" style="top:0;margin:0">&#x25C6;</span>)", "watch event (pink: one change woke several)"},
      {"state", R"(<span class="mark state" style="top:0;margin:0">&#x25CF;</span>)", "session state"},
      {"fault", R"(<span class="mark fault" style="top:0;margin:0">&#x25B2;</span>)", "fault"},
      {"server", R"(<span class="mark server" style="top:0;margin:0">&#x25A0;</span>)", "server action"},
      {"band", R"(<span class="band" style="top:0;height:12px;bottom:auto"></span>)", "violation"},
  };
  std::string out = "<div id=\"legend\">";
  for (const Item& i : folded ? std::span<const Item>(folded_items) : std::span<const Item>(items)) {
    const auto& only = m.legend_kinds;
    if (!folded && !only.empty() && std::find(only.begin(), only.end(), i.kind) == only.end()) continue;
    out += fmt::format("<span class=\"item\"><span class=\"swatch\">{}</span>{}</span>", i.html, i.text);
  }
  return out + "</div>\n";
}

// The page of a model: every mark (`max_marks` = 0), or folded, drawn from
// its frame, since it has more than `max_marks` marks.
void write_page(const Model& m, const std::string& recipe, std::size_t folded_over, std::ostream& out) {
  const bool folded = folded_over > 0;
  std::string head;
  if (folded) {
    head += fmt::format(
        "<p class=\"folded-note\">Folded: this run has {} marks (events and recipe calls), more than a page draws "
        "one by one ({}). Each lane shows time buckets instead: how long the client held and waited in each, and "
        "how many events and faults it had. The violations are exact. <code>zksim replay</code> prints every "
        "event.</p>\n",
        m.mark_count, folded_over);
  }
  for (const std::string& line : m.header) {
    head += fmt::format("<p{}>{}</p>\n", line.starts_with("# ") ? " class=\"comment\"" : "",
                        html_escape(line.starts_with("# ") ? line.substr(2) : line));
  }
  if (!m.verdict.empty()) {  // a trace without a verdict was not judged (zksim serve's)
    head += fmt::format("<p class=\"verdict {}\">verdict: {} (expected: {}){}</p>\n",
                        m.as_expected ? "expected" : "unexpected", html_escape(m.verdict), html_escape(m.expected),
                        m.as_expected ? ", as expected" : ", NOT as expected");
  }
  if (!m.violations.empty()) {
    head += "<ul class=\"violations\">\n";
    for (const scenarios::Violation& v : m.violations) {
      head += fmt::format("<li>{}{}: {}</li>\n", html_escape(v.property),
                          !detail::about_whole_run(v) ? fmt::format(" at t={}", v.time) : std::string(" (the whole run)"),
                          html_escape(v.message));
    }
    head += "</ul>\n";
  }
  head += fmt::format("<p>trace: {} events until t={}{}</p>\n", m.trace_events, m.last,
                      m.base.empty() ? std::string()
                                     : fmt::format("; \u2026/x stands for {}/x", html_escape(m.base)));
  const std::string title = fmt::format("zksim timeline: {} \u2014 {}", recipe, m.verdict);
  out << fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'\">\n"
      "<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n{}</header>\n"
      "<div id=\"controls\">zoom <input id=\"zoom\" type=\"range\" min=\"-14\" max=\"5\" step=\"0.25\" value=\"0\"> "
      "<span id=\"zoom-label\"></span> <button id=\"show-all\" type=\"button\">show all</button> "
      "<button id=\"to-violation\" type=\"button\" hidden>zoom to the violation</button> "
      "<label><input id=\"fold\" type=\"checkbox\"> fold lanes with nothing in view</label> "
      "<span id=\"fold-count\"></span> (hover over anything for details)</div>\n{}"
      "<div id=\"scroller\"><div id=\"chart\"></div></div>\n"
      "<noscript>The lanes are drawn by the page's script; enable JavaScript to see them.</noscript>\n"
      "<script id=\"data\" type=\"application/json\">\n",
      html_escape(title), detail::kPageCss, html_escape(title), head, legend(m, folded));
  if (folded) {
    write_folded_data(m, folded_over, out);
  } else {
    write_data(m, out);
  }
  out << fmt::format("\n</script>\n<script>\n{}</script>\n</body>\n</html>\n", detail::kPageJs);
}

}  // namespace

namespace detail {

void render_html(const std::function<Model(Keep)>& model, const std::string& recipe, std::size_t max_marks,
                 std::ostream& out) {
  {
    const Model frame = model(Keep::Frame);
    if (frame.mark_count > max_marks) return write_page(frame, recipe, max_marks, out);
  }
  write_page(model(Keep::Everything), recipe, 0, out);
}

}  // namespace detail

void write_html(std::ostream& out, const scenarios::Scenario& s, const scenarios::ScenarioRun& run,
                const HtmlOptions& options) {
  detail::render_html([&](detail::Keep keep) { return detail::build_model(s, run, keep); }, s.workload.recipe,
                      options.max_marks, out);
}

std::string html(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  std::ostringstream out;
  write_html(out, s, run);
  return std::move(out).str();
}

void write_lease_html(std::ostream& out, const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run,
                      const HtmlOptions& options) {
  detail::render_html([&](detail::Keep keep) { return detail::build_lease_model(s, run, keep); }, s.workload.recipe,
                      options.max_marks, out);
}

std::string lease_html(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run) {
  std::ostringstream out;
  write_lease_html(out, s, run);
  return std::move(out).str();
}

}  // namespace zksim::timeline
