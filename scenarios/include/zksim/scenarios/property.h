// The properties the harness judges, one list: each one's name (as
// reports, scenario files and `zksim list` give it), its class and what it
// says. The class says how bad a violation is: safety (a thing that must
// never happen happened: two holders, a lost item, a crash), liveness
// (something owed never came: a waiter never served, a run that never
// ends), efficiency (correct but costly: a herd of wake-ups, nodes or
// watches left behind).
// docs/harness.md tells each in full; checkers.h checks them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zksim::scenarios {

#define ZKSIM_PROPERTIES(X)                                                                                                 \
  X(MutualExclusion, "mutual-exclusion", Safety, "at most one client believes it holds the lock")                           \
  X(ReadWriteExclusion, "read-write-exclusion", Safety, "a writer holds alone; readers only with readers")                  \
  X(SemaphoreLeases, "semaphore-leases", Safety, "at most N clients believe they hold a lease")                             \
  X(OneLeader, "one-leader", Safety, "at most one leader at a time; a leader asked leader() is named")                      \
  X(ServerExclusion, "server-exclusion", Safety, "a granted node exists and no conflicting node was made before it")        \
  X(Fifo, "fifo", Safety, "grants follow the contenders' order")                                                            \
  X(HerdEffect, "herd-effect", Efficiency, "a change wakes at most one waiter")                                             \
  X(FencedExclusion, "fenced-exclusion", Safety, "a resource that refuses stale fences sees no lost update")                \
  X(HoldsAfterLoss, "holds-after-loss", Safety, "a recipe that said lost does not say it holds")                            \
  X(HonestExpiry, "honest-expiry", Safety, "SessionExpired only after an expiry; NoNode never after one")                   \
  X(QueueNoLoss, "queue-no-loss", Safety, "every item put is taken or still queued")                                        \
  X(QueueNoDuplicates, "queue-no-duplicates", Safety, "no item is delivered twice (at most once)")                          \
  X(QueueNoPhantoms, "queue-no-phantoms", Safety, "no item is taken that was never put")                                    \
  X(QueueFifo, "queue-fifo", Safety, "items are taken in the order they were put")                                          \
  X(ClaimExclusion, "claim-exclusion", Safety, "one consumer holds a locking queue's item at a time")                       \
  X(BarrierEnter, "barrier-enter", Safety, "nobody enters a double barrier before all came")                                \
  X(BarrierLeave, "barrier-leave", Safety, "nobody leaves a double barrier before all were leaving")                        \
  X(BarrierWait, "barrier-wait", Safety, "nobody passes a raised barrier")                                                  \
  X(Liveness, "liveness", Liveness, "once faults heal, every live waiter is served")                                        \
  X(Progress, "progress", Liveness, "without faults, waiters are served promptly")                                          \
  X(NoLeaks, "no-leaks", Efficiency, "no node or watch is left behind")                                                     \
  X(SequentialConsistency, "sequential-consistency", Safety, "a client's replies never go back to an older state")          \
  X(WatchOrder, "watch-order", Safety, "a change's watch event comes before later replies, in the changes' order")          \
  X(Runaway, "runaway", Liveness, "the run ends within its budget of steps")                                                \
  X(Crashed, "crashed", Safety, "the recipe does not crash the process (a signal, an abort, an exception it lets escape)")

enum class Severity : int { Safety, Liveness, Efficiency };

enum class Property : int {
#define ZKSIM_PROPERTY_ENUM(ID, NAME, CLASS, SUMMARY) ID,
  ZKSIM_PROPERTIES(ZKSIM_PROPERTY_ENUM)
#undef ZKSIM_PROPERTY_ENUM
};

inline constexpr int kProperties = 0
#define ZKSIM_PROPERTY_COUNT(ID, NAME, CLASS, SUMMARY) +1
    ZKSIM_PROPERTIES(ZKSIM_PROPERTY_COUNT)
#undef ZKSIM_PROPERTY_COUNT
    ;

// "mutual-exclusion"; a std::string, as Violation::property holds it.
const std::string& name(Property p);
std::string_view summary(Property p);
std::optional<Property> property_named(std::string_view name);
Severity severity(Property p);
// By name: a custom family's own properties (recipe.h) count as safety.
Severity severity_of(std::string_view property);
// "safety", "liveness", "efficiency".
std::string_view severity_name(Severity s);
std::optional<Severity> severity_named(std::string_view name);

// Not a property: what a run reports when its workload cannot run.
inline constexpr std::string_view kBadWorkload = "bad-workload";

}  // namespace zksim::scenarios
