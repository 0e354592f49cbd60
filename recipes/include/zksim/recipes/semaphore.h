// A counting semaphore with N leases, as Curator's InterProcessSemaphoreV2
// does it: an acquirer takes an internal lock (a Lock under `dir`/locks),
// creates a protected ephemeral-sequential lease node under `dir`/leases,
// and, while more than N lease nodes stand, waits for any change among
// them (a child watch); then it releases the lock. Only the lock's holder
// waits on the leases, so a release wakes one waiter, and any lease freed
// lets it in (waiting for one particular node, the N-th ahead, would leave
// a lease idle when a nearer holder releases first).
//
//   zksim::recipes::Semaphore pool(zk, "/leases/db", 3);
//   if (auto lease = co_await pool.acquire(1000)) {
//     ... use one of the 3 connections ...
//     co_await pool.release(*lease);
//   }
//
// Every client must use the same N for the same directory.
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <memory>
#include <string>
#include <vector>

namespace zksim::recipes {

class Semaphore {
 public:
  // REQUIRES: leases >= 1 (otherwise every acquire fails with BadArguments).
  Semaphore(Client& zk, std::string dir, int leases, HoldListener on_hold = {});
  ~Semaphore();
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  // One lease per call; one object may hold several, acquired one at a
  // time. Errors as Lock::acquire (OperationTimeout when `timeout_ms`, for
  // the lock and the wait together, runs out).
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  // BadArguments if `lease` is not one this object holds.
  Task<Result<void>> release(Grant lease);  // by value: the Task may outlive the caller's object

  // Leases held, 0 once the session is lost.
  int held() const;
  int leases() const { return leases_; }
  static constexpr const char* kMarker = "lease-";
  // The directories under `dir`: the internal lock's and the leases'.
  static constexpr const char* kLocks = "locks";
  static constexpr const char* kLeases = "leases";

 private:
  Client& zk_;
  std::string leases_dir_;
  int leases_;
  Lock lock_;
  std::vector<Grant> held_;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

}  // namespace zksim::recipes
