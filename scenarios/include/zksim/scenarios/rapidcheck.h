// rapidcheck over a recipe: the workload, the fault class and the decision
// list generated, so rapidcheck shrinks the schedule itself; a failing case
// is written as a scenario file and its replay command printed.
// Header-only: link rapidcheck yourself.
//
//   TEST(MyLock, HoldsEveryProperty) {
//     EXPECT_TRUE(zksim::scenarios::rc_check("my/lock", 1000, [] {
//       zksim::scenarios::holds_every_property("my/lock", "failures");
//     }));
//   }
#pragma once

#include "zksim/scenarios/campaign.h"
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/scenario.h"

#include <fmt/format.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace zksim::scenarios {

// A generated scenario of `recipe`, drawn from what the default search
// draws (search.h: fault classes and their rate, servers, client
// libraries, hold, varied workloads, reentrancy and timeouts), each
// dimension generated from the same choices with the most boring first,
// so rapidcheck shrinks toward it; the decision list is generated too, and
// shrunk with the rest.
inline Scenario generated(const std::string& recipe) {
  Scenario s;
  s.workload.recipe = recipe;
  s.workload.clients = *rc::gen::inRange(1, 7);
  s.workload.rounds = *rc::gen::inRange(1, 6);
  s.workload.hold_ms = *rc::gen::elementOf(std::vector<TimeMs>(std::begin(kSearchHolds), std::end(kSearchHolds)));
  s.workload.timeout_ms = *rc::gen::element<TimeMs>(-1, 0, 10, 250, 5000);
  s.workload.reentrant = recipe_is_reentrant(recipe) && *rc::gen::arbitrary<bool>();
  // Varied sequences draw their shapes from the decision list, which
  // rapidcheck shrinks with the schedule.
  s.workload.varied = *rc::gen::arbitrary<bool>();
  s.workload.leases = *rc::gen::inRange(1, 4);
  s.workload.flavours = *rc::gen::elementOf(std::vector<std::vector<Flavour>>{
      {Flavour::C}, {Flavour::Curator}, {Flavour::Kazoo}, {Flavour::C, Flavour::Curator, Flavour::Kazoo}});
  std::vector<int> classes;
  for (int k : default_search().faults) {
    if (*rc::gen::arbitrary<bool>()) classes.push_back(k);
  }
  const std::uint32_t rate =
      *rc::gen::elementOf(std::vector<std::uint32_t>(std::begin(kSearchRates), std::end(kSearchRates)));
  const WorldConfig nemesis = nemesis_config(classes, rate);
  s.config.nemesis = nemesis.nemesis;
  s.config.servers = nemesis.servers > 1 || *rc::gen::arbitrary<bool>() ? kSearchServers : 1;
  s.decisions = *rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, 1000));
  // Queues: at least one consumer when there are two clients or more.
  const Recipe* r = find_recipe(recipe);
  const bool queue = r && (r->family == RecipeFamily::Queue || r->family == RecipeFamily::LockingQueue);
  if (queue) s.workload.producers = *rc::gen::inRange(1, std::max(2, s.workload.clients));
  return s;
}

// Writes a failing case to `dir`/<recipe>.scn, expecting `v`; the path.
inline std::string write_failure(const Scenario& s, const Violation& v, const std::string& dir) {
  std::filesystem::create_directories(dir);
  Scenario out = s;
  out.expect_violation = v.property;
  out.comments = {fmt::format("Found by a property and shrunk: {}", v.message)};
  std::string name = s.workload.recipe;
  std::replace(name.begin(), name.end(), '/', '-');
  const std::string path = fmt::format("{}/{}.scn", dir, name);
  std::ofstream(path) << write_scenario(out);
  return path;
}

// One generated case of `recipe` must hold `property` (or, when empty,
// every property its runs check); a failing case is written to
// `failures_dir` (each shrinking step overwrites it: the last is the
// smallest) and fails with the command that replays it.
inline void holds(const std::string& recipe, const std::string& property, const std::string& failures_dir) {
  Scenario s = generated(recipe);
  ScenarioRun r = run_scenario(s);
  for (const Violation& v : r.result.violations) {
    if (!property.empty() && v.property != property) continue;
    const std::string path = write_failure(s, v, failures_dir);
    RC_FAIL(fmt::format("{}: {} (replay: zksim replay {})", v.property, v.message, path));
  }
}
inline void holds_every_property(const std::string& recipe, const std::string& failures_dir) {
  holds(recipe, "", failures_dir);
}

// rapidcheck with a fixed seed, so CI runs the same cases every time
// (ZKSIM_RC_SEED picks another), and `runs` cases.
inline rc::detail::TestParams rc_params(int runs) {
  rc::detail::TestParams p;
  const char* seed = std::getenv("ZKSIM_RC_SEED");
  p.seed = seed ? std::strtoull(seed, nullptr, 10) : 20261121;
  p.maxSuccess = runs;
  p.maxSize = 200;
  return p;
}

// Runs `property` for `runs` cases; false (with rapidcheck's report, the
// shrunk case, on stderr) if a case failed.
template <class F>
bool rc_check(const std::string& name, int runs, F property) {
  auto result = rc::detail::checkTestable(property, rc::detail::TestMetadata{name, name}, rc_params(runs));
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    rc::detail::printResultMessage(result, std::cerr);
    return false;
  }
  return true;
}

}  // namespace zksim::scenarios
