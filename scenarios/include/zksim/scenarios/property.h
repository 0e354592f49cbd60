// The properties the harness judges, one list: each one's name (as
// reports, scenario files and `zksim list` give it) and what it says.
// docs/harness.md tells each in full; checkers.h checks them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zksim::scenarios {

#define ZKSIM_PROPERTIES(X)                                                                                       \
  X(MutualExclusion, "mutual-exclusion", "at most one client believes it holds the lock")                        \
  X(ReadWriteExclusion, "read-write-exclusion", "a writer holds alone; readers only with readers")                \
  X(SemaphoreLeases, "semaphore-leases", "at most N clients believe they hold a lease")                           \
  X(OneLeader, "one-leader", "at most one leader at a time; a leader asked leader() is named")                    \
  X(ServerExclusion, "server-exclusion", "a granted node exists and no conflicting node was made before it")     \
  X(Fifo, "fifo", "grants follow the contenders' order")                                                          \
  X(HerdEffect, "herd-effect", "a change wakes at most one waiter")                                               \
  X(FencedExclusion, "fenced-exclusion", "a resource that refuses stale fences sees no lost update")              \
  X(HoldsAfterLoss, "holds-after-loss", "a recipe that said lost does not say it holds")                          \
  X(HonestExpiry, "honest-expiry", "SessionExpired only after an expiry; NoNode never after one")                 \
  X(QueueNoLoss, "queue-no-loss", "every item put is taken or still queued")                                      \
  X(QueueNoDuplicates, "queue-no-duplicates", "no item is delivered twice (at most once)")                        \
  X(QueueNoPhantoms, "queue-no-phantoms", "no item is taken that was never put")                                  \
  X(QueueFifo, "queue-fifo", "items are taken in the order they were put")                                        \
  X(ClaimExclusion, "claim-exclusion", "one consumer holds a locking queue's item at a time")                     \
  X(BarrierEnter, "barrier-enter", "nobody enters a double barrier before all came")                              \
  X(BarrierLeave, "barrier-leave", "nobody leaves a double barrier before all were leaving")                      \
  X(BarrierWait, "barrier-wait", "nobody passes a raised barrier")                                                \
  X(Liveness, "liveness", "once faults heal, every live waiter is served")                                        \
  X(Progress, "progress", "without faults, waiters are served promptly")                                          \
  X(NoLeaks, "no-leaks", "no node or watch is left behind")                                                       \
  X(SequentialConsistency, "sequential-consistency", "a client's replies never go back to an older state")    \
  X(WatchOrder, "watch-order", "a change's watch event comes before later replies, in the changes' order")      \
  X(Runaway, "runaway", "the run ends within its budget of steps")                                                \
  X(Crashed, "crashed", "the recipe does not crash the process (a signal, an abort, an exception it lets escape)")

enum class Property : int {
#define ZKSIM_PROPERTY_ENUM(ID, NAME, SUMMARY) ID,
  ZKSIM_PROPERTIES(ZKSIM_PROPERTY_ENUM)
#undef ZKSIM_PROPERTY_ENUM
};

inline constexpr int kProperties = 0
#define ZKSIM_PROPERTY_COUNT(ID, NAME, SUMMARY) +1
    ZKSIM_PROPERTIES(ZKSIM_PROPERTY_COUNT)
#undef ZKSIM_PROPERTY_COUNT
    ;

// "mutual-exclusion"; a std::string, as Violation::property holds it.
const std::string& name(Property p);
std::string_view summary(Property p);
std::optional<Property> property_named(std::string_view name);

// Not a property: what a run reports when its workload cannot run.
inline constexpr std::string_view kBadWorkload = "bad-workload";

}  // namespace zksim::scenarios
