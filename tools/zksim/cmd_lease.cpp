// zksim lease: one run of a lease lock, with its trace and verdict: how a
// cell of the matrix's lease table replays.
#include "commands.h"
#include "common.h"
#include "lease_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace zksim::cli {

CommandSpec lease_spec() {
  return CommandSpec{
      .name = "lease",
      .summary = "one run of a lease lock (Redis, etcd) with its trace: a cell of the matrix's lease table",
      .options = {{"--recipe", "NAME", "the lease lock (see 'zksim list')"},
                  {"--faults", "CLASS", "none (the default) or one lease fault class"},
                  {"--seed", "S", "the run's seed (default 1)"}},
      .details = "Runs the lease lock as the matrix's cell for that fault class does (three clients, three\n"
                 "rounds, the nemesis at 150 per 1000 strike points), prints every event of the run and\n"
                 "then each property it lost, marked 'known' when no lock of its kind can keep it.\n"
                 "Exit status: 0 when the run lost nothing but known losses, 1 otherwise."};
}

int lease_main(const Args& args) {
  if (!args.has("--recipe")) throw UsageError("zksim lease: --recipe is required");
  const std::string name = args.text("--recipe", "");
  const lease::LeaseRecipe* recipe = lease::find_lease_recipe(name);
  if (!recipe) {
    std::vector<std::string> known;
    for (const lease::LeaseRecipe& r : lease::lease_recipes()) known.push_back(r.name);
    throw UsageError(fmt::format("zksim lease --recipe: unknown lease lock '{}' (known: {})", name,
                                 fmt::join(known, ", ")));
  }
  const std::string fault = args.text("--faults", "none");
  if (fault != "none" && !lease_fault_of(fault)) {
    throw UsageError(fmt::format("zksim lease --faults: unknown lease fault class '{}' (known: {})", fault,
                                 fmt::join(lease_fault_configs(), ", ")));
  }
  SeededDecisions d(args.unsigned64("--seed", 1));
  lease::LeaseWorkload w = lease_cell_workload(name, fault);
  w.keep_trace = true;
  const lease::LeaseRun run = lease::run_lease(w, d);
  std::fputs(run.trace.c_str(), stdout);
  const std::optional<lease::LeaseFault> f = lease_fault_of(fault);
  const std::vector<std::string> known = f ? lease::known_losses(*recipe, *f) : std::vector<std::string>{};
  bool finding = false;
  for (const lease::LeaseViolation& v : run.violations) {
    const bool is_known = std::ranges::count(known, v.property) > 0;
    finding = finding || !is_known;
    std::puts(fmt::format("{} {}: {}", is_known ? "lost (known)" : "LOST", v.property, v.message).c_str());
  }
  std::puts(fmt::format("{} holds, {} faults, trace {:016x}", run.holds, run.faults, run.trace_hash).c_str());
  return finding ? 1 : 0;
}

}  // namespace zksim::cli
