// The example's recipes as zksim's harness knows them (zksim/scenarios/recipe.h),
// for the plugin and the test alike.
#pragma once

#include "my_lock.h"
#include "zksim/scenarios/recipe.h"

#include <vector>

namespace example {

inline std::vector<zksim::scenarios::Recipe> recipes() {
  using namespace zksim::scenarios;
  Recipe naive;
  naive.name = "example/naive-lock";
  naive.summary = "every waiter watches the holder";
  naive.family = RecipeFamily::Lock;
  naive.make_lock = [](const HandleContext& c) { return exclusive<NaiveLock>(c.zk, c.dir); };
  Recipe fixed;
  fixed.name = "example/fixed-lock";
  fixed.summary = "each waiter watches its predecessor";
  fixed.family = RecipeFamily::Lock;
  fixed.make_lock = [](const HandleContext& c) { return exclusive<FixedLock>(c.zk, c.dir); };
  return {std::move(naive), std::move(fixed)};
}

}  // namespace example
