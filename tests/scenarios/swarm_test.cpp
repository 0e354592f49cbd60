// Swarm runs (Workload::swarm): each run draws which fault classes stay on
// and which workload features it adds, from its own decisions, so a swarm
// run replays like any other.
#include "zksim/scenarios/scenario.h"

#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

WorldConfig every_class(std::uint32_t per_mille) {
  WorldConfig c;
  for (std::uint32_t& r : c.nemesis.per_mille) r = per_mille;
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

TEST(Swarm, DecisionZeroTurnsEveryClassOffAndAddsNoFeature) {
  Workload w{.recipe = "lock", .swarm = true};
  ListDecisions zeros({});
  SwarmDraw d = swarm_draw(w, every_class(30), zeros);
  EXPECT_FALSE(d.config.nemesis.any());
  EXPECT_FALSE(d.workload.reentrant);
  EXPECT_EQ(d.workload.timeout_ms, w.timeout_ms);
  EXPECT_EQ(d.workload.hold_ms, w.hold_ms);
  EXPECT_FALSE(d.workload.varied);
  EXPECT_EQ(d.summary, "faults none");
}

TEST(Swarm, OtherDecisionsKeepClassesOnAndAddFeatures) {
  Workload w{.recipe = "lock", .swarm = true};
  ListDecisions ones(std::vector<std::uint32_t>(kFaultClasses + 6, 1));  // the classes, then the features
  SwarmDraw d = swarm_draw(w, every_class(30), ones);
  for (int k = 0; k < kFaultClasses; ++k) EXPECT_EQ(d.config.nemesis.per_mille[k], 30u) << fault_class_name(k);
  EXPECT_TRUE(d.workload.reentrant);
  EXPECT_EQ(d.workload.timeout_ms, 10);  // timeouts drawn from 0, 10, 250, 5000 ms
  EXPECT_EQ(d.workload.hold_ms, 3000);   // longer than the session
  EXPECT_TRUE(d.workload.varied);
  EXPECT_EQ(d.workload.flavours, kDrawnFlavours[0]);
  EXPECT_NE(d.summary.find("reentrant"), std::string::npos) << d.summary;
  EXPECT_NE(d.summary.find("varied"), std::string::npos) << d.summary;
}

TEST(Swarm, ARunMayDrawItsClientLibraries) {
  Workload w{.recipe = "lock", .flavours = {Flavour::C}, .swarm = true};
  ListDecisions zeros({});
  EXPECT_EQ(swarm_draw(w, every_class(30), zeros).workload.flavours, w.flavours);
  for (std::uint32_t f = 1; f <= std::size(kDrawnFlavours); ++f) {
    std::vector<std::uint32_t> picks(kFaultClasses + 5, 0);
    picks[kFaultClasses + 4] = f;  // after the classes, reentrancy, timeouts, holds and varied
    ListDecisions list(picks);
    SwarmDraw d = swarm_draw(w, every_class(30), list);
    EXPECT_EQ(d.workload.flavours, kDrawnFlavours[f - 1]) << f;
    EXPECT_NE(d.summary.find("; clients " + flavours_text(d.workload.flavours, ",")), std::string::npos)
        << d.summary;
  }
}

// `client any` (Workload::draw_flavours): each run draws its clients'
// libraries as a swarm run does, decision 0 keeping the workload's.
TEST(DrawnLibraries, EachRunDrawsItsClientsLibrariesAndDecisionZeroKeepsThem) {
  Workload w{.recipe = "lock", .flavours = {Flavour::C}, .draw_flavours = true};
  Workload kept = w;
  ListDecisions zeros({});
  EXPECT_EQ(draw_flavours(kept, zeros), "c");
  EXPECT_EQ(kept.flavours, w.flavours);
  for (std::uint32_t f = 1; f <= std::size(kDrawnFlavours); ++f) {
    Workload drawn = w;
    ListDecisions list({f});
    EXPECT_EQ(draw_flavours(drawn, list), flavours_text(kDrawnFlavours[f - 1], ","));
    EXPECT_EQ(drawn.flavours, kDrawnFlavours[f - 1]) << f;
  }
}

TEST(DrawnLibraries, ARunShowsItsDrawAndReplaysIt) {
  Workload w{.recipe = "lock", .clients = 3, .rounds = 2, .draw_flavours = true};
  for (std::uint32_t f = 0; f <= std::size(kDrawnFlavours); ++f) {
    ListDecisions a({f}), b({f});
    RunResult x = run(w, a, {}, {}), y = run(w, b, {}, {});
    EXPECT_EQ(x.trace_hash, y.trace_hash);
    ASSERT_FALSE(x.trace.empty());
    const std::string expected = f == 0 ? "c" : flavours_text(kDrawnFlavours[f - 1], ",");
    EXPECT_EQ(x.trace.front().detail, "clients drawn: " + expected);
    EXPECT_TRUE(x.violations.empty()) << x.violations.front().message;
  }
}

TEST(Swarm, OnlyClassesTheConfigHasCanBeOn) {
  WorldConfig c;
  c.nemesis.per_mille[static_cast<int>(FaultKind::Pause)] = 40;
  ListDecisions ones(std::vector<std::uint32_t>(kFaultClasses + 6, 1));  // the classes, then the features
  SwarmDraw d = swarm_draw(Workload{.recipe = "lock", .swarm = true}, c, ones);
  for (int k = 0; k < kFaultClasses; ++k) {
    EXPECT_EQ(d.config.nemesis.per_mille[k], k == static_cast<int>(FaultKind::Pause) ? 40u : 0u);
  }
}

TEST(Swarm, ARecipeThatIsNotReentrantIsNeverMadeToReenter) {
  for (const std::string& r : recipe_names()) {
    ListDecisions ones(std::vector<std::uint32_t>(kFaultClasses + 6, 1));  // the classes, then the features
    SwarmDraw d = swarm_draw(Workload{.recipe = r, .swarm = true}, every_class(30), ones);
    EXPECT_EQ(d.workload.reentrant, recipe_is_reentrant(r)) << r;
  }
  EXPECT_TRUE(recipe_is_reentrant("lock"));
  EXPECT_FALSE(recipe_is_reentrant("flawed/herd-lock"));
}

TEST(Swarm, ASwarmRunReplaysFromItsRecordedDecisions) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Workload w{.recipe = "lock", .clients = 3, .rounds = 3, .swarm = true};
    SeededDecisions seeded(seed);
    RecordingDecisions recording(seeded);
    RunResult first = run(w, recording, {}, every_class(30));
    ListDecisions replay(recording.recorded());
    RunResult again = run(w, replay, {}, every_class(30));
    EXPECT_EQ(first.trace_hash, again.trace_hash) << "seed " << seed;
    EXPECT_EQ(first.swarm, again.swarm);
    ASSERT_FALSE(first.trace.empty());
    EXPECT_EQ(first.trace.front().detail, "swarm: " + first.swarm);  // the timeline shows the draw
  }
}

TEST(Swarm, TheSwarmDirectiveIsReadAndWritten) {
  ParseError e;
  auto s = parse_scenario("zksim-scenario 1\nrecipe lock\nswarm yes\nnemesis burst 30\nexpect pass\n", "s.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_TRUE(s->workload.swarm);
  EXPECT_NE(write_scenario(*s).find("swarm yes\n"), std::string::npos);
  auto plain = parse_scenario("zksim-scenario 1\nrecipe lock\nexpect pass\n", "p.scn", &e);
  ASSERT_TRUE(plain);
  EXPECT_EQ(write_scenario(*plain).find("swarm"), std::string::npos);
}

}  // namespace
}  // namespace zksim::scenarios
