// Runs a lease lock under a workload and a nemesis in the lease world and
// judges the run. Every client process loops: acquire, write twice to a
// shared resource (a storage service that, for a fenced recipe, refuses a
// token lower than one it has seen), release.
//
// Properties:
// - resource-exclusion: the resource's accepted writes of two holds never
//   interleave. Only fencing keeps it when a holder outlives its lease.
// - belief-exclusion: no two processes believe they hold the lock at once,
//   except where one's lease had ended before the overlap although the
//   server last spoke to it while the lease lasted: the classic lease
//   failure, which no lease lock can avoid and fencing makes harmless.
// - lease-kept: a holder that was neither paused nor cut off from renewing
//   (nor slowed by its clock) finds the lock still its own when it
//   releases it.
// - liveness: every process finishes its rounds within the time limit.
// - herd-effect, for a herd-free recipe: no change wakes two waiters whose
//   leases lasted (checkers.h: check_herd).
#pragma once

#include "zksim/decision.h"
#include "zksim/lease/checkers.h"
#include "zksim/trace.h"
#include "zksim/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::lease {

// The nemesis's fault classes; each strikes a process at a strike point
// (before an acquire, once it holds, before a release) with the workload's
// rate:
// - pause: the process stops for longer than the lease;
// - keepalive-loss: its next keepalives (etcd) or requests (Redis: the
//   watchdog's renewals) are lost on the way, for longer than the lease;
// - lost-reply: the reply to its next call is lost (the call ran);
// - lost-message: the next pub/sub message to it is lost;
// - restart: a Redis node restarts and is back within half a lease, its
//   unsaved keys lost (Redis without fsync'd persistence);
// - clock-jump: a Redis node's clock jumps forward by more than a lease;
// - clock-drift: the process's clocks run 20-50% slow from then on, far
//   past the 1% RedLock allows for (an NTP slew, a stalled VM clock).
// Restart and clock-jump strike Redis nodes only: etcd's members keep their
// state.
enum class LeaseFault : std::uint8_t { Pause, KeepAliveLoss, LostReply, LostMessage, Restart, ClockJump, ClockDrift };
inline constexpr LeaseFault kLeaseFaults[] = {LeaseFault::Pause,      LeaseFault::KeepAliveLoss, LeaseFault::LostReply,
                                              LeaseFault::LostMessage, LeaseFault::Restart,      LeaseFault::ClockJump,
                                              LeaseFault::ClockDrift};
struct LeaseRecipe {
  std::string name;
  bool etcd = false;      // else Redis
  int redis_nodes = 1;    // independent Redis nodes (RedLock: 5)
  bool fenced = false;    // the resource checks its tokens
  bool renews = false;    // it renews its lease while held (a watchdog, keepalives)
  // Each waiter waits for one change only (etcd: its predecessor's key), so
  // the property herd-effect is judged.
  bool herd_free = false;
  std::string breaks;     // a flawed recipe: the property it breaks; else ""
  LeaseFault exposed_by = LeaseFault::Pause;  // a flawed recipe: the fault class that shows its flaw
};
const std::vector<LeaseRecipe>& lease_recipes();
// nullptr when there is no such recipe.
const LeaseRecipe* find_lease_recipe(const std::string& name);

const char* lease_fault_name(LeaseFault f);
// The fault class named `name`; nullopt when none is.
std::optional<LeaseFault> lease_fault_named(const std::string& name);

// Whether fault `f` can strike a run of `r` (restart and clock-jump strike
// Redis nodes only).
bool lease_fault_applies(const LeaseRecipe& r, LeaseFault f);

// The properties no lock of this kind can keep under fault `f`, from the
// literature on leases: without fencing, a holder that outlives its lease
// (a pause, renewals lost, its lease's state lost) writes after its
// successor; a Redis node that restarts without fsync'd persistence or
// whose clock jumps loses a lease it granted, so two hold it (RedLock's
// majority shrinks this but does not remove it), and a fencing counter on
// a restarted node starts again. The verdict table shows these as known,
// not as findings; a correct lock's run may break nothing else.
std::vector<std::string> known_losses(const LeaseRecipe& r, LeaseFault f);

struct LeaseWorkload {
  std::string recipe = "redis-set-nx";
  int clients = 3;
  int rounds = 3;
  TimeMs hold_ms = 0;  // 0: the recipe's own (see harness.cpp)
  TimeMs think_ms = 5;
  std::vector<LeaseFault> faults;
  int fault_per_mille = 0;
  TimeMs limit_ms = 120'000;
  // Render the run's trace into LeaseRun::trace (zksim lease, replays); a
  // campaign needs only its hash.
  bool keep_trace = false;
};

struct LeaseRun {
  std::vector<Violation> violations;
  bool finished = false;
  int holds = 0;          // acquires that succeeded
  int faults = 0;         // strikes
  // Pub/sub messages and watch events that reached a process
  // (World::wakeups), and the most waiters one change reached: measured for
  // every lock, judged (herd-effect) for the herd-free ones.
  int wakeups = 0;
  int worst_wakeups = 0;
  int worst_lasting_wakeups = 0;  // counting only waiters whose leases lasted
  std::uint64_t trace_hash = 0;
  // With keep_trace: one line per event ("t=12     p1  -> redis0 SET lock
  // p1:1 NX PX 300"), and what a picture of the run needs: the events, the
  // holds and each process's pauses.
  std::string trace;
  std::vector<TraceEvent> events;
  std::vector<LeaseHold> hold_list;
  std::vector<std::vector<std::pair<TimeMs, TimeMs>>> pauses;
};

// REQUIRES: find_lease_recipe(w.recipe).
LeaseRun run_lease(const LeaseWorkload& w, DecisionSource& decisions);

}  // namespace zksim::lease
