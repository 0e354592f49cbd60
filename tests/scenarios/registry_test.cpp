// The recipe registry (recipe.h): a user's recipe is registered with its
// family and traits stated, checked like zksim's own, and refused with the
// reason when it cannot be run.
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/workload.h"

#include "zksim/recipes/flawed/simple_locks.h"
#include "zksim/recipes/lock.h"

#include <gtest/gtest.h>

namespace zksim::scenarios {
namespace {

Recipe user_lock(std::string name) {
  Recipe r;
  r.name = std::move(name);
  r.summary = "the correct lock, registered as a user would";
  r.family = RecipeFamily::Lock;
  r.make_lock = [](const HandleContext& c) {
    recipes::LockOptions o;
    o.on_hold = c.on_hold;
    return exclusive<recipes::Lock>(c.zk, c.dir, o);
  };
  r.traits.tells_loss = true;
  r.origin = "registry_test";
  return r;
}

TEST(Registry, ZksimsOwnRecipesAreRegisteredWithTheirFamilies) {
  EXPECT_EQ(find_recipe("lock")->family, RecipeFamily::Lock);
  EXPECT_EQ(find_recipe("rw-lock")->family, RecipeFamily::ReadWriteLock);
  EXPECT_EQ(find_recipe("semaphore")->family, RecipeFamily::Semaphore);
  EXPECT_EQ(find_recipe("election")->family, RecipeFamily::Election);
  EXPECT_EQ(find_recipe("locking-queue")->family, RecipeFamily::LockingQueue);
  EXPECT_EQ(find_recipe("double-barrier")->family, RecipeFamily::DoubleBarrier);
  EXPECT_TRUE(find_recipe("flawed/herd-lock")->flaw.has_value());
  EXPECT_EQ(find_recipe("nope"), nullptr);
  for (const Recipe& r : registered_recipes()) EXPECT_FALSE(r.summary.empty()) << r.name;
}

TEST(Registry, ARegisteredRecipeRunsAndIsJudgedByItsFamilysProperties) {
  ASSERT_EQ(register_recipe(user_lock("user/lock")), "");
  EXPECT_EQ(properties_of("user/lock"), properties_of("lock"));
  EXPECT_FALSE(recipe_is_flawed("user/lock"));
  const auto& names = recipe_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "user/lock"), names.end());
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SeededDecisions d(seed);
    RunResult r = run(Workload{.recipe = "user/lock", .clients = 3, .rounds = 3}, d, {});
    EXPECT_TRUE(r.violations.empty()) << seed << ": " << r.violations.front().message;
    EXPECT_EQ(r.completed_rounds, 9);
  }
}

// zksim's queue takes by deleting: it states at-most-once delivery, and
// items its lost take replies removed are counted, not judged. The same
// queue registered without saying so is held to exactly once, and those
// items are losses.
TEST(Registry, AQueueIsHeldToExactlyOnceUnlessItStatesAtMostOnce) {
  Recipe silent = *find_recipe("queue");
  silent.name = "user/queue-silent";
  silent.origin = "registry_test";
  silent.traits.at_most_once = false;
  ASSERT_EQ(register_recipe(std::move(silent)), "");
  WorldConfig c;
  c.nemesis.per_mille[static_cast<std::size_t>(FaultKind::DropAfterApply)] = 100;
  int lost = 0, judged = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const char* name : {"queue", "user/queue-silent"}) {
      SeededDecisions d(seed);
      RunResult r = run(Workload{.recipe = name, .clients = 4, .rounds = 4, .producers = 2}, d, {}, c);
      const bool no_loss = std::none_of(r.violations.begin(), r.violations.end(),
                                        [](const Violation& v) { return v.property == "queue-no-loss"; });
      if (std::string(name) == "queue") {
        EXPECT_TRUE(r.violations.empty()) << seed << ": " << r.violations.front().message;
        lost += r.lost_in_transit;
      } else {
        judged += !no_loss;
        EXPECT_EQ(r.lost_in_transit, 0);
      }
    }
  }
  EXPECT_GT(lost, 0);
  EXPECT_GT(judged, 0);
}

TEST(Registry, AFlawedUserRecipeIsCaughtAndListedWithItsFlaw) {
  Recipe r;
  r.name = "user/forgetful";
  r.summary = "forgets nothing it was told, since it is told nothing";
  r.family = RecipeFamily::Lock;
  r.make_lock = [](const HandleContext& c) { return exclusive<recipes::flawed::ForgetfulLock>(c.zk, c.dir); };
  r.flaw = Flaw{"mutual-exclusion", static_cast<std::int32_t>(FaultKind::ExpireSession), 30};
  ASSERT_EQ(register_recipe(std::move(r)), "");
  EXPECT_TRUE(recipe_is_flawed("user/forgetful"));
  const auto& flaws = flawed_recipes();
  auto it = std::find_if(flaws.begin(), flaws.end(), [](const FlawedRecipe& f) { return f.recipe == "user/forgetful"; });
  ASSERT_NE(it, flaws.end());
  bool caught = false;
  for (std::uint64_t seed = 1; seed <= 300 && !caught; ++seed) {
    SeededDecisions d(seed);
    RunResult run_result = run(Workload{.recipe = "user/forgetful", .hold_ms = 600}, d, {}, it->config());
    for (const Violation& v : run_result.violations) caught = caught || v.property == "mutual-exclusion";
  }
  EXPECT_TRUE(caught);
}

TEST(Registry, ANameIsGivenOnceAndWellFormed) {
  ASSERT_EQ(register_recipe(user_lock("user/once")), "");
  EXPECT_EQ(register_recipe(user_lock("user/once")), "recipe 'user/once' is registered already");
  EXPECT_EQ(register_recipe(user_lock("lock")), "recipe 'lock' is registered already");
  EXPECT_EQ(register_recipe(user_lock("")), "a recipe needs a name");
  EXPECT_EQ(register_recipe(user_lock("my lock")),
            "recipe name 'my lock' may hold only letters, digits and '-', '_', '/', '.'");
}

TEST(Registry, ARecipeNeedsTheFactoryOfItsFamilyAndNoOther) {
  Recipe none = user_lock("user/no-factory");
  none.make_lock = nullptr;
  EXPECT_EQ(register_recipe(std::move(none)), "recipe 'user/no-factory' of family lock needs make_lock");
  Recipe wrong = user_lock("user/queue-with-a-lock");
  wrong.family = RecipeFamily::Queue;
  wrong.traits.tells_loss = false;
  wrong.traits.item_marker = "qn-";
  wrong.make_queue = [](const HandleContext&) { return std::unique_ptr<QueueHandle>(); };
  EXPECT_EQ(register_recipe(std::move(wrong)),
            "recipe 'user/queue-with-a-lock' of family queue has make_lock, which only another family uses");
}

TEST(Registry, TraitsAreStatedWhereTheFamilyNeedsThem) {
  Recipe rw = user_lock("user/rw");
  rw.family = RecipeFamily::ReadWriteLock;
  EXPECT_EQ(register_recipe(rw), "recipe 'user/rw': a read/write lock needs traits.write_node");
  Recipe sem = user_lock("user/sem");
  sem.family = RecipeFamily::Semaphore;
  sem.traits.reentrant = true;
  EXPECT_EQ(register_recipe(sem), "recipe 'user/sem': only a lock or a read/write lock can be reentrant");
  Recipe q;
  q.name = "user/q";
  q.family = RecipeFamily::Queue;
  q.make_queue = [](const HandleContext&) { return std::unique_ptr<QueueHandle>(); };
  EXPECT_EQ(register_recipe(q), "recipe 'user/q': a queue needs traits.item_marker");
}

TEST(Registry, AListenerContractNeedsARecipeThatTellsItsCaller) {
  Recipe mute = user_lock("user/mute-listener");
  mute.traits.tells_loss = false;
  mute.traits.contract = Contract::Listener;
  EXPECT_EQ(register_recipe(std::move(mute)),
            "recipe 'user/mute-listener': a caller heeding the connection (Contract::Listener) needs "
            "traits.tells_loss");
}

TEST(Registry, AHandleThatIsNotMadeIsABadWorkloadNotACrash) {
  Recipe r = user_lock("user/null-handle");
  r.make_lock = [](const HandleContext&) { return std::unique_ptr<LockHandle>(); };
  ASSERT_EQ(register_recipe(std::move(r)), "");
  SeededDecisions d(1);
  RunResult result = run(Workload{.recipe = "user/null-handle", .clients = 2, .rounds = 1}, d, {});
  ASSERT_EQ(result.violations.size(), 1u);
  EXPECT_EQ(result.violations[0].property, "bad-workload");
  EXPECT_EQ(result.violations[0].message, "recipe 'user/null-handle' made no handle");
}

// ZKSIM_PROPERTIES (property.h): one list of names and summaries, the
// order of property_names().
TEST(Properties, EachHasANameAndASummaryInTheListsOrder) {
  ASSERT_EQ(property_names().size(), static_cast<std::size_t>(kProperties));
  for (int i = 0; i < kProperties; ++i) {
    const auto p = static_cast<Property>(i);
    EXPECT_EQ(name(p), property_names()[static_cast<std::size_t>(i)]);
    EXPECT_FALSE(summary(p).empty()) << name(p);
    EXPECT_EQ(property_named(name(p)), p);
  }
  EXPECT_EQ(name(Property::MutualExclusion), "mutual-exclusion");
  EXPECT_EQ(property_named("mutex"), std::nullopt);
}

TEST(Registry, FamiliesHaveNames) {
  for (int i = 0; i < kRecipeFamilies; ++i) {
    const auto f = static_cast<RecipeFamily>(i);
    EXPECT_EQ(family_named(family_name(f)), f);
  }
  EXPECT_EQ(family_named("mutex"), std::nullopt);
}

}  // namespace
}  // namespace zksim::scenarios
