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
#include <set>

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
           {"--client", "FLAVOURS", "fix the client library the clients behave like: c, curator, kazoo, or a list (c,curator,kazoo or 'c curator kazoo': client i takes the (i mod n)th); any: drawn per run (the default)"},
           {"--hold-ms", "MS", "fix the time inside the critical section (drawn per run: 5, 300, 600 or 3000 ms)"},
           {"--servers", "N", "fix the servers in the ensemble, server 0 the first leader (drawn per run: 3 with a fault class of the ensemble, else 1 or 3; see docs/ensemble.md)"},
           {"--faults", "CLASS,...", "fix the fault classes of the nemesis (every run strikes with all of them), or 'none' (drawn per run from every class)"},
           {"--rate", "PER_MILLE", "fix each fault class's chance per request (a time-triggered class: per window of a round's time) of striking, in 1/1000, 1 to 1000 (drawn per run: 30, 100 or 300; no faults: --faults none)"},
           {"--varied", "", "fix varied workloads on: each client's operation sequence is drawn per run (try-locks and timeouts from 0, nesting, read then write, downgrades, a second handle on its session)"},
           {"--swarm", "", "with --faults: each run draws which of those classes stay on (as every run does from every class without --faults)"},
           {"--fixed", "", "draw nothing per run: what the options give, and for what they leave out no faults, c clients, a 5 ms hold, plain workloads, random schedules"},
           {"--sequence-start", "N", "fix where the sequence counters of the recipe's directories start: 0, new directories the recipe makes itself; else directories there before the run with this counter (drawn per run: 0, or in a quarter of the runs 2147483640, 2147483645 or 2147483647, where the counter stops)"},
           {"--strategy", "NAME", "fix how runs choose their decisions: random, fixed-latency, pct, dfs (drawn per run: random or pct; dfs draws nothing per run)"},
           {"--depth", "D", fmt::format("dfs: decisions explored per run (default {}, at most {}); pct: the bug depth d, d - 1 priority changes a run (default {}, at most {})",
                                        kDefaultDepth, kMaxDfsDepth, scenarios::kDefaultPctDepth, kMaxPctDepth)},
           {"--runs", "N", fmt::format("runs to make (default 1000; dfs: {}, fewer if every schedule ran)", kDefaultDfsRuns)},
           {"--time", "SECONDS", "instead of --runs: run until this much wall-clock time has passed"},
           {"--seed", "S", "run i is seeded with S + i (default 1; not for dfs)"},
           {"--jobs", "N", "child processes making runs in parallel (default 1); same results for any N"},
           {"--shard", "I/N", "only the runs i with i mod N = I, to fan a campaign out; see 'zksim merge'"},
           {"--out", "DIR", "where scenario files go (default: failures)"},
           {"--shrink-runs", "N", "most runs spent shrinking each violation (default 2000; 0: written as found)"},
           {"--json", "", "print the report as JSON"},
           {"--fail-on", "CLASSES", "the classes of property whose violations fail the run (exit 1): safety, liveness, efficiency or a list of them (default all three); the others are reported all the same"}},
      .details =
          "With no option each run draws, from its own seed, everything that applies to the\n"
          "recipe: 0, 1 or 2 of the fault classes and their rate (30, 100 or 300 per\n"
          "1000), one server or an ensemble of three (three with a class of the ensemble), the\n"
          "client libraries (c, curator, kazoo or the three in turn), the hold (5, 300, 600 or\n"
          "3000 ms), plain or varied operation sequences, reentrancy and timeouts, a random\n"
          "or pct schedule, and whether the recipe's directories start new or with their\n"
          "sequence counters near 2^31 (a quarter of the runs). An option fixes what it\n"
          "names and leaves the rest drawn; --fixed draws nothing. The header says what is\n"
          "drawn and what is fixed; a finding says what its run drew, and its scenario file\n"
          "writes that down, so it replays without the draw.\n"
          "The report counts how often each fault class struck and the calls that completed,\n"
          "and warns when a class never struck or no call completed.\n"
          "\n"
          "Strategies:\n" + strategy_lines() +
          "dfs searches small configurations (at most " + std::to_string(kMaxDfsClients) +
          " clients). At a nemesis decision it tries no fault\n"
          "and each fault class once. It says whether it ran every schedule within the depth\n"
          "('exhausted') or stopped at --runs or --time first; it has no seed, and runs in one\n"
          "process (no --jobs or --shard). Its run i is schedule i, in search order.\n"
          "\n"
          "Each run is recorded; the first run (lowest index) that violated each property is\n"
          "shrunk (chunks of its decision list removed, values lowered toward 0, keeping the\n"
          "violation) and written to DIR/<recipe>.<property>.seed<S>.scn (with --fixed, fixed-latency:\n"
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
  std::optional<scenarios::Strategy> strategy;
  if (a.has("--strategy")) {
    const std::string name = a.text("--strategy", "");
    strategy = scenarios::strategy_named(name);
    if (!strategy) {
      throw UsageError(fmt::format("zksim explore --strategy: unknown strategy '{}' (known: {})", name,
                                   fmt::join(scenarios::strategy_names(), ", ")));
    }
  }
  const bool dfs = strategy == scenarios::Strategy::Dfs;
  const bool pct = strategy == scenarios::Strategy::Pct;
  if (a.has("--depth") && !dfs && !pct) throw UsageError("zksim explore --depth: only with --strategy dfs or pct");
  c.workload.recipe = recipe;
  c.workload.clients = static_cast<int>(a.integer("--clients", dfs ? kDefaultDfsClients : 4, 1, 100));
  c.workload.rounds = static_cast<int>(a.integer("--rounds", 4, 1, 10'000));

  // What an option names is fixed; the rest each run draws (search.h).
  scenarios::SearchSpace space = scenarios::default_search();
  if (a.has("--faults")) {
    space.faults = parse_fault_classes("zksim explore --faults", a.text("--faults", ""));
    space.draw_faults = a.flag("--swarm");
  }
  if (a.has("--rate")) space.rate = static_cast<std::uint32_t>(a.integer("--rate", 30, 1, 1000));
  if (a.has("--servers")) space.servers = static_cast<int>(a.integer("--servers", 1, 1, 9));
  if (a.has("--client")) {
    const scenarios::ClientChoice clients = parse_clients("zksim explore --client", a.text("--client", ""));
    if (!clients.drawn) space.flavours = clients.flavours;
  }
  if (a.has("--hold-ms")) space.hold_ms = a.integer("--hold-ms", 5, 0, 3'600'000);
  if (a.flag("--varied")) space.varied = true;
  if (a.has("--sequence-start")) {
    space.sequence_start = static_cast<std::int32_t>(a.integer("--sequence-start", 0, INT32_MIN, INT32_MAX));
  }
  if (strategy) space.strategy = *strategy;
  if (space.servers && *space.servers < 2) {
    for (int k : space.faults) {
      if (!is_ensemble_class(k)) continue;
      throw UsageError(fmt::format("zksim explore: fault class {} strikes the servers of an ensemble, and --servers {} "
                                   "gives one server",
                                   fault_class_name(k), *space.servers));
    }
  }
  if (a.flag("--fixed") || dfs) {
    // Nothing drawn: what the options give, the most boring for the rest.
    std::vector<int> classes = a.has("--faults") ? space.faults : std::vector<int>{};
    c.config = nemesis_config(classes, space.rate.value_or(30));
    if (space.servers) c.config.servers = *space.servers;
    c.workload.flavours = space.flavours.value_or(std::vector<Flavour>{Flavour::C});
    c.workload.hold_ms = space.hold_ms.value_or(5);
    c.workload.varied = space.varied.value_or(false);
    c.workload.sequence_start = space.sequence_start.value_or(0);
    c.strategy = strategy.value_or(scenarios::Strategy::Random);
    c.config = scenarios::strategy_config(c.strategy, c.config);
    c.faults = fault_label(c.config);
  } else {
    if (a.has("--hold-ms")) c.workload.hold_ms = *space.hold_ms;
    c.search = space;
    if (strategy) c.strategy = *strategy;
    c.faults = space.draw_faults ? "drawn" : fault_label(nemesis_config(space.faults, 1));
  }
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
  c.runs = a.has("--time") ? 0 : a.integer("--runs", dfs ? kDefaultDfsRuns : 1000, 1, 1'000'000'000);
  // The largest run the campaign can draw must be able to run.
  scenarios::Workload largest = c.workload;
  WorldConfig largest_config = c.config;
  if (c.search) {
    largest.hold_ms = space.hold_ms.value_or(scenarios::kSearchHolds[std::size(scenarios::kSearchHolds) - 1]);
    largest.varied = space.varied.value_or(true);
    largest_config = nemesis_config(space.faults, 1);
  }
  if (std::string why = scenarios::workload_problem(largest, largest_config); !why.empty()) {
    throw UsageError(fmt::format("zksim explore: {}", why));
  }
  return c;
}

// --fail-on: the classes whose violations fail the run; all by default.
std::set<scenarios::Severity> parse_fail_on(const Args& args) {
  using scenarios::Severity;
  if (!args.has("--fail-on")) return {Severity::Safety, Severity::Liveness, Severity::Efficiency};
  std::set<Severity> out;
  for (const std::string& name : split(args.text("--fail-on", ""))) {
    const std::optional<Severity> s = scenarios::severity_named(name);
    if (!s) {
      throw UsageError(fmt::format("zksim explore --fail-on: no class '{}' (safety, liveness, efficiency)", name));
    }
    out.insert(*s);
  }
  if (out.empty()) throw UsageError("zksim explore --fail-on: name a class (safety, liveness, efficiency)");
  return out;
}

}  // namespace

int explore_main(const Args& args) {
  const Campaign c = campaign_from(args);
  const std::set<scenarios::Severity> fail_on = parse_fail_on(args);
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
  std::vector<std::string> spared;
  bool fails = false;
  for (const auto& [property, f] : r.findings) {
    if (fail_on.contains(scenarios::severity_of(property))) {
      fails = true;
    } else {
      spared.push_back(property);
    }
  }
  if (!spared.empty() && !args.flag("--json")) {
    fmt::print("not failing the run (--fail-on {}): {}\n", args.text("--fail-on", ""), fmt::join(spared, ", "));
  }
  return fails ? 1 : 0;
}

}  // namespace zksim::cli
