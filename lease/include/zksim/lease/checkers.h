// The lease-lock properties (harness.h) as checks of a history, so that
// each is tested on histories that must pass and histories that must fail.
#pragma once

#include "zksim/types.h"
#include "zksim/violation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::lease {

inline constexpr TimeMs kNever = INT64_MAX;

// One hold, in true time.
struct LeaseHold {
  int process = 0;
  int number = 0;              // the process's n-th round
  TimeMs asked = 0;            // acquire called
  TimeMs start = 0;            // acquire returned
  TimeMs end = kNever;         // release called (kNever: never)
  TimeMs grounded = -1;        // server time of the last message the process had from a server
  TimeMs lease_end = kNever;   // the end of the lease it held when it acquired
  // The process was paused while that lease ran out, before the hold began
  // (a pause no process can see).
  bool paused_as_lease_ended = false;
  // release() said the lock was no longer its own.
  bool lost_at_release = false;
  // A pause or a loss of renewals struck the process between its acquire
  // call and its release.
  bool cut_off = false;
};


// A waiter heard of a change: a pub/sub message or a watch event reached
// its process.
struct LeaseWakeup {
  // What caused it: one command's publications (one per subscriber) share
  // it, and so do the events of one etcd revision.
  std::uint64_t change = 0;
  int process = 0;
  TimeMs time = 0;
  // The process's lease still lasted. One whose lease ran out while it
  // waited has no place in the queue; an etcd watch outlives the lease, so
  // it still hears the change, which only shows it that.
  bool lease_lasted = true;
};

// herd-effect: no change woke two waiters whose leases lasted.
std::optional<Violation> check_herd(const std::vector<LeaseWakeup>& wakeups);
// The most waiters one change woke (measured, not judged); with
// `lasted_only`, counting only those whose leases lasted.
int worst_wakeups(const std::vector<LeaseWakeup>& wakeups, bool lasted_only = false);

// `writes`: the holds (indexes into `holds`) of the writes the resource
// accepted, in order. A hold's writes must not come after another hold's.
std::optional<Violation> check_resource_exclusion(const std::vector<LeaseHold>& holds,
                                                       const std::vector<int>& writes);
// No two processes' holds overlap, except where one's lease had ended
// before the overlap began (lease_end <= overlap start) and either the
// server last spoke to it while the lease lasted (grounded <= lease_end) or
// it was paused as the lease ended: the classic lease failure.
std::optional<Violation> check_belief_exclusion(const std::vector<LeaseHold>& holds);

// A holder that was not cut off still owns the lock when it releases it.
std::optional<Violation> check_lease_kept(const std::vector<LeaseHold>& holds);

}  // namespace zksim::lease
