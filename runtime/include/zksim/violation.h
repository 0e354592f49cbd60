// What a checker found: a property broken, said in one sentence, by whom
// and when. The one type of every system's checkers: the ZooKeeper
// recipes' (zksim/scenarios/checkers.h) and the lease locks'
// (zksim/lease/checkers.h).
#pragma once

#include "zksim/types.h"

#include <string>
#include <vector>

namespace zksim {

struct Violation {
  std::string property;     // e.g. "mutual-exclusion"
  std::string message;      // what happened, in one sentence
  std::vector<int> clients; // the clients (a lease lock's processes) involved
  TimeMs time = 0;          // when it showed; -1: about the whole run
};

}  // namespace zksim
