// A counting semaphore with N leases (the shape of Curator's
// InterProcessSemaphoreV2, done with one directory): each acquire creates
// an ephemeral-sequential node "…lease-<seq>"; the first N nodes in
// sequence order hold leases; a waiter at position i >= N waits for the
// node at position i - N, the one whose deletion can first let it in. A
// node's position only ever decreases, so at most N hold at any time.
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

  // One lease per call; one object may hold several. Errors as Lock::acquire.
  Task<Result<Grant>> acquire(TimeMs timeout_ms = -1);
  // BadArguments if `lease` is not one this object holds.
  Task<Result<void>> release(Grant lease);  // by value: the Task may outlive the caller's object

  // Leases held, 0 once the session is lost.
  int held() const;
  int leases() const { return leases_; }
  static constexpr const char* kMarker = "lease-";

 private:
  Client& zk_;
  std::string dir_;
  int leases_;
  std::vector<Grant> held_;
  std::unique_ptr<detail::HoldTracker> tracker_;
};

}  // namespace zksim::recipes
