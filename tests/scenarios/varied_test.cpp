// Varied workloads (Workload::varied): each client's operation sequence is
// drawn from the run's decisions — try-locks and timeouts of every size,
// reentrant nesting, read then write, downgrades, a second handle on one
// session — and every correct recipe still holds every property, under
// every fault class and with every client flavour.
#include "zksim/scenarios/scenario.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace zksim::scenarios {
namespace {

constexpr std::uint64_t kSeeds = test::full_or_smoke<std::uint64_t>(150, 4);

const char* const kCorrect[] = {"lock",  "rw-lock",       "semaphore", "election",
                                "queue", "locking-queue", "barrier",   "double-barrier"};

Workload varied(const std::string& recipe) {
  return Workload{.recipe = recipe, .clients = 4, .rounds = 4, .varied = true};
}

// The ops of client `c`, as "f:outcome" in invocation order.
std::vector<std::string> calls_of(const History& h, int c) {
  std::vector<std::string> out;
  for (const Op& o : h.ops()) {
    if (o.client == c) out.push_back(fmt::format("{}:{}", o.f, o.outcome == Outcome::Ok ? "ok" : "not"));
  }
  return out;
}

bool contains(const std::vector<std::string>& calls, const std::vector<std::string>& run) {
  return std::search(calls.begin(), calls.end(), run.begin(), run.end()) != calls.end();
}

TEST(Varied, DecisionZeroDrawsTodaysRounds) {
  for (const char* recipe : kCorrect) {
    Workload plain{.recipe = recipe, .clients = 4, .rounds = 3};
    Workload drawn = plain;
    drawn.varied = true;
    ListDecisions a({}), b({});
    EXPECT_EQ(run(plain, a, {}).trace_hash, run(drawn, b, {}).trace_hash) << recipe;
  }
}

TEST(Varied, ARunReplaysFromItsRecordedDecisions) {
  for (const char* recipe : kCorrect) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      SeededDecisions seeded(seed);
      RecordingDecisions recording(seeded);
      RunResult first = run(varied(recipe), recording, {});
      ListDecisions replay(recording.recorded());
      EXPECT_EQ(first.trace_hash, run(varied(recipe), replay, {}).trace_hash) << recipe << " seed " << seed;
    }
  }
}

TEST(Varied, ReadWriteLockClientsReadThenWriteAndDowngrade) {
  bool read_then_write = false, downgrade = false;
  for (std::uint64_t seed = 1; seed <= 20 && !(read_then_write && downgrade); ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(varied("rw-lock"), d, {});
    for (int c = 0; c < 4; ++c) {
      const std::vector<std::string> calls = calls_of(r.history, c);
      read_then_write |= contains(calls, {"acquire-read:ok", "release-read:ok", "acquire-write:ok"});
      downgrade |= contains(calls, {"acquire-write:ok", "acquire-read:ok", "release-write:ok", "release-read:ok"});
    }
  }
  EXPECT_TRUE(read_then_write);
  EXPECT_TRUE(downgrade);
}

TEST(Varied, LocksAreTriedWithTimeoutsOfEverySizeAndNested) {
  bool gave_up = false, nested = false;
  for (std::uint64_t seed = 1; seed <= 20 && !(gave_up && nested); ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(varied("lock"), d, {});
    for (const Op& o : r.history.ops()) gave_up |= o.f == "acquire" && o.error == Error::OperationTimeout;
    for (int c = 0; c < 4; ++c) nested |= contains(calls_of(r.history, c), {"acquire:ok", "acquire:ok", "acquire:ok"});
  }
  EXPECT_TRUE(gave_up);
  EXPECT_TRUE(nested);
}

// Per client: acquires granted, and releases invoked.
std::map<int, std::pair<int, int>> grants_and_releases(const History& h) {
  std::map<int, std::pair<int, int>> out;
  for (const Op& o : h.ops()) {
    if (o.f == "acquire" && o.outcome == Outcome::Ok) ++out[o.client].first;
    if (o.f == "release") ++out[o.client].second;
  }
  return out;
}

// Under the strict contract a holder whose nested hold was lost may end it
// with one release; Curator and kazoo (Contract::Listener) are owed one
// release per acquire, whatever happened.
TEST(Varied, AListenerContractHolderReleasesOncePerAcquireEvenAfterALoss) {
  Recipe listener = *find_recipe("lock");
  listener.name = "test/listener-contract-lock";
  listener.traits.contract = Contract::Listener;
  ASSERT_EQ(register_recipe(listener), "");
  WorldConfig c;
  c.nemesis.per_mille[static_cast<int>(FaultKind::ExpireSession)] = 300;
  Workload strict = varied("lock"), heeding = varied(listener.name);
  strict.hold_ms = heeding.hold_ms = 600;  // holds long enough to be lost
  int strict_cut_short = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SeededDecisions strict_d(seed), listener_d(seed);
    for (const auto& [client, n] : grants_and_releases(run(strict, strict_d, {}, c).history)) {
      strict_cut_short += n.second < n.first;
    }
    for (const auto& [client, n] : grants_and_releases(run(heeding, listener_d, {}, c).history)) {
      EXPECT_EQ(n.first, n.second) << "seed " << seed << " c" << client;
    }
  }
  EXPECT_GT(strict_cut_short, 0) << "no strict run ended a lost nested hold with one release: the test shows nothing";
}

TEST(Varied, QueueTakesAreTriedWithTimeoutsOfEverySize) {
  bool gave_up = false;
  for (std::uint64_t seed = 1; seed <= 20 && !gave_up; ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(varied("queue"), d, {});
    for (const Op& o : r.history.ops()) gave_up |= o.f == "take" && o.error == Error::OperationTimeout;
  }
  EXPECT_TRUE(gave_up);
}

TEST(Varied, BarrierWaitsAndEntersAreTriedWithTimeoutsOfEverySize) {
  for (const char* recipe : {"barrier", "double-barrier"}) {
    bool gave_up = false;
    for (std::uint64_t seed = 1; seed <= 20 && !gave_up; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(varied(recipe), d, {});
      for (const Op& o : r.history.ops()) {
        gave_up |= (o.f == "wait" || o.f == "enter") && o.error == Error::OperationTimeout;
      }
    }
    EXPECT_TRUE(gave_up) << recipe;
  }
}

TEST(Varied, SomeClientsWorkThroughASecondHandleOnTheirSession) {
  for (const char* recipe : {"lock", "rw-lock", "semaphore", "election", "queue", "locking-queue", "barrier"}) {
    bool shared = false;
    for (std::uint64_t seed = 1; seed <= 20 && !shared; ++seed) {
      SeededDecisions d(seed);
      RunResult r = run(varied(recipe), d, {});
      for (const Op& o : r.history.ops()) shared |= o.client >= 4;
    }
    EXPECT_TRUE(shared) << recipe;
  }
}

// Whether some client of `h` downgraded (an acquire-write ok, then an
// acquire-read ok, then the release-write) while another client's
// acquire-write was waiting from before the read's grant to after the
// write's release: the writer queued behind the downgrade.
bool downgrade_with_a_queued_writer(const History& h) {
  const std::vector<Op>& ops = h.ops();
  for (std::size_t i = 0; i + 2 < ops.size(); ++i) {
    if (ops[i].f != "acquire-read" || ops[i].outcome != Outcome::Ok) continue;
    const int c = ops[i].client;
    auto before = std::find_if(ops.rbegin() + static_cast<std::ptrdiff_t>(ops.size() - i), ops.rend(),
                               [&](const Op& o) { return o.client == c; });
    if (before == ops.rend() || before->f != "acquire-write" || before->outcome != Outcome::Ok) continue;
    auto release = std::find_if(ops.begin() + static_cast<std::ptrdiff_t>(i) + 1, ops.end(),
                                [&](const Op& o) { return o.client == c; });
    if (release == ops.end() || release->f != "release-write") continue;
    for (const Op& o : ops) {
      if (o.client != c && o.f == "acquire-write" && o.invoked < ops[i].completed &&
          (o.outcome == Outcome::Pending || o.completed > release->invoked)) {
        return true;
      }
    }
  }
  return false;
}

TEST(Varied, ADowngradeIsNotAConflictOfTheClientWithItself) {
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 300 && found < 5; ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(varied("rw-lock"), d, {});
    if (!downgrade_with_a_queued_writer(r.history)) continue;
    ++found;
    EXPECT_TRUE(r.violations.empty()) << "seed " << seed << ": " << r.violations.front().message;
  }
  EXPECT_EQ(found, 5);
}

TEST(Varied, ADowngradeThatLetsAQueuedWriterInIsAReadWriteExclusionViolation) {
  // The shrunk run of scenarios/library/flawed-eager-downgrade-rw-lock.scn.
  Scenario s;
  s.workload = Workload{.recipe = "flawed/eager-downgrade-rw-lock", .clients = 2, .rounds = 2, .varied = true};
  s.decisions = {0, 0, 0, 0, 0, 0, 0, 4};
  ScenarioRun r = run_scenario(s);
  ASSERT_TRUE(downgrade_with_a_queued_writer(r.result.history));
  ASSERT_FALSE(r.result.violations.empty());
  EXPECT_EQ(r.result.violations.front().property, "read-write-exclusion");
  EXPECT_EQ(r.result.violations.front().clients, (std::vector<int>{0, 1}));
}

TEST(Varied, TheVariedDirectiveIsReadAndWritten) {
  ParseError e;
  auto s = parse_scenario("zksim-scenario 1\nrecipe rw-lock\nvaried yes\nexpect pass\n", "v.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_TRUE(s->workload.varied);
  auto again = parse_scenario(write_scenario(*s), "again.scn", &e);
  ASSERT_TRUE(again) << e.text();
  EXPECT_TRUE(again->workload.varied);
  Scenario plain;
  EXPECT_EQ(write_scenario(plain).find("varied"), std::string::npos);  // files without it stay as they were
}

// Every correct recipe, every fault class, every flavour (client i takes
// the (i mod 3)th, rotated with the seed): no property is broken.
class VariedSweep : public testing::TestWithParam<std::string> {};

TEST_P(VariedSweep, HoldsEveryPropertyUnderEveryFaultClassWithEveryFlavour) {
  const std::string& recipe = GetParam();
  const std::vector<Flavour> flavours = {Flavour::C, Flavour::Curator, Flavour::Kazoo};
  for (int kind = -1; kind < kFaultClasses; ++kind) {
    WorldConfig c;
    if (kind >= 0) c.nemesis.per_mille[kind] = is_timed_class(kind) ? 300 : 30;
    c.nemesis.pause_ms = 3000;
    c.nemesis.delay_ms = 50;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      Workload w = varied(recipe);
      w.hold_ms = seed % 3 == 0 ? 600 : 5;
      w.reentrant = seed % 5 == 0;
      w.flavours = {flavours[seed % 3], flavours[(seed + 1) % 3], flavours[(seed + 2) % 3]};
      SeededDecisions d(seed);
      RunResult r = run(w, d, {}, c);
      for (const Violation& v : r.violations) {
        ADD_FAILURE() << fmt::format("{} under {} seed {}: {}: {}", recipe,
                                     kind < 0 ? "no faults" : fault_class_name(kind), seed, v.property, v.message);
      }
      if (!r.violations.empty()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CorrectRecipes, VariedSweep,
                         testing::Values("lock", "rw-lock", "semaphore", "election", "queue", "locking-queue",
                                         "barrier", "double-barrier"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace zksim::scenarios
