// Properties with shrinking: rapidcheck generates the workload and the
// decision list; every correct recipe must hold every property that
// applies, for thousands of cases. A failure shrinks to a minimal decision
// list and is written as a scenario file in the build tree
// (failures/<recipe>.scn).
#include "properties.h"
#include "smoke.h"

namespace zksim::scenarios {
namespace {

constexpr int kRuns = test::full_or_smoke(2000, 100);

TEST(Properties, LockHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("lock", kRuns, [] { holds_every_property("lock"); }));
}
TEST(Properties, ReadWriteLockHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("rw-lock", kRuns, [] { holds_every_property("rw-lock"); }));
}
TEST(Properties, SemaphoreHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("semaphore", kRuns, [] { holds_every_property("semaphore"); }));
}
TEST(Properties, ElectionHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("election", kRuns, [] { holds_every_property("election"); }));
}
TEST(Properties, QueueHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("queue", kRuns, [] { holds_every_property("queue"); }));
}
TEST(Properties, LockingQueueHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("locking-queue", kRuns, [] { holds_every_property("locking-queue"); }));
}
TEST(Properties, BarrierHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("barrier", kRuns, [] { holds_every_property("barrier"); }));
}
TEST(Properties, DoubleBarrierHoldsEveryProperty) {
  EXPECT_TRUE(rc_check("double-barrier", kRuns, [] { holds_every_property("double-barrier"); }));
}

}  // namespace
}  // namespace zksim::scenarios
