// Search strategies (strategy.h): their names, the world each runs, and the
// depth-first search's schedules, which replay from their recorded lists.
#include "zksim/scenarios/strategy.h"

#include "zksim/scenarios/workload.h"

#include <gtest/gtest.h>

#include <set>

namespace zksim::scenarios {
namespace {

// Counts the decisions a run draws (every choice 0).
class CountingDecisions final : public DecisionSource {
 public:
  std::uint32_t choose(std::uint32_t) override {
    ++count;
    return 0;
  }
  int count = 0;
};

TEST(Strategy, EveryStrategyIsFoundByItsNameAndNothingElseIs) {
  ASSERT_EQ(strategy_names(), (std::vector<std::string>{"random", "fixed-latency", "dfs", "pct"}));
  for (const std::string& name : strategy_names()) {
    const std::optional<Strategy> s = strategy_named(name);
    ASSERT_TRUE(s) << name;
    EXPECT_EQ(strategy_name(*s), name);
    EXPECT_FALSE(strategy_summary(*s).empty());
  }
  EXPECT_FALSE(strategy_named("bfs"));
  EXPECT_FALSE(strategy_named(""));
}

// One client, no faults, no getChildren with two children: the only
// decisions are message delays.
TEST(Strategy, FixedLatencyDrawsNoDelays) {
  const Workload one{.recipe = "lock", .clients = 1, .rounds = 3};
  CountingDecisions random, fixed;
  run(one, random, {}, strategy_config(Strategy::Random, WorldConfig{}));
  run(one, fixed, {}, strategy_config(Strategy::FixedLatency, WorldConfig{}));
  EXPECT_GT(random.count, 0);
  EXPECT_EQ(fixed.count, 0);
  // Faults are still drawn: one decision per request.
  WorldConfig faulty;
  faulty.nemesis.per_mille[static_cast<int>(FaultKind::Pause)] = 30;
  CountingDecisions nemesis;
  run(one, nemesis, {}, strategy_config(Strategy::FixedLatency, faulty));
  EXPECT_GT(nemesis.count, 0);
}

// With a nemesis a search's depth goes to where faults strike, not to the
// delays of the first few messages; without one, to the delays.
TEST(Strategy, DfsHoldsLatencyFixedUnderANemesisOnly) {
  EXPECT_EQ(strategy_config(Strategy::Dfs, WorldConfig{}).delay_choices, WorldConfig{}.delay_choices);
  WorldConfig faulty;
  faulty.nemesis.per_mille[static_cast<int>(FaultKind::DropAfterApply)] = 50;
  EXPECT_EQ(strategy_config(Strategy::Dfs, faulty).delay_choices, 1u);
  EXPECT_EQ(strategy_config(Strategy::Random, faulty).delay_choices, faulty.delay_choices);
}

TEST(Strategy, DfsTriesNoFaultAndEachFaultClassOnceAtANemesisDecision) {
  NemesisRates rates;
  rates.per_mille[static_cast<int>(FaultKind::DropAfterApply)] = 50;
  rates.per_mille[static_cast<int>(FaultKind::Pause)] = 30;
  DfsSchedules dfs(/*depth=*/4, rates);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;  // (nemesis choice, delay)
  do {
    const std::uint32_t nemesis = dfs.pick(kNemesisChoices);
    seen.emplace_back(nemesis, dfs.pick(3));
  } while (dfs.advance());
  const std::uint32_t drop = *rates.choice_for(FaultKind::DropAfterApply), pause = *rates.choice_for(FaultKind::Pause);
  EXPECT_EQ(seen, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                      {0, 0}, {0, 1}, {0, 2}, {drop, 0}, {drop, 1}, {drop, 2}, {pause, 0}, {pause, 1}, {pause, 2}}));
  EXPECT_EQ(dfs.schedule(), 8u);
}

TEST(Strategy, DfsWithoutANemesisPassesEveryChoiceThrough) {
  DfsSchedules dfs(/*depth=*/2, NemesisRates{});
  std::set<std::uint32_t> firsts;
  do {
    firsts.insert(dfs.pick(kNemesisChoices));  // a getChildren order of 1000 names, say
  } while (dfs.advance());
  EXPECT_EQ(firsts.size(), kNemesisChoices);
}

// The search is exhaustive within its depth and every schedule replays
// from the list a RecordingDecisions took of it.
TEST(Strategy, DfsExhaustsASmallSpaceAndEverySchedulesRecordingReplaysIt) {
  const Workload two{.recipe = "lock", .clients = 2, .rounds = 1};
  WorldConfig cfg;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropAfterApply)] = 50;
  DfsSchedules dfs(/*depth=*/5, cfg.nemesis);
  std::set<std::vector<std::uint32_t>> lists;
  int schedules = 0;
  do {
    RecordingDecisions recording(dfs);
    const RunResult found = run(two, recording, {}, cfg);
    lists.insert(recording.recorded());
    ListDecisions replay(recording.recorded());
    EXPECT_EQ(run(two, replay, {}, cfg).trace_hash, found.trace_hash) << "schedule " << dfs.schedule();
    ++schedules;
    ASSERT_LT(schedules, 10'000);
  } while (dfs.advance());
  EXPECT_EQ(static_cast<std::size_t>(schedules), lists.size()) << "every schedule is a different run";
  EXPECT_EQ(dfs.schedule() + 1, static_cast<std::uint64_t>(schedules));
  EXPECT_GT(schedules, 1);
}

// A client's scheduling choices are its rank among the priorities of the
// clients scheduled so far: without change points, once all are seen, the
// same client always gets the same one, and no two share a rank.
TEST(Pct, AClientsChoicesAreItsRankAmongThePriorities) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PctDecisions pct(seed, 1);
    for (int actor : {10, 11, 12}) pct.pick_for(3, actor);  // each seen: ranks among all three from now on
    const std::uint32_t a = pct.pick_for(3, 10), b = pct.pick_for(3, 11), c = pct.pick_for(3, 12);
    EXPECT_EQ((std::set<std::uint32_t>{a, b, c}), (std::set<std::uint32_t>{0, 1, 2})) << seed;
    for (int i = 0; i < 50; ++i) {
      EXPECT_EQ(pct.pick_for(3, 10), a);
      EXPECT_EQ(pct.pick_for(3, 11), b);
      EXPECT_EQ(pct.pick_for(2, 12), std::min<std::uint32_t>(c, 1));  // capped at the range
    }
  }
}

// With one change point among the first scheduling choice, the first client
// scheduled drops below every other.
TEST(Pct, AChangePointDropsTheClientScheduledThereToTheBottom) {
  PctDecisions pct(7, 2, 1);
  EXPECT_EQ(pct.pick_for(3, 10), 0u);  // alone: the top, whatever its priority
  EXPECT_EQ(pct.pick_for(3, 11), 0u);  // above the dropped one
  EXPECT_LE(pct.pick_for(3, 12), 1u);
  EXPECT_EQ(pct.pick_for(3, 10), 2u);
}

// Plain decisions (faults, orders) are drawn from the seed as a random run draws them.
TEST(Pct, OtherDecisionsAreTheSeedsOwn) {
  PctDecisions pct(5, 3);
  SeededDecisions seeded(5);
  // The change points are drawn first (depth - 1 of them), then plain picks follow the seed's stream.
  seeded.next_u64();
  seeded.next_u64();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(pct.pick(1000), seeded.pick(1000));
}

TEST(Pct, ARunReplaysFromItsRecordedDecisions) {
  const Workload w{.recipe = "lock", .clients = 3, .rounds = 3, .flavours = {Flavour::Curator}};
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    PctDecisions pct(seed, kDefaultPctDepth);
    RecordingDecisions recording(pct);
    const RunResult first = run(w, recording, {}, WorldConfig{});
    ListDecisions replay(recording.recorded());
    const RunResult again = run(w, replay, {}, WorldConfig{});
    EXPECT_EQ(first.trace_hash, again.trace_hash) << seed;
    EXPECT_TRUE(first.violations.empty()) << seed << ": " << first.violations.front().message;
  }
}

// The strategies' seeded sources: pct's own, the plain seeded one for the others.
TEST(Pct, SeededRunsOfPctDifferFromRandomRuns) {
  const Workload w{.recipe = "lock", .clients = 3, .rounds = 3};
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto random = seeded_decisions(Strategy::Random, seed, kDefaultPctDepth);
    const auto pct = seeded_decisions(Strategy::Pct, seed, kDefaultPctDepth);
    differ += run(w, *random, {}, WorldConfig{}).trace_hash != run(w, *pct, {}, WorldConfig{}).trace_hash;
  }
  EXPECT_EQ(differ, 10);
}

}  // namespace
}  // namespace zksim::scenarios
