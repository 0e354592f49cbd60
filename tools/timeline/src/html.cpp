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
#include <set>

namespace zksim::timeline {
namespace {

using detail::html_escape;
using detail::json_string;
using detail::Model;

std::string span_json(TimeMs from, TimeMs to, std::string_view kind, std::string_view label, std::string_view detail) {
  return fmt::format("[{},{},{},{},{}]", from, to, json_string(kind), json_string(label), json_string(detail));
}

std::string data_json(const Model& m) {
  std::set<int> culprits;
  for (const scenarios::Violation& v : m.violations) culprits.insert(v.clients.begin(), v.clients.end());
  std::string lanes;
  auto lane = [&](std::string_view kind, const std::string& name, int client, const std::string& title,
                  const std::vector<std::string>& spans, const std::vector<std::string>& marks) {
    lanes += fmt::format("{}{{\"kind\":{},\"name\":{},\"client\":{},\"title\":{},\"culprit\":{},\"spans\":[{}],\"marks\":[{}]}}",
                         lanes.empty() ? "" : ",\n", json_string(kind), json_string(name), client, json_string(title),
                         kind == "client" && culprits.count(client) ? "true" : "false",
                         fmt::join(spans, ","), fmt::join(marks, ","));
  };
  // Each client's spans and marks, and the server's marks, in one pass
  // each (index m.clients is the server's lane).
  const std::size_t server = static_cast<std::size_t>(m.clients);
  std::vector<std::vector<std::string>> spans(server + 1), marks(server + 1);
  for (const detail::Span& s : m.spans) {
    if (s.lane >= 0 && s.lane < m.clients) {
      spans[static_cast<std::size_t>(s.lane)].push_back(
          span_json(s.from, s.to, detail::span_kind_name(s.kind), s.label, s.detail));
    }
  }
  for (const detail::Mark& k : m.marks) {
    if (k.lane == detail::kServerLane) {
      marks[server].push_back(fmt::format("[{},{},{},0]", k.t, json_string(detail::mark_kind_name(k.kind)),
                                          json_string(k.detail)));
    } else if (k.lane >= 0 && k.lane < m.clients) {
      marks[static_cast<std::size_t>(k.lane)].push_back(fmt::format(
          "[{},{},{},{}]", k.t, json_string(detail::mark_kind_name(k.kind)), json_string(k.detail), k.alert ? 1 : 0));
    }
  }
  for (int c = 0; c < m.clients; ++c) {
    const auto i = static_cast<std::size_t>(c);
    lane("client", m.lane(c), c, m.lane(c), spans[i], marks[i]);
  }
  // The server's lane goes after the clients'.
  lane("server", m.server_title, -1, m.server_title, {}, marks[server]);
  // A lane per znode path, its lifetimes as spans, in order of first creation.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const detail::Znode*>> by_path;
  for (const detail::Znode& z : m.znodes) {
    if (!by_path.count(z.path)) order.push_back(z.path);
    by_path[z.path].push_back(&z);
  }
  for (const std::string& path : order) {
    std::vector<std::string> spans;
    for (const detail::Znode* z : by_path[path]) {
      spans.push_back(span_json(z->created, z->deleted, "znode", detail::short_path(path, m.base), z->detail));
    }
    lane("znode", path == m.base ? path : detail::short_path(path, m.base), by_path[path].front()->client, path, spans, {});
  }
  std::string violations;
  for (const scenarios::Violation& v : m.violations) {
    violations += fmt::format("{}{{\"t\":{},\"property\":{},\"message\":{},\"placed\":{}}}", violations.empty() ? "" : ",\n",
                              v.time, json_string(v.property), json_string(v.message), !detail::about_whole_run(v) ? "true" : "false");
  }
  return fmt::format("{{\"last\":{},\n\"lanes\":[\n{}],\n\"violations\":[{}]}}", m.last, lanes, violations);
}

// One of each thing the page draws, or (a model with its own legend
// kinds) only those.
std::string legend(const Model& m) {
  struct Item {
    const char* kind;  // a span or mark kind's name, or "band"
    const char* html;
    const char* text;
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
  for (const Item& i : items) {
    const auto& only = m.legend_kinds;
    if (!only.empty() && std::find(only.begin(), only.end(), i.kind) == only.end()) continue;
    out += fmt::format("<span class=\"item\"><span class=\"swatch\">{}</span>{}</span>", i.html, i.text);
  }
  return out + "</div>\n";
}

// The page of any model; `recipe` names what ran in its title.
std::string render_html(const Model& m, const std::string& recipe) {
  std::string head;
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
  return fmt::format(
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
      "<script id=\"data\" type=\"application/json\">\n{}\n</script>\n<script>\n{}</script>\n</body>\n</html>\n",
      html_escape(title), detail::kPageCss, html_escape(title), head, legend(m), data_json(m), detail::kPageJs);
}

}  // namespace

std::string html(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  return render_html(detail::build_model(s, run), s.workload.recipe);
}

std::string lease_html(const scenarios::LeaseScenario& s, const scenarios::LeaseScenarioRun& run) {
  return render_html(detail::build_lease_model(s, run), s.workload.recipe);
}

}  // namespace zksim::timeline
