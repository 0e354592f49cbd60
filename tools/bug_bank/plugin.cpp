// zksim_bug_bank: real bugs of ZooKeeper's, Curator's and kazoo's recipes,
// ported to zksim's client API and registered as flawed recipes
// ("bank/<library>-<tracker id>-<what>"), and Curator 4.2's mutex with the
// owner check CURATOR-604 lacks, correct by Curator's contract. scripts/bug_bank.sh measures what zksim's default
// search finds of them; README.md lists them with their sources.
#include "bank.h"
#include "zksim/scenarios/plugin.h"

namespace {

std::vector<zksim::scenarios::Recipe> bank_recipes() {
  std::vector<zksim::scenarios::Recipe> out;
  for (auto* part : {&bank::zookeeper_bugs, &bank::curator_bugs, &bank::kazoo_bugs, &bank::curator42_mutexes}) {
    for (auto& r : part()) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

ZKSIM_PLUGIN("zksim-bug-bank", bank_recipes)
