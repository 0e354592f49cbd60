// The workloads and the runner end to end: correct recipes hold every
// property under every fault class; each flawed recipe is caught by the
// property it breaks.
#include "zksim/scenarios/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

WorldConfig nemesis(FaultKind kind, std::uint32_t per_mille) {
  WorldConfig c;
  c.nemesis.per_mille[static_cast<std::size_t>(kind)] = per_mille;
  c.nemesis.pause_ms = 3000;  // longer than the 2 s sessions: they expire
  c.nemesis.delay_ms = 50;
  return c;
}

std::string describe(const RunResult& r) {
  std::string out;
  for (const Violation& v : r.violations) out += fmt::format("  {}: {}\n", v.property, v.message);
  return out;
}

// Runs `seeds` seeds; returns the first seed with a violation (0 if none).
// Every violation must be of a property the recipe's runs check.
std::uint64_t first_violation(const Workload& w, const WorldConfig& c, std::uint64_t seeds,
                              std::string* what = nullptr) {
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(w, d, {}, c);
    for (const Violation& v : r.violations) {
      EXPECT_TRUE(std::ranges::count(properties_of(w.recipe), v.property))
          << w.recipe << " reported " << v.property << ", which it does not check";
    }
    if (!r.violations.empty()) {
      if (what) *what = describe(r);
      return seed;
    }
  }
  return 0;
}

const FaultKind kAllFaults[] = {FaultKind::DropBeforeApply, FaultKind::DropAfterApply,
                                FaultKind::ExpireSession,   FaultKind::Pause,
                                FaultKind::Crash,           FaultKind::Delay};

const char* const kCorrect[] = {"lock",  "rw-lock",       "semaphore", "election",
                                "queue", "locking-queue", "barrier",   "double-barrier"};

// A campaign's runs keep no trace; their verdicts and hash are those of a
// run that keeps it, and a run that keeps it after them has only its own
// events, though it writes them into storage an earlier trace grew.
TEST(Runner, ARunWithoutItsTraceGivesTheSameVerdictsAndHash) {
  const Workload w{.recipe = "lock", .clients = 4, .rounds = 4};
  const WorldConfig c = nemesis(FaultKind::DropAfterApply, 30);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SeededDecisions a(seed), b(seed);
    RunResult kept = run(w, a, {}, c);
    RunResult bare = run(w, b, {}, c, KeepTrace::No);
    EXPECT_EQ(bare.trace_hash, kept.trace_hash) << "seed " << seed;
    EXPECT_EQ(bare.trace_events, kept.trace_events);
    EXPECT_EQ(kept.trace.size(), kept.trace_events);
    EXPECT_TRUE(bare.trace.empty());
    EXPECT_EQ(describe(bare), describe(kept));
    EXPECT_EQ(bare.probes, kept.probes);
  }
  // A short run after the long ones: its trace is its own.
  SeededDecisions d(1);
  RunResult short_run = run(Workload{.recipe = "lock", .clients = 1, .rounds = 1}, d, {});
  EXPECT_EQ(short_run.trace.size(), short_run.trace_events);
  for (const TraceEvent& e : short_run.trace) EXPECT_TRUE(e.client <= 0) << render_event(e);
}

TEST(Runner, CorrectRecipesAreAllTested) {
  std::size_t correct = 0;
  for (const std::string& r : recipe_names()) correct += !recipe_is_flawed(r);
  EXPECT_EQ(std::size(kCorrect), correct);
}

TEST(Runner, CorrectRecipesHoldEveryPropertyWithoutFaults) {
  for (const char* recipe : kCorrect) {
    Workload w{.recipe = recipe, .clients = 5, .rounds = 5, .producers = 2};
    std::string what;
    EXPECT_EQ(first_violation(w, {}, 20, &what), 0u) << recipe << "\n" << what;
  }
}

// Their directories there before the run, with counters that reach 2^31-1
// within it (where ZooKeeper 3.8 repeats the suffix), and some faults.
TEST(Runner, CorrectRecipesHoldEveryPropertyAcrossTheSequenceWrap) {
  for (const char* recipe : kCorrect) {
    for (std::int32_t start : kWrapStarts) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .timeout_ms = 5000, .producers = 2,
                 .sequence_start = start};
      std::string what;
      EXPECT_EQ(first_violation(w, {}, 10, &what), 0u) << recipe << " from " << start << "\n" << what;
      EXPECT_EQ(first_violation(w, nemesis(FaultKind::DropAfterApply, 30), 10, &what), 0u)
          << recipe << " from " << start << " under drop-after-apply\n" << what;
    }
  }
}

TEST(Runner, ASequenceStartMakesTheRecipesDirectoriesBeforeTheRun) {
  Workload w{.recipe = "locking-queue", .clients = 3, .rounds = 3, .sequence_start = 2147483640};
  SeededDecisions d(3);
  RunResult r = run(w, d, {}, {});
  EXPECT_TRUE(r.violations.empty()) << describe(r);
  ASSERT_FALSE(r.trace.empty());
  EXPECT_EQ(r.trace.front().kind, TraceKind::Annotation);
  EXPECT_EQ(r.trace.front().detail,
            "sequence counters start at 2147483640 in /zksim/recipe, /zksim/recipe/items, /zksim/recipe/claims");
  // Items took the suffixes from there up to where the counter stops.
  EXPECT_TRUE(std::any_of(r.trace.begin(), r.trace.end(),
                          [](const TraceEvent& ev) { return ev.path.ends_with("qn-2147483640"); }));
}

TEST(Runner, CorrectRecipesHoldEveryPropertyUnderEveryFaultClass) {
  for (const char* recipe : kCorrect) {
    for (FaultKind kind : kAllFaults) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .timeout_ms = 5000, .producers = 2};
      std::string what;
      EXPECT_EQ(first_violation(w, nemesis(kind, 30), 40, &what), 0u)
          << recipe << " under " << fault_kind_name(static_cast<std::int32_t>(kind)) << "\n" << what;
    }
  }
}

// The matrix's workload, 4 clients x 4 rounds of 5 ms holds, ends within
// about 100 ms: with a time-triggered window a second its timed classes
// never struck at all.
TEST(Runner, TimedFaultClassesStrikeRunsShorterThanASecond) {
  for (TimedFault fault : {TimedFault::AnyTime, TimedFault::BlipAll, TimedFault::Burst}) {
    WorldConfig c;
    c.nemesis.per_mille[static_cast<int>(fault)] = 30;
    c.nemesis.pause_ms = 3000;
    int struck = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(Workload{.recipe = "lock", .clients = 4, .rounds = 4}, d, {}, c);
      struck += std::ranges::any_of(r.trace, [](const TraceEvent& e) { return e.kind == TraceKind::Fault; });
    }
    EXPECT_GE(struck, 40) << fault_class_name(static_cast<int>(fault)) << " struck " << struck << " of 200 runs";
  }
}

TEST(Runner, TheTimedWindowIsARoundsOwnTime) {
  EXPECT_EQ(timed_window_of(Workload{.hold_ms = 5, .think_ms = 5}), 10);
  EXPECT_EQ(timed_window_of(Workload{.hold_ms = 300, .think_ms = 5}), 305);
  EXPECT_EQ(timed_window_of(Workload{.hold_ms = 0, .think_ms = 0}), 10);
  EXPECT_EQ(timed_window_of(Workload{.hold_ms = 3000, .think_ms = 5}), kTimedWindowMs);
}

TEST(Runner, CorrectLockHoldsWhenHoldersArePausedOrExpiredWhileHolding) {
  for (const char* recipe : {"lock", "election", "rw-lock"}) {
    for (FaultKind kind : {FaultKind::Pause, FaultKind::ExpireSession, FaultKind::Crash}) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 600};
      std::string what;
      EXPECT_EQ(first_violation(w, nemesis(kind, 30), 40, &what), 0u)
          << recipe << " under " << fault_kind_name(static_cast<std::int32_t>(kind)) << "\n" << what;
    }
  }
}

TEST(Runner, QueuesAndBarriersHoldWhenClientsArePausedExpiredOrCrashedMidWork) {
  // hold-ms 600: a consumer holds its item, a coordinator its raised
  // barrier, a member its place inside the double barrier.
  for (const char* recipe : {"queue", "locking-queue", "barrier", "double-barrier"}) {
    for (FaultKind kind : {FaultKind::Pause, FaultKind::ExpireSession, FaultKind::Crash}) {
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 600, .producers = 2};
      std::string what;
      EXPECT_EQ(first_violation(w, nemesis(kind, 30), 40, &what), 0u)
          << recipe << " under " << fault_kind_name(static_cast<std::int32_t>(kind)) << "\n" << what;
    }
  }
}

// How many ok ops `f` of `value` the history has.
int oks(const History& h, const std::string& f, const std::string& value) {
  return static_cast<int>(std::ranges::count_if(h.ops(), [&](const Op& o) {
    return o.f == f && o.value == value && o.outcome == Outcome::Ok;
  }));
}

TEST(Runner, LockingQueueRedeliversTheItemOfAConsumerThatCrashed) {
  // c0 puts one item; c1 crashes as its take reads the item (after its
  // claim); once c1's session expires, c2 gets the item and acks it.
  Workload w{.recipe = "locking-queue", .clients = 3, .rounds = 1, .producers = 1};
  ScriptedFault crash{.kind = FaultKind::Crash, .client = 1, .on = RequestMatch{request_kind<GetDataRequest>, ""}};
  ListDecisions d({});
  RunResult r = run(w, d, {crash}, {});
  EXPECT_TRUE(r.violations.empty()) << describe(r);
  ASSERT_TRUE(std::ranges::any_of(r.history.notes(), [](const Note& n) { return n.client == 1 && n.what == "crashed"; }));
  EXPECT_TRUE(std::ranges::any_of(r.history.ops(), [](const Op& o) {
    return o.client == 1 && o.f == "take" && o.outcome == Outcome::Pending;
  }));
  EXPECT_EQ(oks(r.history, "ack", "c0-0"), 1);
  EXPECT_TRUE(std::ranges::any_of(r.history.ops(), [](const Op& o) {
    return o.client == 2 && o.f == "ack" && o.outcome == Outcome::Ok;
  }));
}

TEST(Runner, QueueConsumersStopOnceEveryItemIsDelivered) {
  Workload w{.recipe = "queue", .clients = 5, .rounds = 3, .producers = 2};
  SeededDecisions d(3);
  RunResult r = run(w, d, {}, {});
  EXPECT_TRUE(r.violations.empty()) << describe(r);
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(oks(r.history, "take", fmt::format("c{}-{}", p, i)), 1);
  }
  EXPECT_EQ(r.completed_rounds, 12);  // 6 puts, 6 takes
}

// Acquires that time out while the holder keeps the lock: each withdraws
// its node and its watch on the predecessor. A watch left behind would
// stack with the next attempt's, and the predecessor's deletion would wake
// the same waiter several times (the herd check saw 3 events at once).
TEST(Runner, TimedOutAcquiresLeaveNoStaleWatchesBehind) {
  Workload w{.recipe = "lock", .clients = 4, .rounds = 4, .hold_ms = 600, .timeout_ms = 1000};
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  EXPECT_TRUE(r.violations.empty()) << describe(r);
  EXPECT_EQ(r.max_wakeups_per_release, 1);
  auto timed_out = std::ranges::count_if(r.history.ops(), [](const Op& op) {
    return op.f == "acquire" && op.error == Error::OperationTimeout;
  });
  EXPECT_GE(timed_out, 2) << "the run must exercise timeouts";
}

// The same, with every correct recipe, without faults and under each fault
// class: holds longer than the timeouts, so most acquires give up.
TEST(Runner, WakeUpsWithoutProgressAreCountedAndNotJudged) {
  // The lock wakes only the next in line, who is then granted; every
  // waiting consumer of the queue wakes for each put, and all but one
  // wait again, which the queue allows.
  SeededDecisions d1(1), d2(1);
  RunResult lock = run(Workload{.recipe = "lock", .clients = 5, .rounds = 3}, d1, {});
  RunResult queue = run(Workload{.recipe = "queue", .clients = 5, .rounds = 3}, d2, {});
  EXPECT_GT(lock.wakeups, 0);
  EXPECT_EQ(lock.wakeups_without_progress, 0);
  EXPECT_TRUE(lock.violations.empty()) << describe(lock);
  EXPECT_GT(queue.wakeups_without_progress, 0);
  EXPECT_LT(queue.wakeups_without_progress, queue.wakeups);
  EXPECT_TRUE(queue.violations.empty()) << describe(queue);
}

TEST(Runner, CorrectRecipesHoldEveryPropertyWhenAcquiresTimeOut) {
  for (const char* recipe : {"lock", "rw-lock", "semaphore", "election"}) {
    for (int k = -1; k < static_cast<int>(std::size(kAllFaults)); ++k) {
      WorldConfig c = k < 0 ? WorldConfig{} : nemesis(kAllFaults[k], 30);
      Workload w{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 600, .timeout_ms = 1000};
      std::string what;
      EXPECT_EQ(first_violation(w, c, 20, &what), 0u)
          << recipe << " under "
          << (k < 0 ? "no faults" : fault_kind_name(static_cast<std::int32_t>(kAllFaults[k])))
          << "\n" << what;
    }
  }
}

TEST(Runner, EveryFlawedRecipeIsCaughtByThePropertyItBreaks) {
  std::size_t flawed_names = 0;
  for (const std::string& r : recipe_names()) flawed_names += recipe_is_flawed(r);
  EXPECT_EQ(flawed_recipes().size(), flawed_names);
  for (const FlawedRecipe& f : flawed_recipes()) {
    Workload w{.recipe = f.recipe, .clients = 4, .rounds = 4, .hold_ms = f.hold_ms, .flavours = {f.flavour},
               .varied = f.varied};
    bool caught = false;
    for (std::uint64_t seed = 1; seed <= 200 && !caught; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, f.config());
      for (const Violation& v : r.violations) {
        caught |= v.property == f.property;
        EXPECT_TRUE(std::ranges::count(properties_of(f.recipe), v.property))
            << f.recipe << " reported " << v.property << ", which it does not check";
      }
    }
    EXPECT_TRUE(caught) << f.recipe << " not caught by " << f.property;
  }
}

// Waiters that chase each other (a livelock), or wait for good, under the
// fault class that exposes them: found at the lowest rate the default
// search draws (30 per mille), not only at the rate their flaw names (up to
// ten times it).
TEST(Runner, EveryLivenessFlawIsCaughtAtTheLowestRateTheSearchDraws) {
  int checked = 0;
  for (const FlawedRecipe& f : flawed_recipes()) {
    if ((f.property != "liveness" && f.property != "runaway") || f.per_mille == 0) continue;
    WorldConfig c = f.config();
    for (std::uint32_t& rate : c.nemesis.per_mille) rate = rate ? 30 : 0;
    Workload w{.recipe = f.recipe, .clients = 4, .rounds = 4, .hold_ms = f.hold_ms, .flavours = {f.flavour},
               .varied = f.varied};
    bool caught = false;
    for (std::uint64_t seed = 1; seed <= 300 && !caught; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, c);
      for (const Violation& v : r.violations) caught |= v.property == f.property;
    }
    EXPECT_TRUE(caught) << f.recipe << " not caught by " << f.property << " at 30 per mille";
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(Runner, PropertiesOfARecipeAreKnownPropertiesAndUnknownRecipesHaveNone) {
  for (const std::string& r : recipe_names()) {
    EXPECT_FALSE(properties_of(r).empty()) << r;
    for (const std::string& p : properties_of(r)) {
      EXPECT_TRUE(std::ranges::count(property_names(), p)) << r << ": " << p;
    }
  }
  EXPECT_TRUE(properties_of("nope").empty());
}

TEST(Runner, SameSeedSameTrace) {
  for (const char* recipe : kCorrect) {
    Workload w{.recipe = recipe, .clients = 5, .rounds = 5, .producers = 2};
    SeededDecisions a(7), b(7);
    EXPECT_EQ(run(w, a, {}, nemesis(FaultKind::Pause, 20)).trace_hash,
              run(w, b, {}, nemesis(FaultKind::Pause, 20)).trace_hash)
        << recipe;
  }
}

TEST(Runner, UnknownRecipeIsABadWorkload) {
  Workload w{.recipe = "nope"};
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].property, "bad-workload");
}

TEST(Runner, MoreProducersThanClientsIsABadWorkload) {
  Workload w{.recipe = "queue", .clients = 2, .producers = 3};
  SeededDecisions d(1);
  RunResult r = run(w, d, {});
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].property, "bad-workload");
  EXPECT_EQ(r.violations[0].message, "3 producers, but there are 2 clients");
}

}  // namespace
}  // namespace zksim::scenarios
