#include "zksim/scenarios/lease_scenario.h"

#include "directive_line.h"
#include "zksim/scenarios/shrink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace zksim::scenarios {

using detail::comment_of;
using detail::DirectiveLine;
using detail::escaped;
using detail::Word;
using detail::words_of;

namespace {

constexpr int kVersion = 1;
constexpr const char* kVersionWord = "zksim-lease-scenario";

// The properties a lease run judges (harness.h, checkers.h).
const std::vector<std::string>& lease_properties() {
  static const std::vector<std::string> all{"resource-exclusion", "belief-exclusion", "lease-kept", "herd-effect",
                                            "liveness"};
  return all;
}

std::string recipe_list() {
  std::vector<std::string> names;
  for (const lease::LeaseRecipe& r : lease::lease_recipes()) names.push_back(r.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string fault_list() {
  std::vector<std::string> names;
  for (const lease::LeaseFault f : lease::kLeaseFaults) names.emplace_back(lease::lease_fault_name(f));
  return fmt::format("{}", fmt::join(names, ", "));
}

class LeaseLineParser : public DirectiveLine {
 public:
  LeaseLineParser(const std::vector<Word>& w, LeaseScenario& s) : DirectiveLine(w), s_(s) {}

  // "" or the error; `version` is 0 until the version line was read.
  std::string parse(int& version) {
    const std::string& d = w_[0].text;
    std::int64_t v = 0;
    if (version == 0) {
      if (d != kVersionWord) return at(0, fmt::format("expected '{} {}' first", kVersionWord, kVersion));
      if (auto e = integer(1, v, 0, INT32_MAX); !e.empty()) return e;
      if (v != kVersion) return at(1, fmt::format("unsupported format version {} (this is version {})", v, kVersion));
      version = static_cast<int>(v);
      return done(2);
    }
    lease::LeaseWorkload& wl = s_.workload;
    auto int_field = [&](auto& field, std::int64_t lo, std::int64_t hi) -> std::string {
      if (auto e = integer(1, v, lo, hi); !e.empty()) return e;
      field = static_cast<std::remove_reference_t<decltype(field)>>(v);
      return done(2);
    };
    if (d == kVersionWord) return at(0, "the version line may appear only once");
    if (d == "recipe") {
      if (w_.size() < 2) return at(1, "missing lease lock name");
      if (!lease::find_lease_recipe(w_[1].text)) {
        return at(1, fmt::format("unknown lease lock '{}' (known: {})", w_[1].text, recipe_list()));
      }
      wl.recipe = w_[1].text;
      return done(2);
    }
    // Bounds that keep a replay's trace and timeline within memory: their
    // events grow with clients x simulated time (renewals every third of a
    // lease, retries every few ms). The most a replay took at the bounds:
    // 270 MB (RedLock, 16 processes polling 5 nodes, 100 short rounds).
    if (d == "clients") return int_field(wl.clients, 1, 16);
    if (d == "rounds") return int_field(wl.rounds, 0, 100);
    if (d == "hold-ms") return int_field(wl.hold_ms, 0, 60'000);
    if (d == "think-ms") return int_field(wl.think_ms, 0, 60'000);
    if (d == "limit-ms") return int_field(wl.limit_ms, 1, 600'000);
    if (d == "fault-per-mille") return int_field(wl.fault_per_mille, 0, 1000);
    if (d == "faults") {
      if (w_.size() < 2) return at(1, "missing fault class (or 'none')");
      wl.faults.clear();
      if (w_[1].text == "none") return done(2);
      for (std::size_t i = 1; i < w_.size(); ++i) {
        const std::optional<lease::LeaseFault> f = lease::lease_fault_named(w_[i].text);
        if (!f) return at(i, fmt::format("unknown lease fault class '{}' (known: none, {})", w_[i].text, fault_list()));
        wl.faults.push_back(*f);
      }
      return {};
    }
    if (d == "seed") {
      std::uint64_t seed_value = 0;
      if (auto e = seed(1, seed_value); !e.empty()) return e;
      s_.seed = seed_value;
      return done(2);
    }
    if (d == "decisions") return decisions(s_.decisions);
    if (d == "expect") return expect(s_.expect_violation, lease_properties());
    return at(0, fmt::format("unknown directive '{}'", d));
  }

 private:
  LeaseScenario& s_;
};

}  // namespace

bool is_lease_scenario(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<Word> w = words_of(line);
    if (!w.empty()) return w[0].text == kVersionWord;
  }
  return false;
}

std::optional<LeaseScenario> parse_lease_scenario(const std::string& text, const std::string& file,
                                                  ParseError* error) {
  LeaseScenario s;
  s.workload.faults.clear();
  std::istringstream in(text);
  std::string line;
  int n = 0, version = 0;
  std::map<std::string, int> first_line;
  detail::ExpectEnds ends;
  auto fail = [&](int line_no, int col, const std::string& message) -> std::optional<LeaseScenario> {
    if (error) *error = ParseError{file, line_no, col, escaped(message)};
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++n;
    const std::vector<Word> w = words_of(line);
    if (w.empty()) {
      std::string comment;
      if (version == 0 && comment_of(line, &comment)) s.comments.push_back(std::move(comment));
      continue;
    }
    if (std::string why = ends.see(w, n); !why.empty()) return fail(n, w[0].col, why);
    LeaseLineParser p(w, s);
    if (std::string message = p.parse(version); !message.empty()) return fail(n, p.col(), message);
    if (w[0].text != "decisions") {
      auto [first, fresh] = first_line.emplace(w[0].text, n);
      if (!fresh) return fail(n, w[0].col, fmt::format("'{}' given twice (first on line {})", w[0].text, first->second));
    }
  }
  if (version == 0) return fail(n == 0 ? 1 : n, 1, fmt::format("empty lease scenario: expected '{} {}'", kVersionWord, kVersion));
  if (!first_line.count("recipe")) return fail(n, 1, "no 'recipe' line: which lease lock runs?");
  if (std::string why = ends.at_end(); !why.empty()) return fail(n, 1, why);
  return s;
}

std::optional<LeaseScenario> load_lease_scenario(const std::string& path, ParseError* error) {
  const std::optional<std::string> text = detail::file_text(path, error);
  return text ? parse_lease_scenario(*text, path, error) : std::nullopt;
}

std::string write_lease_scenario(const LeaseScenario& s) {
  std::string out;
  for (const std::string& c : s.comments) out += "# " + c + "\n";
  const lease::LeaseWorkload& w = s.workload;
  out += fmt::format("{} {}\nrecipe {}\nclients {}\nrounds {}\nhold-ms {}\nthink-ms {}\nlimit-ms {}\n", kVersionWord,
                     kVersion, w.recipe, w.clients, w.rounds, w.hold_ms, w.think_ms, w.limit_ms);
  std::vector<std::string> faults;
  for (const lease::LeaseFault f : w.faults) faults.emplace_back(lease::lease_fault_name(f));
  out += fmt::format("faults {}\nfault-per-mille {}\n", faults.empty() ? "none" : fmt::format("{}", fmt::join(faults, " ")),
                     w.fault_per_mille);
  return out + detail::replay_lines(s.seed, s.decisions, s.expect_violation);
}

namespace {

lease::LeaseRun run_with(const LeaseScenario& s, bool keep_trace) {
  lease::LeaseWorkload w = s.workload;
  w.keep_trace = keep_trace;
  if (s.seed && s.decisions.empty()) {
    SeededDecisions d(*s.seed);
    return lease::run_lease(w, d);
  }
  ListDecisions d(s.decisions);  // empty: every decision is 0
  return lease::run_lease(w, d);
}

const Violation* find_violation(const lease::LeaseRun& run, const std::string& property) {
  const auto it = std::ranges::find(run.violations, property, &Violation::property);
  return it == run.violations.end() ? nullptr : &*it;
}

}  // namespace

LeaseScenarioRun run_lease_scenario(const LeaseScenario& s) {
  LeaseScenarioRun r;
  r.run = run_with(s, /*keep_trace=*/true);
  const auto& v = r.run.violations;
  r.verdict = v.empty() ? "pass" : "violation " + v.front().property;
  if (!s.expect_violation) {
    r.as_expected = v.empty();
  } else {
    r.as_expected = find_violation(r.run, *s.expect_violation) != nullptr;
    if (r.as_expected) r.verdict = "violation " + *s.expect_violation;
  }
  return r;
}

ShrunkLease shrink_lease_scenario(LeaseScenario s, const std::string& property, int max_runs) {
  ShrunkLease out;
  if (max_runs <= 0) return out;
  // The list to shrink: the file's own, or the one its seed draws.
  std::vector<std::uint32_t> start = s.decisions;
  std::optional<Violation> found;
  {
    lease::LeaseWorkload w = s.workload;
    lease::LeaseRun run;
    if (s.seed && s.decisions.empty()) {
      SeededDecisions seeded(*s.seed);
      RecordingDecisions rec(seeded);
      run = lease::run_lease(w, rec);
      start = rec.recorded();
    } else {
      ListDecisions d(s.decisions);
      run = lease::run_lease(w, d);
    }
    out.runs = 1;
    if (const Violation* v = find_violation(run, property)) found = *v;
  }
  if (!found) return out;
  s.seed.reset();
  const auto fails = [&](const std::vector<std::uint32_t>& list) {
    ++out.runs;
    LeaseScenario t = s;
    t.decisions = list;
    const lease::LeaseRun run = run_with(t, /*keep_trace=*/false);
    if (const Violation* v = find_violation(run, property)) {
      found = *v;
      return true;
    }
    return false;
  };
  // `found` is now the violation of the list kept: of shrink_list's last
  // `true` call, or, if none came, of the start (its trimmed list replays
  // the same run).
  s.decisions = shrink_list(start, fails, max_runs - 1).decisions;
  s.expect_violation = property;
  out.scenario = std::move(s);
  out.violation = *found;
  out.reproduced = true;
  return out;
}

}  // namespace zksim::scenarios
