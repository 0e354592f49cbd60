// Runs the lock recipe through the installed harness and checks that no
// property is violated; uses the core vocabulary (paths, errors) directly.
#include "zksim/decision.h"
#include "zksim/error.h"
#include "zksim/path.h"
#include "zksim/scenarios/workload.h"

#include <cstdio>

int main() {
  if (zksim::validate_path("/lock") != zksim::Error::Ok ||
      zksim::validate_path("lock") != zksim::Error::BadArguments) {
    std::puts("consumer: validate_path is wrong");
    return 1;
  }
  zksim::scenarios::Workload wl{.recipe = "lock", .clients = 3, .rounds = 5};
  zksim::SeededDecisions decisions(7);
  auto r = zksim::scenarios::run(wl, decisions, {});
  for (const auto& v : r.violations) std::printf("consumer: violation %s\n", v.property.c_str());
  if (!r.violations.empty() || r.completed_rounds != wl.clients * wl.rounds) {
    std::printf("consumer: %zu violations, %d of %d rounds\n", r.violations.size(), r.completed_rounds,
                wl.clients * wl.rounds);
    return 1;
  }
  std::printf("consumer: lock, %d rounds, no violation (%s)\n", r.completed_rounds,
              std::string(zksim::error_name(zksim::Error::Ok)).c_str());
  return 0;
}
