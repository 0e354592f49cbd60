// zksim explore: exploration of one recipe by a search strategy (seeded
// random runs, the same with fixed latency, or a bounded depth-first
// search); shrinks and writes down the first run that violated each property.
#include "campaign_json.h"
#include "commands.h"
#include "common.h"
#include "progress.h"
#include "report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace zksim::cli {

namespace {

// Dfs defaults: a small configuration, and a cap on schedules (2 clients,
// no faults: 3^12 = 531,441 schedules within depth 12, about 30 s here).
constexpr std::int64_t kDefaultDepth = 12;
constexpr std::int64_t kDefaultDfsClients = 2;
constexpr std::int64_t kDefaultDfsRuns = 100'000;

// "  random         seeded runs, ...", a line per strategy.
std::string strategy_lines() {
  std::string out;
  for (const std::string& name : scenarios::strategy_names()) {
    out += fmt::format("  {:<13}  {}\n", name, scenarios::strategy_summary(*scenarios::strategy_named(name)));
  }
  return out;
}

}  // namespace

CommandSpec explore_spec() {
  return CommandSpec{
      .name = "explore",
      .summary = "explore one recipe under generated schedules and faults; shrink what fails",
      .options =
          {{"--recipe", "NAME", "the recipe to drive (see 'zksim list'); required"},
           {"--clients", "N", fmt::format("clients taking part (default 4; dfs: {}, at most {})", kDefaultDfsClients, kMaxDfsClients)},
           {"--rounds", "N", "acquisitions (or items, rounds) per client (default 4)"},
           {"--client", "FLAVOURS", "the client library the clients behave like: c (default; a flawed recipe: the one that exposes it), curator, kazoo, a list (c,curator,kazoo: client i takes the (i mod n)th), or any (each run draws them: all c, all curator, all kazoo, or the three in turn)"},
           {"--hold-ms", "MS", "time inside the critical section (default 5; a flawed recipe: its own)"},
           {"--servers", "N", "servers in the ensemble, server 0 the first leader (default 1, or 3 with a fault class of the ensemble; see docs/ensemble.md)"},
           {"--faults", "CLASS,...", "fault classes of the nemesis, or 'none' (default none; a flawed recipe: the one that exposes it)"},
           {"--rate", "PER_MILLE", "chance per request (a time-triggered class: per simulated second) of each fault class striking, in 1/1000 (default 30)"},
           {"--varied", "", "varied workloads: each client's operation sequence is drawn per run (try-locks and timeouts from 0, nesting, read then write, downgrades, a second handle on its session; a flawed recipe that needs them: on)"},
           {"--swarm", "", "swarm testing: each run draws which of the fault classes stay on (all ten of one server unless --faults names some) and which workload features it adds (reentrancy, timeouts from 0, long holds, varied sequences)"},
           {"--strategy", "NAME", "how runs choose their decisions: random (default), fixed-latency, dfs (see below)"},
           {"--depth", "D", fmt::format("dfs: decisions explored per run (default {}, at most {}); pct: the bug depth d, d - 1 priority changes a run (default {}, at most {})",
                                        kDefaultDepth, kMaxDfsDepth, scenarios::kDefaultPctDepth, kMaxPctDepth)},
           {"--runs", "N", fmt::format("runs to make (default 200; dfs: {}, fewer if every schedule ran)", kDefaultDfsRuns)},
           {"--time", "SECONDS", "instead of --runs: run until this much wall-clock time has passed"},
           {"--seed", "S", "run i is seeded with S + i (default 1; not for dfs)"},
           {"--jobs", "N", "child processes making runs in parallel (default 1); same results for any N"},
           {"--shard", "I/N", "only the runs i with i mod N = I, to fan a campaign out; see 'zksim merge'"},
           {"--out", "DIR", "where scenario files go (default: failures)"},
           {"--shrink-runs", "N", "most runs spent shrinking each violation (default 2000; 0: written as found)"},
           {"--json", "", "print the report as JSON"}},
      .details =
          "Strategies:\n" + strategy_lines() +
          "dfs searches small configurations (at most " + std::to_string(kMaxDfsClients) +
          " clients). At a nemesis decision it tries no fault\n"
          "and each fault class once. It says whether it ran every schedule within the depth\n"
          "('exhausted') or stopped at --runs or --time first; it has no seed, and runs in one\n"
          "process (no --jobs or --shard). Its run i is schedule i, in search order.\n"
          "\n"
          "Each run is recorded; the first run (lowest index) that violated each property is\n"
          "shrunk (chunks of its decision list removed, values lowered toward 0, keeping the\n"
          "violation) and written to DIR/<recipe>.<property>.seed<S>.scn (fixed-latency:\n"
          "...fixed-latency-seed<S>.scn; dfs: ...dfs-schedule<N>.scn, with 'strategy' lines\n"
          "saying so), with the command that replays it. On a terminal, stderr shows a live\n"
          "line: runs, runs/s, probes reached (coverage probe names hit so far), violations\n"
          "(runs that violated something).\n"
          "Exit status: 0 no violation, 1 a violation found, 2 bad input."};
}

namespace {

Campaign campaign_from(const Args& a) {
  if (!a.has("--recipe")) throw UsageError("zksim explore: --recipe NAME is required (see 'zksim list')");
  Campaign c;
  const std::string recipe = a.text("--recipe", "");
  const auto& all = scenarios::recipe_names();
  if (std::find(all.begin(), all.end(), recipe) == all.end()) {
    throw UsageError(fmt::format("zksim explore --recipe: unknown recipe '{}' (known: {})", recipe, fmt::join(all, ", ")));
  }
  if (a.has("--runs") && a.has("--time")) throw UsageError("zksim explore: give --runs or --time, not both");
  const std::string strategy = a.text("--strategy", "random");
  if (const std::optional<scenarios::Strategy> s = scenarios::strategy_named(strategy)) {
    c.strategy = *s;
  } else {
    throw UsageError(fmt::format("zksim explore --strategy: unknown strategy '{}' (known: {})", strategy,
                                 fmt::join(scenarios::strategy_names(), ", ")));
  }
  const bool dfs = c.strategy == scenarios::Strategy::Dfs;
  const bool pct = c.strategy == scenarios::Strategy::Pct;
  if (a.has("--depth") && !dfs && !pct) throw UsageError("zksim explore --depth: only with --strategy dfs or pct");
  c.workload.recipe = recipe;
  c.workload.clients = static_cast<int>(a.integer("--clients", dfs ? kDefaultDfsClients : 4, 1, 100));
  c.workload.rounds = static_cast<int>(a.integer("--rounds", 4, 1, 10'000));
  const auto rate = static_cast<std::uint32_t>(a.integer("--rate", 30, 0, 1000));
  const scenarios::FlawedRecipe* flaw = flaw_of(recipe);
  if (flaw && !a.has("--faults")) {
    c.config = flaw->config();
    if (a.has("--rate")) {
      for (std::uint32_t& r : c.config.nemesis.per_mille) r = r ? rate : 0;
    }
    c.workload.hold_ms = flaw->hold_ms;
  } else if (a.flag("--swarm") && !a.has("--faults")) {
    // The classes of one server; the ensemble's join with --faults.
    std::vector<int> every(kClientFaultClasses);
    std::iota(every.begin(), every.end(), 0);
    c.config = nemesis_config(every, rate);
  } else {
    c.config = nemesis_config(parse_fault_classes("zksim explore --faults", a.text("--faults", "none")), rate);
  }
  c.workload.swarm = a.flag("--swarm");
  c.workload.varied = a.flag("--varied") || (flaw && flaw->varied);
  const scenarios::ClientChoice clients = parse_clients("zksim explore --client", a.text("--client", flaw ? std::string(flavour_name(flaw->flavour)) : "c"));
  c.workload.flavours = clients.flavours;
  c.workload.draw_flavours = clients.drawn;
  c.workload.hold_ms = a.integer("--hold-ms", c.workload.hold_ms, 0, 3'600'000);
  c.config.servers = static_cast<int>(a.integer("--servers", c.config.servers, 1, 9));
  c.config = scenarios::strategy_config(c.strategy, c.config);
  c.faults = fault_label(c.config);
  if (dfs) {
    if (c.workload.clients > kMaxDfsClients) {
      throw UsageError(fmt::format("zksim explore --strategy dfs: {} clients are too many for an exhaustive search (at most {})",
                                   c.workload.clients, kMaxDfsClients));
    }
    if (a.has("--seed")) throw UsageError("zksim explore --strategy dfs: --seed does not apply (the search draws nothing at random)");
    c.depth = static_cast<std::size_t>(a.integer("--depth", kDefaultDepth, 1, kMaxDfsDepth));
    c.seed = 0;
  } else {
    if (pct) c.depth = static_cast<std::size_t>(a.integer("--depth", scenarios::kDefaultPctDepth, 1, kMaxPctDepth));
    c.seed = a.unsigned64("--seed", 1);
  }
  c.runs = a.has("--time") ? 0 : a.integer("--runs", dfs ? kDefaultDfsRuns : 200, 1, 1'000'000'000);
  if (std::string why = scenarios::workload_problem(c.workload, c.config); !why.empty()) {
    throw UsageError(fmt::format("zksim explore: {}", why));
  }
  return c;
}

}  // namespace

int explore_main(const Args& args) {
  const Campaign c = campaign_from(args);
  const Shard shard = args.has("--shard") ? parse_shard("zksim explore --shard", args.text("--shard", "")) : Shard{};
  const std::optional<double> seconds = args.has("--time") ? std::optional<double>(args.seconds("--time")) : std::nullopt;
  const int jobs = static_cast<int>(args.integer("--jobs", 1, 1, 64));
  const int shrink_runs = static_cast<int>(args.integer("--shrink-runs", 2000, 0, 1'000'000));
  const std::string out_dir = args.text("--out", "failures");
  if (c.strategy == scenarios::Strategy::Dfs && (args.has("--shard") || jobs > 1)) {
    throw UsageError("zksim explore --strategy dfs: --jobs and --shard do not apply (each schedule of the search follows from the one before)");
  }

  check_output_dir("zksim explore --out", out_dir);
  ProgressLine line(stderr_is_terminal());
  const std::string what = fmt::format("explore {}", c.workload.recipe);
  ExploreOptions o{.shard = shard, .seconds = seconds, .jobs = jobs};
  o.progress = [&](std::size_t, const std::vector<CampaignResult>& p) {
    line.show(what, p[0].runs, p[0].probes_reached(), p[0].violating_runs);
  };
  CampaignResult r = explore_or_stop("zksim explore", {c}, o)[0];
  for (auto& [property, f] : r.findings) {
    line.show(fmt::format("shrinking {}", property), r.runs, r.probes_reached(), r.violating_runs);
    shrink_and_write(c, f, fmt::format("{}/{}.{}.{}.scn", out_dir, file_stem(c.workload.recipe), property, finding_label(c, f)),
                   shrink_runs);
  }
  line.clear();
  if (args.flag("--json")) {
    print_json(explore_document(campaign_json(c), {shard}, r));
  } else {
    std::fputs(explore_text(campaign_json(c), {shard}, r).c_str(), stdout);
  }
  return r.findings.empty() ? 0 : 1;
}

}  // namespace zksim::cli
