// The example's locks through zksim's harness (zksim/scenarios/harness.h),
// one line per property. Run under no faults and under message loss
// (requests lost before or after the server applied them, and delays):
// these locks do not listen to session events.
#include "recipes.h"
#include "zksim/scenarios/gtest.h"

#include <gtest/gtest.h>

namespace {

using zksim::scenarios::check;
using zksim::scenarios::CheckOptions;
using zksim::scenarios::Holds;
using zksim::scenarios::HoldsEveryProperty;
using zksim::scenarios::Violates;

CheckOptions options() {
  CheckOptions o;
  o.faults = {"none", "drop-before-apply", "drop-after-apply", "delay"};
  o.runs = 200;
  o.out_dir = "failures";  // what is found is written here, with the command that replays it
  return o;
}

const bool registered = [] {
  for (auto& r : example::recipes()) zksim::scenarios::register_recipe(std::move(r));
  return true;
}();

TEST(FixedLock, HoldsEveryProperty) { EXPECT_THAT(check("example/fixed-lock", options()), HoldsEveryProperty()); }

TEST(NaiveLock, IsMutuallyExclusive) { EXPECT_THAT(check("example/naive-lock", options()), Holds("mutual-exclusion")); }

TEST(NaiveLock, WakesEveryWaiterAtEachRelease) {
  EXPECT_THAT(check("example/naive-lock", options()), Violates("herd-effect"));
}

}  // namespace
