#include "campaign_json.h"

#include "common.h"
#include "zksim/scenarios/property.h"
#include "zksim/zk_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace zksim::cli {

using nlohmann::json;

json campaign_json(const Campaign& c) {
  const scenarios::Workload& w = c.workload;
  json nemesis = json::object();
  for (int k = 0; k < kFaultClasses; ++k) {
    if (c.config.nemesis.per_mille[k]) nemesis[std::string(fault_class_name(k))] = c.config.nemesis.per_mille[k];
  }
  json out{{"recipe", w.recipe},
           {"clients", w.clients},
           {"rounds", w.rounds},
           {"hold_ms", w.hold_ms},
           {"think_ms", w.think_ms},
           {"timeout_ms", w.timeout_ms},
           {"session_timeout_ms", w.session_timeout_ms},
           {"varied", w.varied},
           {"sequence_start", w.sequence_start},
           {"swarm", w.swarm},
           {"client", scenarios::ClientChoice{w.flavours, w.draw_flavours}.text()},
           {"faults", c.faults},
           {"nemesis_per_mille", nemesis},
           {"delay_choices", c.config.delay_choices},
           {"strategy", scenarios::strategy_name(c.strategy)},
           {"seed", c.seed},
           {"runs_limit", c.runs}};
  if (c.strategy == scenarios::Strategy::Dfs || c.strategy == scenarios::Strategy::Pct) out["depth"] = c.depth;
  // One server, as every report before ensembles, says nothing.
  if (c.config.servers != 1) out["servers"] = c.config.servers;
  if (c.search) {
    // What each run draws, and what the options fixed (absent: drawn).
    const scenarios::SearchSpace& s = *c.search;
    json classes = json::array();
    for (int k : s.faults) classes.push_back(std::string(fault_class_name(k)));
    json search{{"faults", classes},
                {"draw_faults", s.draw_faults},
                {"draw_features", s.draw_features},
                {"says", scenarios::describe(s, w)}};
    if (s.rate) search["rate"] = *s.rate;
    if (s.servers) search["servers"] = *s.servers;
    if (s.flavours) search["client"] = scenarios::flavours_text(*s.flavours, ",");
    if (s.hold_ms) search["hold_ms"] = *s.hold_ms;
    if (s.varied) search["varied"] = *s.varied;
    if (s.strategy) search["strategy"] = scenarios::strategy_name(*s.strategy);
    if (s.sequence_start) search["sequence_start"] = *s.sequence_start;
    out["search"] = search;
  }
  return out;
}

std::vector<std::string> campaign_classes(const json& campaign) {
  std::vector<std::string> out;
  if (campaign.contains("search")) {
    for (const json& k : campaign["search"]["faults"]) out.push_back(k.get<std::string>());
    return out;
  }
  const json nemesis = campaign.value("nemesis_per_mille", json::object());
  for (const auto& [name, rate] : nemesis.items()) out.push_back(name);
  return out;
}

json result_json(const CampaignResult& r) {
  json findings = json::array();
  for (const auto& [property, f] : r.findings) {
    json j{{"property", f.property},
           {"class", scenarios::severity_name(scenarios::severity_of(f.property))},
           {"first_run", f.run},
           {"seed", f.seed},
           {"runs", f.runs},
           {"message", f.violation.message},
           {"clients", f.violation.clients},
           {"time_ms", f.violation.time},
           {"decisions", f.decisions}};
    if (!f.drawn.empty()) j["drawn"] = f.drawn;
    if (!f.scenario_file.empty()) {
      j["scenario"] = f.scenario_file;
      j["shrunk_decisions"] = f.shrunk_decisions;
      j["shrink_runs"] = f.shrink_runs;
    }
    findings.push_back(std::move(j));
  }
  json out{{"runs", r.runs},
           {"violating_runs", r.violating_runs},
           {"probes", r.probes},
           {"probes_reached", r.probes_reached()},
           {"wakeups", r.wakeups},
           {"wakeups_without_progress", r.wakeups_without_progress},
           {"violations", findings}};
  if (r.exhausted) out["exhausted"] = *r.exhausted;
  if (r.granted_while_suspended) {
    out["granted_while_suspended"] = json{{"grants", r.granted_while_suspended}, {"runs", r.runs_granted_while_suspended}};
  }
  if (r.lost_in_transit) {
    out["lost_in_transit"] = json{{"items", r.lost_in_transit}, {"runs", r.runs_lost_in_transit}};
  }
  if (r.recycled) out["memory"] = json{{"recycled", r.recycled}, {"largest_growth_bytes", r.largest_growth}};
  out["completed_operations"] = r.completed_ops;
  json struck = json::object();
  for (int k = 0; k < kFaultClasses; ++k) {
    if (r.struck[static_cast<std::size_t>(k)]) struck[std::string(fault_class_name(k))] = r.struck[static_cast<std::size_t>(k)];
  }
  out["struck"] = struck;
  json armed = json::object();
  for (int k = 0; k < kFaultClasses; ++k) {
    if (r.armed[static_cast<std::size_t>(k)]) armed[std::string(fault_class_name(k))] = r.armed[static_cast<std::size_t>(k)];
  }
  out["armed"] = armed;
  return out;
}

std::vector<std::string> campaign_warnings(const json& campaign, const CampaignResult& r) {
  std::vector<std::string> out;
  if (r.runs == 0) return out;
  if (r.completed_ops == 0) {
    out.push_back(fmt::format("no call completed in {} runs: every acquire, take or wait failed or timed out, so "
                              "the properties were judged on runs where nothing happened",
                              r.runs));
  }
  for (const std::string& name : campaign_classes(campaign)) {
    for (int k = 0; k < kFaultClasses; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (fault_class_name(k) != name || r.struck[i]) continue;
      // A class on in every run, or drawn into enough of them that never
      // striking is news rather than chance.
      constexpr std::int64_t kTelling = 10;
      if (r.armed[i] == r.runs) {
        out.push_back(fmt::format("fault class {} never struck in {} runs", name, r.runs));
      } else if (r.armed[i] >= kTelling) {
        out.push_back(fmt::format("fault class {} never struck in the {} of {} runs that had it", name, r.armed[i], r.runs));
      }
    }
  }
  return out;
}

namespace {

template <class T>
T field(const json& j, const char* name, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) throw UsageError(fmt::format("{}: missing field '{}'", where, name));
  try {
    return j.at(name).get<T>();
  } catch (const json::exception&) {
    throw UsageError(fmt::format("{}: field '{}' has the wrong type", where, name));
  }
}

// `v` as a whole number in [lo, hi]; `what` names it in the error ("field
// 'runs'"). JSON fractions, and numbers past the bounds, are refused rather
// than rounded or wrapped.
std::int64_t whole_value(const json& v, const std::string& what, std::int64_t lo, std::int64_t hi,
                         const std::string& where) {
  std::optional<std::int64_t> x;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) x = static_cast<std::int64_t>(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
  }
  if (!x || *x < lo || *x > hi) {
    const std::string range = hi == INT64_MAX ? fmt::format("of at least {}", lo) : fmt::format("from {} to {}", lo, hi);
    throw UsageError(fmt::format("{}: {} is {}, not a whole number {}", where, what, v.dump(), range));
  }
  return *x;
}

std::int64_t whole(const json& j, const char* name, std::int64_t lo, std::int64_t hi, const std::string& where) {
  return whole_value(field<json>(j, name, where), fmt::format("field '{}'", name), lo, hi, where);
}

std::uint64_t seed_field(const json& j, const char* name, const std::string& where) {
  const json v = field<json>(j, name, where);
  if (!v.is_number_unsigned()) {
    throw UsageError(fmt::format("{}: field '{}' is {}, not a seed (a whole number from 0 to {})", where, name, v.dump(), UINT64_MAX));
  }
  return v.get<std::uint64_t>();
}

}  // namespace

CampaignResult result_from_json(const json& j, const std::string& where) {
  CampaignResult r;
  r.runs = whole(j, "runs", 0, INT64_MAX, where);
  r.violating_runs = whole(j, "violating_runs", 0, r.runs, where);
  if (j.contains("exhausted")) r.exhausted = field<bool>(j, "exhausted", where);
  r.wakeups = whole(j, "wakeups", 0, INT64_MAX, where);
  r.wakeups_without_progress = whole(j, "wakeups_without_progress", 0, r.wakeups, where);
  if (j.contains("granted_while_suspended")) {
    const json granted = field<json>(j, "granted_while_suspended", where);
    r.runs_granted_while_suspended = whole(granted, "runs", 1, r.runs, where);
    r.granted_while_suspended = whole(granted, "grants", r.runs_granted_while_suspended, INT64_MAX, where);
  }
  if (j.contains("lost_in_transit")) {
    const json lost = field<json>(j, "lost_in_transit", where);
    r.runs_lost_in_transit = whole(lost, "runs", 1, r.runs, where);
    r.lost_in_transit = whole(lost, "items", r.runs_lost_in_transit, INT64_MAX, where);
  }
  if (j.contains("memory")) {
    const json memory = field<json>(j, "memory", where);
    r.recycled = static_cast<int>(whole(memory, "recycled", 1, INT32_MAX, where));
    r.largest_growth = static_cast<std::uint64_t>(whole(memory, "largest_growth_bytes", 0, INT64_MAX, where));
  }
  if (j.contains("completed_operations")) r.completed_ops = whole(j, "completed_operations", 0, INT64_MAX, where);
  for (const char* per_class : {"struck", "armed"}) {
    if (!j.contains(per_class)) continue;
    const json counts = field<json>(j, per_class, where);
    if (!counts.is_object()) throw UsageError(fmt::format("{}: '{}' is not an object", where, per_class));
    auto& into = std::string_view(per_class) == "struck" ? r.struck : r.armed;
    for (const auto& [name, count] : counts.items()) {
      int k = 0;
      while (k < kFaultClasses && fault_class_name(k) != name) ++k;
      if (k == kFaultClasses) throw UsageError(fmt::format("{}: '{}' names an unknown fault class '{}'", where, per_class, name));
      // A class strikes many times a run; it is armed at most once.
      const std::int64_t most = std::string_view(per_class) == "struck" ? INT64_MAX : r.runs;
      into[static_cast<std::size_t>(k)] = whole_value(count, fmt::format("{} '{}'", per_class, name), 0, most, where);
    }
  }
  const json probes = field<json>(j, "probes", where);
  if (!probes.is_object()) throw UsageError(fmt::format("{}: 'probes' is not an object", where));
  for (const auto& [name, count] : probes.items()) {
    r.probes[name] = whole_value(count, fmt::format("probe '{}'", name), 0, INT64_MAX, where);
  }
  const json violations = field<json>(j, "violations", where);
  if (!violations.is_array()) throw UsageError(fmt::format("{}: 'violations' is not a list", where));
  for (const json& v : violations) {
    Finding f;
    f.property = field<std::string>(v, "property", where);
    f.run = whole(v, "first_run", 0, INT64_MAX, where);
    f.seed = seed_field(v, "seed", where);
    f.runs = whole(v, "runs", 1, r.violating_runs, where);
    f.violation.property = f.property;
    f.violation.message = field<std::string>(v, "message", where);
    const json clients = field<json>(v, "clients", where);
    if (!clients.is_array()) throw UsageError(fmt::format("{}: 'clients' is not a list", where));
    for (const json& c : clients) {
      f.violation.clients.push_back(static_cast<int>(whole_value(c, "a client in 'clients'", 0, INT32_MAX, where)));
    }
    f.violation.time = whole(v, "time_ms", 0, INT64_MAX, where);
    f.decisions = whole(v, "decisions", 0, INT64_MAX, where);
    if (v.contains("drawn")) f.drawn = field<std::string>(v, "drawn", where);
    if (v.contains("scenario")) {
      f.scenario_file = field<std::string>(v, "scenario", where);
      f.shrunk_decisions = whole(v, "shrunk_decisions", 0, f.decisions, where);
      f.shrink_runs = static_cast<int>(whole(v, "shrink_runs", 0, INT32_MAX, where));
    }
    if (!r.findings.emplace(f.property, f).second) {
      throw UsageError(fmt::format("{}: property '{}' listed twice", where, f.property));
    }
  }
  return r;
}

void check_campaign_json(const json& c, const std::string& where) {
  const std::string recipe = field<std::string>(c, "recipe", where);
  const auto& recipes = scenarios::recipe_names();
  if (std::find(recipes.begin(), recipes.end(), recipe) == recipes.end()) {
    throw UsageError(fmt::format("{}: field 'recipe' names no recipe ('{}')", where, recipe));
  }
  field<std::string>(c, "faults", where);
  if (c.contains("client")) parse_clients(fmt::format("{}: field 'client'", where), field<std::string>(c, "client", where));
  // The bounds of the scenario file format.
  whole(c, "clients", 1, 10'000, where);
  whole(c, "rounds", 0, 1'000'000, where);
  whole(c, "hold_ms", 0, 86'400'000, where);
  whole(c, "think_ms", 0, 86'400'000, where);
  whole(c, "timeout_ms", -1, 86'400'000, where);
  whole(c, "session_timeout_ms", 1, 86'400'000, where);
  if (c.contains("sequence_start")) whole(c, "sequence_start", INT32_MIN, INT32_MAX, where);
  const json nemesis = field<json>(c, "nemesis_per_mille", where);
  if (!nemesis.is_object()) throw UsageError(fmt::format("{}: 'nemesis_per_mille' is not an object", where));
  const std::vector<std::string> kinds = fault_class_names();
  for (const auto& [kind, rate] : nemesis.items()) {
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      throw UsageError(fmt::format("{}: 'nemesis_per_mille' names no fault class ('{}')", where, kind));
    }
    whole_value(rate, fmt::format("the rate of '{}'", kind), 0, 1000, where);
  }
  whole(c, "delay_choices", 1, 1000, where);
  if (c.contains("servers")) whole(c, "servers", 2, 9, where);
  const json strategy = field<json>(c, "strategy", where);
  const std::optional<scenarios::Strategy> s =
      strategy.is_string() ? scenarios::strategy_named(strategy.get<std::string>()) : std::nullopt;
  if (!s) throw UsageError(fmt::format("{}: field 'strategy' names no strategy ({})", where, strategy.dump()));
  if (*s == scenarios::Strategy::Dfs) {
    whole(c, "depth", 1, kMaxDfsDepth, where);
    whole(c, "seed", 0, 0, where);  // a search has no seed
  } else {
    if (*s == scenarios::Strategy::Pct) whole(c, "depth", 1, kMaxPctDepth, where);
    seed_field(c, "seed", where);
  }
  whole(c, "runs_limit", 0, INT64_MAX, where);
  if (c.contains("search")) {
    const json search = field<json>(c, "search", where);
    const json classes = field<json>(search, "faults", where);
    if (!classes.is_array()) throw UsageError(fmt::format("{}: the search's 'faults' is not a list", where));
    for (const json& k : classes) {
      if (!k.is_string() || std::find(kinds.begin(), kinds.end(), k.get<std::string>()) == kinds.end()) {
        throw UsageError(fmt::format("{}: the search's 'faults' names no fault class ({})", where, k.dump()));
      }
    }
    field<bool>(search, "draw_faults", where);
    field<bool>(search, "draw_features", where);
    field<std::string>(search, "says", where);
    if (search.contains("rate")) whole(search, "rate", 0, 1000, where);
    if (search.contains("servers")) whole(search, "servers", 1, 9, where);
    if (search.contains("hold_ms")) whole(search, "hold_ms", 0, 86'400'000, where);
    if (search.contains("varied")) field<bool>(search, "varied", where);
    if (search.contains("sequence_start")) whole(search, "sequence_start", INT32_MIN, INT32_MAX, where);
    if (search.contains("client")) {
      parse_clients(fmt::format("{}: the search's 'client'", where), field<std::string>(search, "client", where));
    }
    if (search.contains("strategy") && !scenarios::strategy_named(field<std::string>(search, "strategy", where))) {
      throw UsageError(fmt::format("{}: the search's 'strategy' names no strategy", where));
    }
  }
}


}  // namespace zksim::cli
