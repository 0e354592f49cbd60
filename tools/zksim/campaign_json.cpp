#include "campaign_json.h"

#include "zksim/trace.h"

#include <fmt/format.h>

namespace zksim::cli {

using nlohmann::json;

json campaign_json(const Campaign& c) {
  const scenarios::Workload& w = c.workload;
  json nemesis = json::object();
  for (int k = 0; k < kFaultKinds; ++k) {
    if (c.config.nemesis.per_mille[k]) nemesis[std::string(fault_kind_name(k))] = c.config.nemesis.per_mille[k];
  }
  return json{{"recipe", w.recipe},
              {"clients", w.clients},
              {"rounds", w.rounds},
              {"hold_ms", w.hold_ms},
              {"think_ms", w.think_ms},
              {"timeout_ms", w.timeout_ms},
              {"session_timeout_ms", w.session_timeout_ms},
              {"faults", c.faults},
              {"nemesis_per_mille", nemesis},
              {"seed", c.seed},
              {"runs_limit", c.runs}};
}

json result_json(const CampaignResult& r) {
  json findings = json::array();
  for (const auto& [property, f] : r.findings) {
    json j{{"property", f.property},
           {"first_run", f.run},
           {"seed", f.seed},
           {"runs", f.runs},
           {"message", f.violation.message},
           {"clients", f.violation.clients},
           {"time_ms", f.violation.time},
           {"decisions", f.decisions}};
    if (!f.scenario_file.empty()) {
      j["scenario"] = f.scenario_file;
      j["shrunk_decisions"] = f.shrunk_decisions;
      j["shrink_runs"] = f.shrink_runs;
    }
    findings.push_back(std::move(j));
  }
  return json{{"runs", r.runs},
              {"violating_runs", r.violating_runs},
              {"probes", r.probes},
              {"probes_reached", r.probes_reached()},
              {"violations", findings}};
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

}  // namespace

CampaignResult result_from_json(const json& j, const std::string& where) {
  CampaignResult r;
  r.runs = field<std::int64_t>(j, "runs", where);
  r.violating_runs = field<std::int64_t>(j, "violating_runs", where);
  r.probes = field<std::map<std::string, std::int64_t>>(j, "probes", where);
  const json violations = field<json>(j, "violations", where);
  if (!violations.is_array()) throw UsageError(fmt::format("{}: 'violations' is not a list", where));
  for (const json& v : violations) {
    Finding f;
    f.property = field<std::string>(v, "property", where);
    f.run = field<std::int64_t>(v, "first_run", where);
    f.seed = field<std::uint64_t>(v, "seed", where);
    f.runs = field<std::int64_t>(v, "runs", where);
    f.violation.property = f.property;
    f.violation.message = field<std::string>(v, "message", where);
    f.violation.clients = field<std::vector<int>>(v, "clients", where);
    f.violation.time = field<std::int64_t>(v, "time_ms", where);
    f.decisions = field<std::int64_t>(v, "decisions", where);
    if (v.contains("scenario")) {
      f.scenario_file = field<std::string>(v, "scenario", where);
      f.shrunk_decisions = field<std::int64_t>(v, "shrunk_decisions", where);
      f.shrink_runs = field<int>(v, "shrink_runs", where);
    }
    if (!r.findings.emplace(f.property, f).second) {
      throw UsageError(fmt::format("{}: property '{}' listed twice", where, f.property));
    }
  }
  return r;
}

json progress_json(const CampaignResult& r) {
  json names = json::array();
  for (const auto& [name, count] : r.probes) {
    if (count) names.push_back(name);
  }
  return json{{"runs", r.runs}, {"violating_runs", r.violating_runs}, {"probes", names}};
}

}  // namespace zksim::cli
