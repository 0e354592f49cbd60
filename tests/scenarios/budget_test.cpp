// Run budgets: a run is sized from its workload, so a correct recipe is
// never cut short into what reads as a violation, whatever option values it
// was given; a run that does not end within its budget is a `runaway`,
// stopped and reported, never a crash, a hang or memory without end.
#include "properties.h"
#include "smoke.h"

#include <algorithm>

namespace zksim::scenarios {
namespace {

std::string describe(const RunResult& r) {
  std::string out;
  for (const Violation& v : r.violations) out += fmt::format("  {}: {}\n", v.property, v.message);
  return out;
}

WorldConfig nemesis(int kind, std::uint32_t per_mille) {
  WorldConfig c;
  c.nemesis.per_mille[kind] = per_mille;
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

const std::vector<std::string> kCorrect{"lock", "rw-lock", "semaphore", "election", "queue",
                                        "locking-queue", "barrier", "double-barrier"};

TEST(Budget, GrowsWithHoldTimesClientsAndRounds) {
  const Workload small{.recipe = "lock", .clients = 4, .rounds = 4};
  Workload hold = small, crowd = small;
  hold.hold_ms = 3'600'000;
  crowd.clients = 40;
  crowd.rounds = 40;
  const RunBudget b = budget_of(small, {}), bh = budget_of(hold, {}), bc = budget_of(crowd, {});
  // Every client's every hold, one after another, fits the fault phase.
  EXPECT_GE(bh.fault_phase_ms, 4 * 4 * hold.hold_ms);
  EXPECT_GE(bh.settle_ms, bh.fault_phase_ms);
  // Waiting costs time, and time only the periodic steps (the container
  // reaper's round each second).
  EXPECT_LE(bh.steps - b.steps, 2 * static_cast<std::uint64_t>(bh.fault_phase_ms + bh.settle_ms) / 1000);
  EXPECT_GT(bc.steps, 100 * b.steps / 10);
  EXPECT_GT(bc.fault_phase_ms, b.fault_phase_ms);
}

TEST(Budget, LongHoldsAreNotCutShortIntoViolations) {
  // The newcomer's report: --hold-ms 60000 read as liveness and leaks.
  for (int kind : {-1, 0, 1, 2, 3, 4, 5}) {
    const WorldConfig c = kind < 0 ? WorldConfig{} : nemesis(kind, 30);
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      Workload w{.recipe = "lock", .clients = 4, .rounds = 4, .hold_ms = 60'000};
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, c);
      EXPECT_TRUE(r.violations.empty()) << "fault class " << kind << " seed " << seed << ":\n" << describe(r);
      if (kind < 0) {
        EXPECT_EQ(r.completed_rounds, 16);
        break;
      }
    }
  }
}

TEST(Budget, ManyRoundsAreNotCutShortIntoViolations) {
  Workload w{.recipe = "lock", .clients = 20, .rounds = 200};
  ASSERT_EQ(workload_problem(w), "");
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  EXPECT_TRUE(r.violations.empty()) << describe(r);
  EXPECT_EQ(r.completed_rounds, 20 * 200);
}

TEST(Budget, AWorkloadTooLargeForOneRunIsRefusedWithAReason) {
  Workload w{.recipe = "lock", .clients = 100, .rounds = 10'000};
  const std::string why = workload_problem(w);
  EXPECT_NE(why.find("too much for one run"), std::string::npos) << why;
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].property, "bad-workload");
  EXPECT_EQ(r.violations[0].message, why);
}

TEST(Budget, ARunThatNeverEndsIsARunawayNotALivenessViolation) {
  // The stubborn unlock retries a delete whose reply was lost, forever.
  Workload w{.recipe = "flawed/stubborn-unlock-lock", .clients = 2, .rounds = 2};
  ScriptedFault lost;
  lost.kind = FaultKind::DropAfterApply;
  lost.client = 0;
  lost.on = RequestMatch{request_kind<DeleteRequest>, ""};
  SeededDecisions d(1);
  RunResult r = run(w, d, {lost});
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.back().property, "runaway") << describe(r);
  // It names who was still in a call: c0, releasing.
  EXPECT_EQ(r.violations.back().clients, (std::vector<int>{0}));
  EXPECT_NE(r.violations.back().message.find("c0 in release since"), std::string::npos) << describe(r);
  for (const Violation& v : r.violations) {
    EXPECT_NE(v.property, "liveness");  // a run cut short says nothing of liveness
    EXPECT_NE(v.property, "no-leaks");
  }
  EXPECT_LE(r.trace_events, 4 * budget_of(w, {}).steps);  // memory stays bounded
}

TEST(Budget, ARunawayStoppedOnAnExpiredHandleIsReportedToo) {
  // Once its session expired, the stubborn unlock's deletes are refused at
  // once, without an event: the world's step limit stops that loop as well.
  Workload w{.recipe = "flawed/stubborn-unlock-lock", .clients = 1, .rounds = 1, .hold_ms = 6000};
  ScriptedFault expire;
  expire.kind = FaultKind::ExpireSession;
  expire.client = 0;
  expire.at = 1000;
  SeededDecisions d(1);
  RunResult r = run(w, d, {expire});
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.back().property, "runaway") << describe(r);
}

// Every option value the command line and scenario files accept, drawn
// across its whole range (sizes log-uniformly, so large ones come up too):
// a correct recipe's run is either refused up front with a reason, or ends
// with every property holding.
TEST(Budget, EveryAcceptedWorkloadOfACorrectRecipeHoldsOrIsRefused) {
  constexpr int kCases = test::full_or_smoke(400, 10);
  // A power of two up to `hi`, then a value below it: small values often,
  // every value in [lo, hi] possible.
  const auto log_uniform = [](std::int64_t lo, std::int64_t hi) {
    int bits = 0;
    while ((std::int64_t{1} << bits) < hi) ++bits;
    const std::int64_t top = std::min<std::int64_t>(hi, std::int64_t{1} << *rc::gen::inRange(0, bits + 1));
    return std::max<std::int64_t>(lo, *rc::gen::inRange<std::int64_t>(top / 2, top + 1));
  };
  int ran = 0, refused = 0;
  std::size_t most_events = 0;
  EXPECT_TRUE(rc_check("every accepted workload holds or is refused", kCases, [&] {
    Workload w;
    w.recipe = *rc::gen::elementOf(kCorrect);
    w.clients = static_cast<int>(log_uniform(1, 100));
    w.rounds = static_cast<int>(log_uniform(1, 10'000));
    w.hold_ms = log_uniform(0, 3'600'000);
    w.think_ms = log_uniform(0, 3'600'000);
    w.timeout_ms = *rc::gen::arbitrary<bool>() ? -1 : log_uniform(0, 3'600'000);
    w.reentrant = *rc::gen::arbitrary<bool>();
    w.varied = *rc::gen::arbitrary<bool>();
    w.leases = static_cast<int>(log_uniform(1, w.clients));
    w.producers = static_cast<int>(log_uniform(1, std::max(1, w.clients - 1)));
    const int kind = *rc::gen::inRange(-1, kFaultClasses);
    const WorldConfig c = kind < 0 ? WorldConfig{} : nemesis(kind, static_cast<std::uint32_t>(log_uniform(1, 1000)));
    const std::string why = workload_problem(w, c);
    if (!why.empty()) {
      RC_ASSERT(why.find("too much for one run") != std::string::npos);
      ++refused;
      return;
    }
    SeededDecisions d(*rc::gen::arbitrary<std::uint64_t>());
    RunResult r = run(w, d, {}, c);
    ++ran;
    most_events = std::max(most_events, r.trace_events);
    if (!r.violations.empty()) {
      RC_FAIL(fmt::format("{}{}: {} clients, {} rounds, hold {}, think {}, timeout {}, fault class {} at {}:\n{}",
                          w.recipe, w.varied ? " (varied)" : "", w.clients, w.rounds, w.hold_ms, w.think_ms, w.timeout_ms, kind,
                          kind < 0 ? 0 : c.nemesis.per_mille[kind], describe(r)));
    }
  }));
  fmt::print("{} workloads ran (the largest: {} trace events), {} refused as too large\n", ran, most_events, refused);
  EXPECT_GT(ran, kCases / 2);  // the draw reaches runs, not only refusals
}

}  // namespace
}  // namespace zksim::scenarios
