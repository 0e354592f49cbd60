// zksim lease: one run of a lease lock, with its trace and verdict: how a
// cell of the matrix's lease table replays; --save writes it down as a
// lease scenario file (shrunk when it lost a property).
#include "commands.h"
#include "common.h"
#include "lease_table.h"
#include "zksim/scenarios/lease_scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace zksim::cli {

CommandSpec lease_spec() {
  return CommandSpec{
      .name = "lease",
      .summary = "one run of a lease lock (Redis, etcd) with its trace: a cell of the matrix's lease table",
      .options = {{"--recipe", "NAME", "the lease lock (see 'zksim list')"},
                  {"--faults", "CLASS", "none (the default) or one lease fault class"},
                  {"--seed", "S", "the run's seed (default 1)"},
                  {"--save", "FILE", "write the run as a lease scenario file ('zksim replay FILE' replays it)"},
                  {"--shrink-runs", "N", "with --save: most runs spent shrinking a lost property (default 2000; 0: "
                                         "the seed as found)"}},
      .details = "Runs the lease lock as the matrix's cell for that fault class does (three clients, three\n"
                 "rounds, the nemesis at 150 per 1000 strike points), prints every event of the run and\n"
                 "then each property it lost, marked 'known' when no lock of its kind can keep it.\n"
                 "With --save, a run that lost a property is shrunk to the fewest decisions that still\n"
                 "lose it (the first one not known, else the first) and written expecting that loss.\n"
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
  if (fault != "none" && !lease::lease_fault_named(fault)) {
    throw UsageError(fmt::format("zksim lease --faults: unknown lease fault class '{}' (known: {})", fault,
                                 fmt::join(lease_fault_configs(), ", ")));
  }
  const int shrink_runs = static_cast<int>(args.integer("--shrink-runs", 2000, 0, 1'000'000));
  if (args.has("--save")) check_output_file("zksim lease --save", args.text("--save", ""));
  const std::uint64_t seed = args.unsigned64("--seed", 1);
  SeededDecisions d(seed);
  lease::LeaseWorkload w = lease_cell_workload(name, fault);
  w.keep_trace = true;
  const lease::LeaseRun run = lease::run_lease(w, d);
  std::fputs(run.trace.c_str(), stdout);
  const std::optional<lease::LeaseFault> f = lease::lease_fault_named(fault);
  const std::vector<std::string> known = f ? lease::known_losses(*recipe, *f) : std::vector<std::string>{};
  const Violation* first_finding = nullptr;
  for (const Violation& v : run.violations) {
    const bool is_known = std::ranges::count(known, v.property) > 0;
    if (!is_known && !first_finding) first_finding = &v;
    std::puts(fmt::format("{} {}: {}", is_known ? "lost (known)" : "LOST", v.property, v.message).c_str());
  }
  std::puts(fmt::format("{} holds, {} faults, trace {:016x}", run.holds, run.faults, run.trace_hash).c_str());
  if (args.has("--save")) {
    const std::string path = args.text("--save", "");
    scenarios::LeaseScenario s{.workload = w, .seed = seed};
    s.workload.keep_trace = false;
    s.comments.push_back(fmt::format("zksim lease --recipe {} --faults {} --seed {}", name, fault, seed));
    const Violation* lost = first_finding ? first_finding : run.violations.empty() ? nullptr
                                                                                              : &run.violations.front();
    if (lost) s.expect_violation = lost->property;
    if (lost && shrink_runs > 0) {
      const scenarios::ShrunkLease shrunk = scenarios::shrink_lease_scenario(s, lost->property, shrink_runs);
      s = shrunk.scenario;
      s.comments.push_back(fmt::format("shrunk in {} runs to {} decisions: {}", shrunk.runs, s.decisions.size(),
                                       shrunk.violation.message));
    }
    write_output_file("zksim lease --save", path, scenarios::write_lease_scenario(s));
    std::puts(fmt::format("wrote {} (expect {}); replay: {} replay {}", path,
                          s.expect_violation ? "violation " + *s.expect_violation : std::string("pass"),
                          program_command(), path)
                  .c_str());
  }
  return first_finding ? 1 : 0;
}

}  // namespace zksim::cli
