// Shared by the property tests: rapidcheck with a fixed seed, generated
// scenarios, and writing a failing one down.
#pragma once
#include "zksim/scenarios/scenario.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <fstream>

namespace zksim::scenarios {

// The scenario rapidcheck generated: a workload (varied or not) and a
// fault class for the nemesis; the decision list is generated separately.
inline Scenario generated(const std::string& recipe) {
  Scenario s;
  s.workload.recipe = recipe;
  s.workload.clients = *rc::gen::inRange(1, 7);
  s.workload.rounds = *rc::gen::inRange(1, 6);
  s.workload.hold_ms = *rc::gen::element<TimeMs>(5, 600);
  s.workload.timeout_ms = *rc::gen::element<TimeMs>(-1, 5000);
  s.workload.reentrant = *rc::gen::arbitrary<bool>();
  // Varied sequences draw their shapes from the decision list, which
  // rapidcheck shrinks with the schedule.
  s.workload.varied = *rc::gen::arbitrary<bool>();
  s.workload.leases = *rc::gen::inRange(1, 4);
  int kind = *rc::gen::inRange(0, kFaultKinds);
  s.config.nemesis.per_mille[kind] = *rc::gen::inRange<std::uint32_t>(0, 80);
  s.config.nemesis.pause_ms = 3000;
  s.config.nemesis.delay_ms = 50;
  s.decisions = *rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, 1000));
  // Queues: at least one consumer when there are two clients or more.
  if (recipe.ends_with("queue")) s.workload.producers = *rc::gen::inRange(1, std::max(2, s.workload.clients));
  return s;
}

inline void write_failure(const Scenario& s, const Violation& v) {
  std::filesystem::create_directories(ZKSIM_FAILURES_DIR);
  Scenario out = s;
  out.expect_violation = v.property;
  out.comments = {fmt::format("Found by a property and shrunk: {}", v.message)};
  std::string name = s.workload.recipe;
  std::replace(name.begin(), name.end(), '/', '-');
  std::ofstream(fmt::format("{}/{}.scn", ZKSIM_FAILURES_DIR, name)) << write_scenario(out);
}

inline void holds_every_property(const std::string& recipe) {
  Scenario s = generated(recipe);
  ScenarioRun r = run_scenario(s);
  if (!r.result.violations.empty()) {
    write_failure(s, r.result.violations.front());
    RC_FAIL(fmt::format("{}: {} (scenario written to {}/)", r.result.violations.front().property,
                        r.result.violations.front().message, ZKSIM_FAILURES_DIR));
  }
}

// rapidcheck with a fixed seed, so CI runs the same cases every time
// (ZKSIM_RC_SEED picks another), and `runs` cases.
inline rc::detail::TestParams params(int runs) {
  rc::detail::TestParams p;
  const char* seed = std::getenv("ZKSIM_RC_SEED");
  p.seed = seed ? std::strtoull(seed, nullptr, 10) : 20261121;
  p.maxSuccess = runs;
  p.maxSize = 200;
  return p;
}

// Runs `property` for `runs` cases; false (with rapidcheck's report on
// stderr) if a case failed.
template <class F>
bool check(const std::string& name, int runs, F property) {
  auto result = rc::detail::checkTestable(property, rc::detail::TestMetadata{name, name}, params(runs));
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    rc::detail::printResultMessage(result, std::cerr);
    return false;
  }
  return true;
}

}  // namespace zksim::scenarios
