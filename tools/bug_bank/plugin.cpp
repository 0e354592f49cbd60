// zksim_bug_bank: real bugs of ZooKeeper's, Curator's and kazoo's recipes,
// ported to zksim's client API and registered as flawed recipes
// ("bank/<library>-<tracker id>-<what>"), and Curator 4.2's mutex, correct
// by its own contract. scripts/bug_bank.sh measures what zksim's default
// search finds of them; README.md lists them with their sources.
#include "bank.h"
#include "zksim/scenarios/plugin.h"

namespace {

std::vector<zksim::scenarios::Recipe> bank_recipes() {
  std::vector<zksim::scenarios::Recipe> out;
  for (auto* part : {&bank::zookeeper_bugs, &bank::curator_bugs, &bank::kazoo_bugs}) {
    for (auto& r : part()) out.push_back(std::move(r));
  }
  out.push_back(bank::curator42_mutex());
  return out;
}

}  // namespace

ZKSIM_PLUGIN("zksim-bug-bank", bank_recipes)
