// The custom family: a recipe that drives its clients itself and judges the
// history they recorded (CustomFamily, recipe.h). The harness adds what it
// judges of every recipe: liveness (every call ended once the run
// settled), leaks, and runaway (in the runner).
#include "workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace zksim::scenarios {

Client& CustomRun::open(int i) {
  return world.open(fmt::format("c{}", i), workload.session_timeout_ms, -1, flavour_of(workload, i));
}

namespace detail {

namespace {

std::string spawn(World& world, const Workload& w, const Recipe& r, Shared& s) {
  s.world = &world;
  CustomRun run{world, w, s.history, kDir};
  return r.custom->spawn(run);
}

std::vector<std::string> properties(const Recipe& r) {
  std::vector<std::string> out = r.custom->properties;
  for (Property p : {Property::Liveness, Property::NoLeaks}) {
    if (std::find(out.begin(), out.end(), name(p)) == out.end()) out.push_back(name(p));
  }
  return out;
}

void check(World& world, const Workload&, const Recipe& r, Shared& s, RunResult& out) {
  std::vector<Violation>& v = out.violations;
  append(v, r.custom->check(s.history, world.server()));
  std::set<std::string> calls;
  for (const Op& o : s.history.ops()) calls.insert(o.f);
  append(v, check_no_pending(s.history, std::vector<std::string>(calls.begin(), calls.end())));
  append(v, check_no_leaks(nodes_left(world.server(), kDir, r.traits.node_dirs), world.server().watch_count()));
}

}  // namespace

Family custom_family() { return Family{{RecipeFamily::Custom}, spawn, properties, check}; }

}  // namespace detail
}  // namespace zksim::scenarios
