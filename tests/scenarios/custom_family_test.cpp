// A custom family (recipe.h, CustomFamily): a recipe that drives its own
// clients and judges their history with a check of its own; the harness
// adds liveness, leaks and runaway, and runs, shrinks and replays it like
// any other.
#include "zksim/scenarios/gtest.h"
#include "zksim/scenarios/harness.h"
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/scenario.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

namespace zksim::scenarios {
namespace {

const std::string kCounter = "/zksim/recipe/counter";

// Adds one to the counter node: read, write back the value plus one. With
// `versioned`, the write carries the version read (a compare-and-set,
// retried when another write came between); without it, the write is
// blind and a concurrent increment can be lost.
Task<Result<int>> increment(Client& zk, bool versioned) {
  for (;;) {
    auto got = co_await zk.get_data(kCounter);
    if (!got) {
      if (got.error() == Error::NoNode) {
        co_await zk.create("/zksim", "", CreateMode::Persistent);
        co_await zk.create("/zksim/recipe", "", CreateMode::Persistent);
        co_await zk.create(kCounter, "0", CreateMode::Persistent);
        continue;
      }
      co_return got.error();
    }
    const int next = std::stoi(got->data) + 1;
    const Version expected = versioned ? Version{got->stat.version} : kAnyVersion;
    auto set = co_await zk.set_data(kCounter, std::to_string(next), expected);
    if (set) co_return next;
    if (set.error() != Error::BadVersion) co_return set.error();
  }
}

Task<> incrementer(Client& zk, int id, int rounds, bool versioned, History& h) {
  for (int i = 0; i < rounds; ++i) {
    auto op = h.invoke(id, "increment", zk.now());
    auto done = co_await increment(zk, versioned);
    if (done) {
      h.ok(op, zk.now(), std::to_string(*done));
    } else if (done.error() == Error::ConnectionLoss) {
      h.info(op, zk.now(), done.error());
    } else {
      h.fail(op, zk.now(), done.error());
    }
    co_await zk.sleep(1);
  }
}

// No lost update: every increment that ended ok returned a value of its
// own, and the counter ends at least at their number and at most at their
// number plus those whose outcome is unknown.
std::vector<Violation> no_lost_update(const History& h, const Server& server) {
  std::set<std::string> values;
  int ok = 0, unknown = 0;
  for (const Op& o : h.ops()) {
    if (o.outcome == Outcome::Ok) {
      ++ok;
      if (!values.insert(o.value).second) {
        return {Violation{"counter-no-lost-update", fmt::format("two increments both made it {}", o.value), {o.client}, o.completed}};
      }
    }
    if (o.outcome == Outcome::Info) ++unknown;
  }
  auto node = server.node(kCounter);
  const int final_value = node ? std::stoi(node->data) : 0;
  if (final_value < ok || final_value > ok + unknown) {
    return {Violation{"counter-no-lost-update",
                      fmt::format("the counter ends at {} after {} increments ok and {} unknown", final_value, ok, unknown),
                      {},
                      0}};
  }
  return {};
}

Recipe counter(std::string recipe_name, bool versioned) {
  Recipe r;
  r.name = std::move(recipe_name);
  r.summary = versioned ? "a counter incremented by compare-and-set" : "a counter incremented by blind writes";
  r.family = RecipeFamily::Custom;
  r.traits.node_dirs = {};  // the counter stays: only watches may leak
  r.custom = CustomFamily{{"counter-no-lost-update"},
                          [versioned](CustomRun& run) -> std::string {
                            for (int i = 0; i < run.workload.clients; ++i) {
                              Client& zk = run.open(i);
                              run.world.spawn(zk, incrementer(zk, i, run.workload.rounds, versioned, run.history));
                            }
                            return {};
                          },
                          no_lost_update};
  return r;
}

const bool registered = [] {
  register_recipe(counter("user/cas-counter", true));
  register_recipe(counter("user/blind-counter", false));
  return true;
}();

CheckOptions counter_options() {
  CheckOptions o;
  o.faults = {"none", "drop-before-apply", "drop-after-apply", "delay"};
  o.runs = 60;
  return o;
}

TEST(CustomFamily, ACustomRecipesOwnPropertiesAndTheHarnesssAreChecked) {
  EXPECT_EQ(properties_of("user/cas-counter"),
            (std::vector<std::string>{"counter-no-lost-update", "liveness", "no-leaks", "sequential-consistency",
                                      "watch-order", "runaway", "crashed"}));
  const auto& all = property_names();
  EXPECT_NE(std::find(all.begin(), all.end(), "counter-no-lost-update"), all.end());
}

TEST(CustomFamily, ACorrectCustomRecipeHolds) {
  EXPECT_THAT(check("user/cas-counter", counter_options()), HoldsEveryProperty());
}

TEST(CustomFamily, ABrokenCustomRecipeIsCaughtByItsOwnCheckAndItsScenarioReplays) {
  const Report r = check("user/blind-counter", counter_options());
  EXPECT_THAT(r, Violates("counter-no-lost-update"));
  const PropertyVerdict* v = r.find("counter-no-lost-update");
  ASSERT_NE(v, nullptr);
  ParseError e;
  auto s = parse_scenario(v->scenario, "found.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->expect_violation, "counter-no-lost-update");
  EXPECT_TRUE(run_scenario(*s).as_expected);
}

TEST(CustomFamily, ACustomRecipeNeedsItsSpawnAndCheck) {
  Recipe r = counter("user/half-counter", true);
  r.custom->check = nullptr;
  EXPECT_EQ(register_recipe(r), "recipe 'user/half-counter': custom needs both spawn and check");
  Recipe lockish = counter("user/lockish", true);
  lockish.family = RecipeFamily::Lock;
  lockish.make_lock = [](const HandleContext&) { return std::unique_ptr<LockHandle>(); };
  EXPECT_EQ(register_recipe(lockish), "recipe 'user/lockish' of family lock has custom, which only the custom family uses");
}

}  // namespace
}  // namespace zksim::scenarios
