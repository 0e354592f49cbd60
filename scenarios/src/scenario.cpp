#include "zksim/scenarios/scenario.h"

#include "directive_line.h"
#include "run_pool.h"
#include "run_record.h"
#include "zksim/scenarios/plugin.h"
#include "zksim/zk_trace.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace zksim::scenarios {

std::string ParseError::text() const { return fmt::format("{}:{}:{}: {}", file, line, col, message); }

using detail::comment_of;
using detail::DirectiveLine;
using detail::escaped;
using detail::Word;
using detail::words_of;

namespace {

// Version 2 sizes the time-triggered nemesis's windows to the workload
// (timed_window_of) and opens the first at once, unless the file says
// otherwise; a version 1 file meant a window a second, the first after a
// second, and still does (its runs replay as they were found).
constexpr int kVersion = 2;
constexpr TimeMs kVersion1WindowMs = 1000;

int find_name(std::string_view (*name_of)(std::int32_t), int count, const std::string& name) {
  for (int i = 0; i < count; ++i) {
    if (name_of(i) == name) return i;
  }
  return -1;
}

std::string names(std::string_view (*name_of)(std::int32_t), int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += fmt::format("{}{}", i ? ", " : "", name_of(i));
  return out;
}

// The directives a file may give once, as `key` names them, or "" for the
// ones that add to a list (fault, decisions). A nemesis line is once per
// fault class.
std::string once_key(const std::vector<Word>& w) {
  static const std::set<std::string> once{"recipe", "clients", "rounds", "hold-ms", "think-ms",
                                          "timeout-ms", "session-timeout-ms", "leases", "producers",
                                          "delay-choices", "servers", "follower-lag-ms",
                                          "nemesis-pause-ms", "nemesis-delay-ms",
                                          "nemesis-window-ms", "nemesis-first-window-ms",
                                          "reentrant", "varied", "swarm", "seed", "strategy", "expect", "client",
                                          "sequence-start"};
  if (w[0].text == "nemesis" && w.size() > 1) return "nemesis " + w[1].text;
  return once.count(w[0].text) ? w[0].text : "";
}

// Parses one line's directive into `s`; on error fills col and message.
class LineParser : public DirectiveLine {
 public:
  LineParser(const std::vector<Word>& w, Scenario& s) : DirectiveLine(w), s_(s) {}

  // Empty string: ok. Else the error message, with col_ set.
  std::string parse(int& version, bool& saw_workload_line) {
    const std::string& d = w_[0].text;
    if (version == 0) {
      if (d != "zksim-scenario") return at(0, fmt::format("expected 'zksim-scenario {}' first", kVersion));
      std::int64_t v = 0;
      if (auto e = integer(1, v, 0, INT32_MAX); !e.empty()) return e;
      if (v < 1 || v > kVersion) {
        return at(1, fmt::format("unsupported format version {} (this is version {}; 1 is read too)", v, kVersion));
      }
      version = static_cast<int>(v);
      return done(2);
    }
    saw_workload_line = true;
    Workload& wl = s_.workload;
    std::int64_t v = 0;
    auto int_field = [&](auto& field, std::int64_t lo, std::int64_t hi) -> std::string {
      if (auto e = integer(1, v, lo, hi); !e.empty()) return e;
      field = static_cast<std::remove_reference_t<decltype(field)>>(v);
      return done(2);
    };
    if (d == "zksim-scenario") return at(0, "the version line may appear only once");
    if (d == "plugin") return done(2);  // loaded before the other lines (load_plugins)
    if (d == "recipe") {
      if (w_.size() < 2) return at(1, "missing recipe name");
      const auto& all = recipe_names();
      if (std::find(all.begin(), all.end(), w_[1].text) == all.end()) {
        std::string known;
        for (const auto& n : all) known += (known.empty() ? "" : ", ") + n;
        return at(1, fmt::format("unknown recipe '{}' (known: {})", w_[1].text, known));
      }
      wl.recipe = w_[1].text;
      return done(2);
    }
    if (d == "clients") return int_field(wl.clients, 1, 10'000);
    if (d == "rounds") return int_field(wl.rounds, 0, 1'000'000);
    if (d == "hold-ms") return int_field(wl.hold_ms, 0, 86'400'000);
    if (d == "think-ms") return int_field(wl.think_ms, 0, 86'400'000);
    if (d == "timeout-ms") return int_field(wl.timeout_ms, -1, 86'400'000);
    if (d == "session-timeout-ms") return int_field(wl.session_timeout_ms, 1, 86'400'000);
    if (d == "leases") return int_field(wl.leases, 1, 10'000);
    if (d == "producers") return int_field(wl.producers, 0, 10'000);
    if (d == "sequence-start") return int_field(wl.sequence_start, INT32_MIN, INT32_MAX);
    if (d == "delay-choices") return int_field(s_.config.delay_choices, 1, 1000);
    // An ensemble (docs/ensemble.md); without the line, one server, as
    // every file written before it had.
    if (d == "servers") return int_field(s_.config.servers, 1, 9);
    if (d == "follower-lag-ms") return int_field(s_.config.follower_lag_ms, 0, 86'400'000);
    if (d == "nemesis-pause-ms") return int_field(s_.config.nemesis.pause_ms, 0, 86'400'000);
    if (d == "nemesis-delay-ms") return int_field(s_.config.nemesis.delay_ms, 0, 86'400'000);
    if (d == "nemesis-window-ms") return int_field(s_.config.nemesis.window_ms, 1, 86'400'000);
    if (d == "nemesis-first-window-ms") return int_field(s_.config.nemesis.first_window_ms, 0, 86'400'000);
    if (d == "reentrant" || d == "varied" || d == "swarm") {
      if (w_.size() < 2 || (w_[1].text != "yes" && w_[1].text != "no")) return at(1, "expected 'yes' or 'no'");
      (d == "swarm" ? wl.swarm : d == "varied" ? wl.varied : wl.reentrant) = w_[1].text == "yes";
      return done(2);
    }
    if (d == "client") {
      std::vector<std::string> words;
      for (std::size_t i = 1; i < w_.size(); ++i) words.push_back(w_[i].text);
      ClientChoice choice;
      std::size_t bad = 0;
      if (std::string why = parse_client_choice(words, choice, &bad); !why.empty()) return at(bad + 1, why);
      wl.flavours = choice.flavours;
      wl.draw_flavours = choice.drawn;
      return done(w_.size());
    }
    if (d == "nemesis") {
      if (w_.size() < 2) return at(1, "missing fault class");
      int k = find_name(fault_class_name, kFaultClasses, w_[1].text);
      if (k < 0) return at(1, fmt::format("unknown fault class '{}' (known: {})", w_[1].text, names(fault_class_name, kFaultClasses)));
      if (auto e = integer(2, v, 0, 1000); !e.empty()) return e;
      s_.config.nemesis.per_mille[k] = static_cast<std::uint32_t>(v);
      return done(3);
    }
    if (d == "fault") return fault();
    if (d == "seed") {
      std::uint64_t v = 0;
      if (auto e = seed(1, v); !e.empty()) return e;
      s_.seed = v;
      return done(2);
    }
    if (d == "strategy") {
      if (w_.size() < 2) return at(1, "missing strategy name");
      const std::optional<Strategy> strategy = strategy_named(w_[1].text);
      if (!strategy) return at(1, fmt::format("unknown strategy '{}' (known: {})", w_[1].text, fmt::join(strategy_names(), ", ")));
      s_.strategy = *strategy;
      return done(2);
    }
    if (d == "decisions") return decisions(s_.decisions);
    if (d == "expect") return expect(s_.expect_violation, property_names());
    return at(0, fmt::format("unknown directive '{}'", d));
  }

 private:
  std::string fault() {
    ScriptedFault f;
    if (w_.size() < 2) return at(1, "missing fault class");
    int k = find_name(fault_kind_name, kFaultKinds, w_[1].text);
    if (k < 0) return at(1, fmt::format("unknown fault class '{}' (known: {})", w_[1].text, names(fault_kind_name, kFaultKinds)));
    f.kind = static_cast<FaultKind>(k);
    if (w_.size() < 3 || w_[2].text != "client") return at(2, "expected 'client <n>' or 'client all'");
    std::int64_t v = 0;
    if (w_.size() > 3 && w_[3].text == "all") {
      f.client = kAllClients;
      if (w_.size() <= 4 || w_[4].text != "at") return at(4, "a fault on 'client all' needs 'at <ms>'");
    } else {
      if (auto e = integer(3, v, 0, 9'999); !e.empty()) return e;
      f.client = static_cast<std::int32_t>(v);
    }
    std::size_t i = 4;
    if (i < w_.size() && w_[i].text == "at") {
      if (auto e = integer(i + 1, v, 0, INT64_MAX / 2); !e.empty()) return e;
      f.at = v;
      i += 2;
    } else if (i < w_.size() && w_[i].text == "on") {
      if (i + 1 >= w_.size()) return at(i + 1, "missing request kind");
      RequestMatch m;
      if (w_[i + 1].text != "any") {
        m.kind = find_name(request_kind_name, kRequestKinds, w_[i + 1].text);
        if (m.kind < 0) return at(i + 1, fmt::format("unknown request kind '{}' (known: any, {})", w_[i + 1].text, names(request_kind_name, kRequestKinds)));
      }
      i += 2;
      if (i < w_.size() && w_[i].text == "nth") {
        if (auto e = integer(i + 1, v, 1, INT32_MAX); !e.empty()) return e;
        f.nth = static_cast<std::int32_t>(v);
        i += 2;
      }
      if (i < w_.size() && w_[i].text == "path") {
        if (i + 1 >= w_.size()) return at(i + 1, "missing path prefix");
        m.path_prefix = w_[i + 1].text;
        i += 2;
      }
      f.on = m;
    } else {
      return at(i, "expected 'at <ms>' or 'on <request>'");
    }
    if (i < w_.size() && w_[i].text == "for") {
      if (auto e = integer(i + 1, v, 0, 86'400'000); !e.empty()) return e;
      f.duration_ms = v;
      i += 2;
    }
    s_.faults.push_back(f);
    return done(i);
  }

  Scenario& s_;
};

}  // namespace

namespace {

// Loads the plugins the file names (`plugin FILE`, a path relative to the
// scenario file's directory, or absolute) before its other lines are read,
// so that a recipe they register is known wherever its line stands. "" or
// the error, with `line` and `col` set.
std::string load_plugins(const std::string& text, const std::string& file, Scenario& s, int& line, int& col) {
  std::istringstream in(text);
  std::string l;
  for (line = 1; std::getline(in, l); ++line) {
    std::vector<Word> w = words_of(l);
    if (w.empty() || w[0].text != "plugin") continue;
    col = w.size() < 2 ? w[0].col + 7 : w[1].col;
    if (w.size() < 2) return "missing plugin file";
    std::filesystem::path path(w[1].text);
    if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
    if (std::string why = load_plugin(path.string()); !why.empty()) return why;
    std::error_code ec;
    s.plugins.push_back(std::filesystem::canonical(path, ec).string());
  }
  return {};
}

}  // namespace

std::optional<Scenario> parse_scenario(const std::string& text, const std::string& file, ParseError* error) {
  Scenario s;
  {
    int line = 0, col = 0;
    if (std::string why = load_plugins(text, file, s, line, col); !why.empty()) {
      if (error) *error = ParseError{file, line, col, escaped(why)};
      return std::nullopt;
    }
  }
  std::istringstream in(text);
  std::string line;
  int n = 0;
  int version = 0;  // 0: the version line not seen yet
  bool saw_workload = false;
  std::set<std::string> given;  // the window directives the file gives
  std::vector<int> fault_lines;
  int producers_line = 0, producers_col = 0, size_line = 1;  // size: where clients or rounds were set
  int strategy_line = 0, strategy_col = 0;
  std::map<std::string, int> first_line;  // by once_key
  detail::ExpectEnds ends;
  auto fail = [&](int line_no, int col, const std::string& message) -> std::optional<Scenario> {
    if (error) *error = ParseError{file, line_no, col, escaped(message)};
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++n;
    std::vector<Word> w = words_of(line);
    if (w.empty()) {
      std::string comment;
      if (version == 0 && comment_of(line, &comment)) s.comments.push_back(std::move(comment));
      continue;
    }
    if (std::string why = ends.see(w, n); !why.empty()) return fail(n, w[0].col, why);
    std::size_t faults_before = s.faults.size();
    LineParser p(w, s);
    std::string message = p.parse(version, saw_workload);
    if (!message.empty()) return fail(n, p.col(), message);
    if (const std::string key = once_key(w); !key.empty()) {
      auto [first, fresh] = first_line.emplace(key, n);
      if (!fresh) return fail(n, w[0].col, fmt::format("'{}' given twice (first on line {})", key, first->second));
    }
    if (s.faults.size() > faults_before) fault_lines.push_back(n);
    if (w[0].text == "producers") producers_line = n, producers_col = w[1].col;
    if (w[0].text == "strategy") strategy_line = n, strategy_col = w[1].col;
    if (w[0].text == "clients" || w[0].text == "rounds") size_line = n;
    given.insert(w[0].text);
  }
  if (version == 0) return fail(n == 0 ? 1 : n, 1, fmt::format("empty scenario: expected 'zksim-scenario {}'", kVersion));
  if (version == 1 && s.config.nemesis.timed()) {
    if (!given.count("nemesis-window-ms")) s.config.nemesis.window_ms = kVersion1WindowMs;
    if (!given.count("nemesis-first-window-ms")) s.config.nemesis.first_window_ms = kVersion1WindowMs;
  }
  if (producers_line && s.workload.producers > s.workload.clients) {
    return fail(producers_line, producers_col, fmt::format("{} producers, but there are {} clients",
                                                           s.workload.producers, s.workload.clients));
  }
  if (s.strategy == Strategy::FixedLatency && s.config.delay_choices != 1) {
    return fail(strategy_line, strategy_col,
                fmt::format("'strategy fixed-latency' draws no delays: it needs 'delay-choices 1' (this file has {})",
                            s.config.delay_choices));
  }
  if (s.strategy == Strategy::Dfs && s.seed) {
    return fail(strategy_line, strategy_col, "'strategy dfs' has no seed: its run is its decision list");
  }
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    if (s.faults[i].client >= s.workload.clients) {
      return fail(fault_lines[i], 1, fmt::format("fault names client {}, but there are {} clients (0 to {})",
                                                 s.faults[i].client, s.workload.clients, s.workload.clients - 1));
    }
  }
  if (std::string why = workload_problem(s.workload, s.config); !why.empty()) return fail(size_line, 1, why);
  if (std::string why = ends.at_end(); !why.empty()) return fail(n, 1, why);
  return s;
}

std::optional<Scenario> load_scenario(const std::string& path, ParseError* error) {
  const std::optional<std::string> text = detail::file_text(path, error);
  return text ? parse_scenario(*text, path, error) : std::nullopt;
}

std::string write_scenario(const Scenario& s) {
  std::string out;
  for (const std::string& c : s.comments) out += "# " + c + "\n";
  const Workload& w = s.workload;
  out += fmt::format("zksim-scenario {}\n", kVersion);
  std::vector<std::string> plugins = s.plugins;
  const Recipe* recipe = find_recipe(w.recipe);
  if (recipe && recipe->origin != "zksim" &&
      std::find(plugins.begin(), plugins.end(), recipe->origin) == plugins.end()) {
    plugins.push_back(recipe->origin);
  }
  for (const std::string& p : plugins) out += fmt::format("plugin {}\n", p);
  out += fmt::format("recipe {}\nclients {}\nrounds {}\nhold-ms {}\nthink-ms {}\ntimeout-ms {}\n",
                     w.recipe, w.clients, w.rounds, w.hold_ms, w.think_ms, w.timeout_ms);
  out += fmt::format("session-timeout-ms {}\nreentrant {}\nleases {}\nproducers {}\n", w.session_timeout_ms,
                     w.reentrant ? "yes" : "no", w.leases, w.producers);
  if (w.draw_flavours) {
    out += "client any\n";
  } else if (w.flavours != std::vector<Flavour>{Flavour::C}) {
    out += fmt::format("client {}\n", flavours_text(w.flavours, " "));
  }
  if (w.varied) out += "varied yes\n";
  if (w.sequence_start != 0) out += fmt::format("sequence-start {}\n", w.sequence_start);
  if (w.swarm) out += "swarm yes\n";
  out += fmt::format("delay-choices {}\n", s.config.delay_choices);
  if (s.config.servers != 1) {
    out += fmt::format("servers {}\nfollower-lag-ms {}\n", s.config.servers, s.config.follower_lag_ms);
  }
  for (int k = 0; k < kFaultClasses; ++k) {
    if (s.config.nemesis.per_mille[k]) out += fmt::format("nemesis {} {}\n", fault_class_name(k), s.config.nemesis.per_mille[k]);
  }
  if (s.config.nemesis.any()) {
    out += fmt::format("nemesis-pause-ms {}\nnemesis-delay-ms {}\n", s.config.nemesis.pause_ms, s.config.nemesis.delay_ms);
  }
  if (s.config.nemesis.timed() && s.config.nemesis.window_ms) {
    out += fmt::format("nemesis-window-ms {}\n", s.config.nemesis.window_ms);
  }
  if (s.config.nemesis.timed() && s.config.nemesis.first_window_ms) {
    out += fmt::format("nemesis-first-window-ms {}\n", s.config.nemesis.first_window_ms);
  }
  for (const ScriptedFault& f : s.faults) {
    out += fmt::format("fault {} client {}", fault_kind_name(static_cast<std::int32_t>(f.kind)),
                       f.client == kAllClients ? std::string("all") : std::to_string(f.client));
    if (f.at) out += fmt::format(" at {}", *f.at);
    if (f.on) {
      out += fmt::format(" on {}", f.on->kind < 0 ? std::string("any") : std::string(request_kind_name(f.on->kind)));
      if (f.nth != 1) out += fmt::format(" nth {}", f.nth);
      if (!f.on->path_prefix.empty()) out += fmt::format(" path {}", f.on->path_prefix);
    }
    if (f.duration_ms) out += fmt::format(" for {}", f.duration_ms);
    out += "\n";
  }
  if (s.strategy != Strategy::Random) out += fmt::format("strategy {}\n", strategy_name(s.strategy));
  return out + detail::replay_lines(s.seed, s.decisions, s.expect_violation);
}

namespace {

// The verdict of `r`'s violations against what `s` expects.
void judge(const Scenario& s, ScenarioRun& r) {
  const auto& v = r.result.violations;
  r.verdict = v.empty() ? "pass" : "violation " + v.front().property;
  if (!s.expect_violation) {
    r.as_expected = v.empty();
  } else {
    r.as_expected = std::any_of(v.begin(), v.end(), [&](const Violation& x) { return x.property == *s.expect_violation; });
    if (r.as_expected) r.verdict = "violation " + *s.expect_violation;
  }
}

}  // namespace

ScenarioRun run_scenario(const Scenario& s, KeepTrace keep) {
  ScenarioRun r;
  if (s.seed && s.decisions.empty()) {
    SeededDecisions d(*s.seed);
    r.result = run(s.workload, d, s.faults, s.config, keep);
  } else {
    ListDecisions d(s.decisions);  // empty: every decision is 0
    r.result = run(s.workload, d, s.faults, s.config, keep);
  }
  judge(s, r);
  return r;
}

ScenarioRun run_scenario_isolated(const Scenario& s) {
  const detail::RunPool::Answer a = detail::run_isolated(
      [&](std::string_view) {
        RunResult result = run_scenario(s, KeepTrace::No).result;
        detail::RunRecord record;
        record.violations = std::move(result.violations);
        std::string out = detail::encode(record);
        out.append(reinterpret_cast<const char*>(&result.trace_hash), sizeof result.trace_hash);
        return out;
      },
      {});
  ScenarioRun r;
  if (a.crash) {
    r.result.violations.push_back(Violation{name(Property::Crashed), fmt::format("the run crashed: {}", *a.crash), {}, 0});
  } else {
    std::memcpy(&r.result.trace_hash, a.bytes.data() + a.bytes.size() - sizeof r.result.trace_hash,
                sizeof r.result.trace_hash);
    r.result.violations =
        detail::decode(std::string_view(a.bytes).substr(0, a.bytes.size() - sizeof r.result.trace_hash)).violations;
  }
  judge(s, r);
  return r;
}

}  // namespace zksim::scenarios
