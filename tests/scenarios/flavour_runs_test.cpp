// Every correct recipe holds every property with every client flavour,
// under every fault class; every flawed recipe a flavour exposes is caught
// with it; and a run replays byte for byte with every flavour.
#include "zksim/scenarios/workload.h"
#include "smoke.h"

#include <gtest/gtest.h>

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace zksim::scenarios {
namespace {

// Seeded runs per fault class (and without faults).
constexpr std::uint64_t kRuns = test::full_or_smoke<std::uint64_t>(500, 10);

// The nemesis of one class at 30/1000, with holds long enough for it to
// matter: a pause outlasts the session; time-triggered faults come once a
// second, so the run lasts seconds.
Workload workload_for(const std::string& recipe, Flavour f, int fault_class) {
  Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .flavours = {f}};
  if (fault_class == static_cast<int>(FaultKind::Pause)) w.hold_ms = 600;
  if (is_timed_class(fault_class)) w.hold_ms = 300;
  return w;
}

WorldConfig config_for(int fault_class) {
  WorldConfig c;
  if (fault_class < 0) return c;
  if (is_ensemble_class(fault_class)) c.servers = 3;
  c.nemesis.per_mille[fault_class] = 30;
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

struct Case {
  Flavour flavour;
  std::string recipe;
};

void PrintTo(const Case& c, std::ostream* os) { *os << flavour_name(c.flavour) << " " << c.recipe; }

class FlavourRuns : public testing::TestWithParam<Case> {};

TEST_P(FlavourRuns, CorrectRecipeHoldsEveryPropertyUnderEveryFaultClass) {
  const Case& c = GetParam();
  for (int k = -1; k < kFaultClasses; ++k) {
    const Workload w = workload_for(c.recipe, c.flavour, k);
    for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
      SeededDecisions d(seed);
      const RunResult r = run(w, d, {}, config_for(k));
      ASSERT_TRUE(r.violations.empty())
          << c.recipe << " with " << flavour_name(c.flavour) << " clients, fault class "
          << (k < 0 ? "none" : fault_class_name(k)) << ", seed " << seed << ": " << r.violations.front().property
          << ": " << r.violations.front().message;
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int f = 0; f < kFlavours; ++f) {
    for (const std::string& r : recipe_names()) {
      if (!recipe_is_flawed(r)) out.push_back(Case{static_cast<Flavour>(f), r});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryFlavour, FlavourRuns, testing::ValuesIn(cases()), [](const auto& info) {
  std::string name = std::string(flavour_name(info.param.flavour)) + "_" + info.param.recipe;
  for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
});

// The first seed that shows `f`'s flaw with `flavour`, or 0.
std::uint64_t first_catch(const FlawedRecipe& f, Flavour flavour, std::uint64_t seeds) {
  const Workload w{.recipe = f.recipe, .clients = 4, .rounds = 4, .hold_ms = f.hold_ms, .flavours = {flavour},
                   .varied = f.varied};
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededDecisions d(seed);
    for (const Violation& v : run(w, d, {}, f.config()).violations) {
      if (v.property == f.property) return seed;
    }
  }
  return 0;
}

const FlawedRecipe& flaw(const std::string& recipe) {
  for (const FlawedRecipe& f : flawed_recipes()) {
    if (f.recipe == recipe) return f;
  }
  throw std::logic_error(recipe);
}

TEST(FlavourFlaws, StaleNodeElectionIsCaughtWithCuratorClients) {
  EXPECT_NE(first_catch(flaw("flawed/stale-node-election"), Flavour::Curator, 200), 0u);
}

TEST(FlavourFlaws, NodeEventsOnlyLockIsCaughtWithKazooClientsAndHoldsWithTheOthers) {
  const FlawedRecipe& f = flaw("flawed/node-events-only-lock");
  EXPECT_NE(first_catch(f, Flavour::Kazoo, 200), 0u);
  EXPECT_EQ(first_catch(f, Flavour::C, kRuns), 0u);
  EXPECT_EQ(first_catch(f, Flavour::Curator, kRuns), 0u);
}

TEST(FlavourFlaws, SessionEventBarrierIsCaughtWithCuratorClients) {
  EXPECT_NE(first_catch(flaw("flawed/session-event-barrier"), Flavour::Curator, 200), 0u);
}

// The lost notifyAll needs the caller's thread to lag behind the event
// thread, which only the Curator and kazoo flavours do.
TEST(FlavourFlaws, UnsynchronizedWaitLockIsCaughtWithCallerThreadsAndHoldsWithTheCClient) {
  const FlawedRecipe& f = flaw("flawed/unsynchronized-wait-lock");
  EXPECT_NE(first_catch(f, Flavour::Curator, 300), 0u);
  EXPECT_NE(first_catch(f, Flavour::Kazoo, 300), 0u);
  EXPECT_EQ(first_catch(f, Flavour::C, kRuns), 0u);
}

TEST(FlavourDeterminism, EveryFlavourReplaysByteForByte) {
  for (int f = 0; f < kFlavours; ++f) {
    const Workload w = workload_for("lock", static_cast<Flavour>(f), static_cast<int>(TimedFault::BlipAll));
    SeededDecisions a(7), b(7);
    const RunResult first = run(w, a, {}, config_for(static_cast<int>(TimedFault::BlipAll)));
    const RunResult second = run(w, b, {}, config_for(static_cast<int>(TimedFault::BlipAll)));
    EXPECT_EQ(first.trace_hash, second.trace_hash) << flavour_name(static_cast<Flavour>(f));
    EXPECT_EQ(first.trace_events, second.trace_events);
  }
}

TEST(FlavourDeterminism, FlavoursMakeDifferentRuns) {
  const Workload c = workload_for("lock", Flavour::C, static_cast<int>(TimedFault::BlipAll));
  const Workload curator = workload_for("lock", Flavour::Curator, static_cast<int>(TimedFault::BlipAll));
  SeededDecisions a(7), b(7);
  EXPECT_NE(run(c, a, {}, config_for(static_cast<int>(TimedFault::BlipAll))).trace_hash,
            run(curator, b, {}, config_for(static_cast<int>(TimedFault::BlipAll))).trace_hash);
}

}  // namespace
}  // namespace zksim::scenarios
