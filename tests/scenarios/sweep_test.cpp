// Seeded sweeps: every correct recipe under every fault class for hundreds
// of seeds. Seeded runs keep the nemesis striking to the end of a run,
// which rapidcheck's finite decision lists (properties_test) do not.
#include "zksim/scenarios/workload.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

constexpr std::uint64_t kSeeds = test::full_or_smoke<std::uint64_t>(500, 8);

class Sweep : public testing::TestWithParam<std::string> {};

TEST_P(Sweep, HoldsEveryPropertyUnderEveryFaultClassForManySeeds) {
  const std::string& recipe = GetParam();
  for (int kind = 0; kind < kFaultClasses; ++kind) {
    WorldConfig c;
    c.nemesis.per_mille[kind] = is_timed_class(kind) ? 300 : 30;  // timed: per simulated second
    c.nemesis.pause_ms = 3000;
    c.nemesis.delay_ms = 50;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      // Short and long holds (a long one outlives a pause's session), and
      // reentrancy, vary with the seed.
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = seed % 3 == 0 ? 600 : 5,
                 .timeout_ms = seed % 2 ? 5000 : -1, .reentrant = seed % 5 == 0};
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, c);
      for (const Violation& v : r.violations) {
        ADD_FAILURE() << fmt::format("{} under {} seed {}: {}: {}", recipe, fault_class_name(kind), seed,
                                     v.property, v.message);
      }
      if (!r.violations.empty()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CorrectRecipes, Sweep, testing::Values("lock", "rw-lock", "semaphore", "election", "queue",
                                         "locking-queue", "barrier", "double-barrier"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace zksim::scenarios
