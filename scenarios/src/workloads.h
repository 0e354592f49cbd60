// Private: the per-recipe workload coroutines and the directories they use.
#pragma once

#include "zksim/scenarios/workload.h"

namespace zksim::scenarios::detail {

inline const std::string kDir = "/zksim/recipe";

// What a workload leaves for the runner to check.
struct Shared {
  const Server* server = nullptr;   // ground truth, read at each grant
  std::vector<ServerGrant> grants;
  History history;
  FencedCounter counter;
  int completed_rounds = 0;
};

// Spawns the workload's clients in `world`; false if the recipe is unknown.
bool spawn_lock_family(World& world, const Workload& w, Shared& shared);

}  // namespace zksim::scenarios::detail
