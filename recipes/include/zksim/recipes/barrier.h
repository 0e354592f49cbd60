// Barriers (ZooKeeper's recipes).
//
// Barrier: a node that holds clients back while it exists. A coordinator
// raise()s it; members wait() until it is lowered (the node deleted).
//
// DoubleBarrier: N members enter together and leave together. enter()
// creates the member's ephemeral node under `dir` and returns once N are
// there (the N-th creates "<dir>/ready"); leave() deletes it and returns
// once every member's node is gone. Nobody passes either side early.
//
//   zksim::recipes::DoubleBarrier round(zk, "/barriers/round-1", 5);
//   co_await round.enter();
//   ... compute with the other four ...
//   co_await round.leave();
//
// A DoubleBarrier directory serves one round: the last to leave deletes
// "ready"; reuse needs a new directory.
#pragma once

#include "zksim/client.h"

#include <string>

namespace zksim::recipes {

class Barrier {
 public:
  Barrier(Client& zk, std::string path);
  // Creates the barrier node (and its parents); Ok if it was already there.
  Task<Result<void>> raise();
  // Deletes the barrier node; Ok if it was already gone.
  Task<Result<void>> lower();
  // Returns once the barrier node does not exist (OperationTimeout after
  // `timeout_ms`, negative: no limit). Leaves no watch behind (a timeout
  // removes it; only a ConnectionLoss at that moment leaves it to fire once).
  Task<Result<void>> wait(TimeMs timeout_ms = -1);

 private:
  Client& zk_;
  std::string path_;
};

class DoubleBarrier {
 public:
  // REQUIRES: members >= 1.
  DoubleBarrier(Client& zk, std::string dir, int members);
  // Errors: OperationTimeout (our node is deleted again), session errors.
  Task<Result<void>> enter(TimeMs timeout_ms = -1);
  Task<Result<void>> leave(TimeMs timeout_ms = -1);
  static constexpr const char* kReady = "ready";

 private:
  Client& zk_;
  std::string dir_;
  int members_;
  std::string node_;  // our member node, once entered
};

}  // namespace zksim::recipes
