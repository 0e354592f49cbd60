// The lease locks under the harness: what holds, what only fencing saves,
// and what each flawed variant breaks.
#include "zksim/lease/harness.h"

#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace zksim::lease {
namespace {

constexpr std::uint64_t kSeeds = test::full_or_smoke<std::uint64_t>(200, 20);

const std::vector<LeaseFault> kAll(std::begin(kLeaseFaults), std::end(kLeaseFaults));

LeaseWorkload workload(const std::string& recipe, std::vector<LeaseFault> faults = {}, int per_mille = 0) {
  return {.recipe = recipe, .faults = std::move(faults), .fault_per_mille = per_mille};
}

// The first seed whose run breaks `property` (0: none in kSeeds), and the
// number of runs with any violation.
std::uint64_t first_breaking(const LeaseWorkload& w, const std::string& property, std::string* why = nullptr) {
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SeededDecisions d(seed);
    const LeaseRun r = run_lease(w, d);
    for (const LeaseViolation& v : r.violations) {
      if (property.empty() || v.property == property) {
        if (why) *why = fmt::format("seed {}: {}: {}", seed, v.property, v.message);
        return seed;
      }
    }
  }
  return 0;
}

std::vector<std::string> correct() {
  std::vector<std::string> out;
  for (const LeaseRecipe& r : lease_recipes()) {
    if (r.breaks.empty()) out.push_back(r.name);
  }
  return out;
}

TEST(LeaseLocks, CorrectLocksHoldEveryPropertyWithoutFaults) {
  for (const std::string& r : correct()) {
    std::string why;
    EXPECT_EQ(first_breaking(workload(r), "", &why), 0u) << r << ": " << why;
  }
}

TEST(LeaseLocks, CorrectLocksKeepBeliefExclusionLeaseKeptAndLivenessUnderEveryFault) {
  for (const std::string& r : correct()) {
    for (const char* property : {"belief-exclusion", "lease-kept", "liveness"}) {
      std::string why;
      EXPECT_EQ(first_breaking(workload(r, kAll, 150), property, &why), 0u) << r << ": " << why;
    }
  }
}

TEST(LeaseLocks, EveryFaultClassStrikes) {
  for (const LeaseFault f : kLeaseFaults) {
    for (const LeaseRecipe& r : lease_recipes()) {
      int faults = 0;
      for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        SeededDecisions d(seed);
        faults += run_lease(workload(r.name, {f}, 150), d).faults;
      }
      EXPECT_GT(faults, 0) << r.name << " " << lease_fault_name(f);
    }
  }
}

TEST(LeaseLocks, FencedLocksKeepResourceExclusionUnderEveryFault) {
  for (const std::string& r : correct()) {
    if (!find_lease_recipe(r)->fenced) continue;
    std::string why;
    EXPECT_EQ(first_breaking(workload(r, kAll, 150), "resource-exclusion", &why), 0u) << r << ": " << why;
  }
}

TEST(LeaseLocks, UnfencedLocksLoseResourceExclusionWhenAHolderOutlivesItsLease) {
  for (const std::string& r : correct()) {
    if (find_lease_recipe(r)->fenced) continue;
    EXPECT_NE(first_breaking(workload(r, {LeaseFault::Pause}, 150), "resource-exclusion"), 0u) << r;
  }
}

TEST(LeaseLocks, EachFlawedLockIsCaughtByThePropertyItBreaks) {
  for (const LeaseRecipe& r : lease_recipes()) {
    if (r.breaks.empty()) continue;
    EXPECT_NE(first_breaking(workload(r.name, kAll, 150), r.breaks), 0u) << r.name;
  }
}

TEST(LeaseLocks, ARunIsItsDecisions) {
  const LeaseWorkload w = workload("etcd-mutex", kAll, 150);
  SeededDecisions seeded(7);
  RecordingDecisions rec(seeded);
  const LeaseRun a = run_lease(w, rec);
  ListDecisions list(rec.recorded());
  const LeaseRun b = run_lease(w, list);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_GT(a.holds, 0);
}

}  // namespace
}  // namespace zksim::lease
