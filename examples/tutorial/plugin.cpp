// The tutorial's four locks (locks.h) as a zksim plugin:
//   zksim explore --plugin build/examples/tutorial/libtutorial_locks.so --recipe tutorial/1-one-node ...
#include "locks.h"
#include "zksim/scenarios/plugin.h"

namespace {

template <tutorial::Step kStep>
zksim::scenarios::Recipe step(std::string name, std::string summary) {
  zksim::scenarios::Recipe r;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.family = zksim::scenarios::RecipeFamily::Lock;
  // The last step tells its holder of a lost session: the harness then
  // judges what the holder believes after it was told, too.
  r.traits.tells_loss = kStep >= tutorial::Step::Told;
  r.make_lock = [](const zksim::scenarios::HandleContext& c) {
    return zksim::scenarios::exclusive<tutorial::Lock<kStep>>(c.zk, c.dir, c.on_hold);
  };
  return r;
}

std::vector<zksim::scenarios::Recipe> recipes() {
  using tutorial::Step;
  return {step<Step::OneNode>("tutorial/1-one-node", "one node for everyone, every waiter watching it"),
          step<Step::Sequential>("tutorial/2-sequential", "a sequential node each, watching the one below"),
          step<Step::Protected>("tutorial/3-protected", "and a unique id in each name, so a lost create is found"),
          step<Step::Told>("tutorial/4-told", "and the holder listens to its session")};
}

}  // namespace

ZKSIM_PLUGIN("tutorial-locks", recipes)
