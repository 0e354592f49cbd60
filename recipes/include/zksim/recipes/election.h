// Leader election (ZooKeeper's recipe): each candidate creates an
// ephemeral-sequential node "…n_<seq>" holding its id; the lowest is the
// leader; every other candidate watches only its predecessor. Leadership
// lasts only while the candidate's node exists and belongs to its current
// session: is_leader() turns false when the session is lost, and verify()
// asks the server.
//
//   zksim::recipes::LeaderElection election(zk, "/election/svc", "host-7");
//   if (co_await election.campaign()) {
//     while (election.is_leader()) co_await lead_one_step();
//     co_await election.resign();
//   }
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <string>

namespace zksim::recipes {

class LeaderElection {
 public:
  LeaderElection(Client& zk, std::string dir, std::string id, HoldListener on_hold = {});

  // Waits until this candidate leads (the Grant's fence is its epoch), or
  // `timeout_ms` passes (OperationTimeout; the candidacy is withdrawn).
  // Errors as Lock::acquire.
  Task<Result<Grant>> campaign(TimeMs timeout_ms = -1);
  // Steps down (or withdraws): deletes the node, across connection losses.
  Task<Result<void>> resign();

  bool is_leader() const { return lock_.holds(); }
  // Asks the server whether our node still exists and belongs to our
  // current session.
  Task<Result<bool>> verify();
  // The id of the current leader; NoNode when there is no candidate.
  Task<Result<std::string>> leader();
  static constexpr const char* kMarker = "n_";

 private:
  Client& zk_;
  std::string dir_;
  Lock lock_;
};

}  // namespace zksim::recipes
