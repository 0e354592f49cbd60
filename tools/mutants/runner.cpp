// The mutant runner: linked with one mutated recipe source (zksim-mutant-ID)
// or with none (zksim-mutant-none, the control), it hunts for a violation
// of any property of the recipes the mutant changes: first with the
// default search (the matrix's campaigns and explore's, what a user runs
// with no option), then with campaigns that draw nothing under each search
// strategy (campaigns_of), the campaigns of a hunt taking turns run by run. The first violating run kills the
// mutant: it is reported with its property, strategy, fault class, the
// runs and wall-clock time it took, and its decision list shrunk.
//
// Wall-clock time is measured only, never fed into a run.
#include "../zksim/args.h"
#include "../zksim/common.h"
#include "../zksim/matrix.h"
#include "mutants_file.h"

#include "zksim/decision.h"
#include "zksim/scenarios/shrink.h"
#include "zksim/scenarios/strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

namespace zksim::mutants {

// Defined by the mutated source (zksim-mutate appends it), or "none".
extern const char* const kMutantId;

namespace {

using Clock = std::chrono::steady_clock;
using scenarios::Strategy;

// Dfs searches the explore command's small configuration.
constexpr std::size_t kDfsDepth = 12;
constexpr int kDfsClients = 2;

struct Kill {
  std::string recipe, fault, property, message;
  std::size_t decisions = 0, shrunk = 0;
  int shrink_runs = 0;
};

struct Hunt {
  std::optional<Strategy> strategy;  // none: the default search
  std::optional<Kill> kill;
  std::int64_t runs = 0;  // runs made, the killing one included
  double seconds = 0;     // wall time of those runs (not of shrinking)
};

struct Cell {
  cli::MatrixCampaign m;
  std::optional<scenarios::DfsSchedules> dfs;
  bool done = false;  // dfs: every schedule within the depth ran
};

// The campaigns of a hunt over `recipes`. With no strategy, the default
// search's: the matrix's (each fault configuration struck in every run,
// the rest drawn) and per recipe explore's (everything drawn). With one,
// runs drawing nothing but their clients' libraries: the matrix's
// campaigns with plain and with varied workloads, and per recipe a swarm
// campaign over the classes of one server (each run drawing which stay on
// and which workload features it adds), all under that strategy.
std::vector<cli::MatrixCampaign> campaigns_of(const std::vector<std::string>& recipes,
                                              const scenarios::ClientChoice& clients,
                                              std::optional<Strategy> strategy, std::int64_t budget) {
  cli::MatrixOptions o;
  o.recipes = recipes;
  o.check.faults = {"none"};
  for (int k = 0; k < kFaultClasses; ++k) o.check.faults.emplace_back(fault_class_name(k));
  o.check.runs = budget;
  if (!strategy) {
    if (!clients.drawn) o.check.search->flavours = clients.flavours;
    std::vector<cli::MatrixCampaign> campaigns = cli::matrix_campaigns(o);
    for (const std::string& recipe : recipes) {
      cli::MatrixCampaign m = campaigns.front();
      m.recipe = m.campaign.workload.recipe = recipe;
      m.fault = m.campaign.faults = "drawn";
      m.campaign.search = scenarios::default_search();
      m.campaign.search->flavours = o.check.search->flavours;
      campaigns.push_back(std::move(m));
    }
    return campaigns;
  }
  o.check.search.reset();
  std::vector<cli::MatrixCampaign> campaigns = cli::matrix_campaigns(o);
  for (cli::MatrixCampaign& m : cli::matrix_campaigns(o)) {
    m.fault += "+varied";
    m.campaign.workload.varied = true;
    campaigns.push_back(std::move(m));
  }
  // Swarm over the classes of one server (the ensemble's are in the matrix).
  std::vector<int> every(kClientFaultClasses);
  std::iota(every.begin(), every.end(), 0);
  for (const std::string& recipe : recipes) {
    cli::MatrixCampaign m = campaigns.front();  // the first recipe's, with no faults
    m.recipe = m.campaign.workload.recipe = recipe;
    m.fault = m.campaign.faults = "swarm";
    m.campaign.config = cli::nemesis_config(every, 30);
    m.campaign.workload.swarm = true;
    campaigns.push_back(std::move(m));
  }
  for (cli::MatrixCampaign& m : campaigns) {
    cli::Campaign& c = m.campaign;
    c.workload.flavours = clients.flavours;
    c.workload.draw_flavours = clients.drawn;
    c.strategy = *strategy;
    c.config = scenarios::strategy_config(*strategy, c.config);
    if (*strategy == Strategy::Dfs) {
      c.workload.clients = kDfsClients;
      c.depth = kDfsDepth;
      c.seed = 0;
    }
    if (*strategy == Strategy::Pct) c.depth = scenarios::kDefaultPctDepth;
  }
  return campaigns;
}

// Hunts with `strategy`'s campaigns (none: the default search's), in
// turns, until a run violates a property or each campaign has made
// `budget` runs.
Hunt hunt(const std::vector<std::string>& recipes, const scenarios::ClientChoice& clients,
          std::optional<Strategy> strategy, std::int64_t budget, int shrink_runs) {
  std::vector<Cell> cells;
  for (cli::MatrixCampaign& m : campaigns_of(recipes, clients, strategy, budget)) {
    Cell& cell = cells.emplace_back(Cell{std::move(m), {}, false});
    if (strategy == Strategy::Dfs) cell.dfs.emplace(kDfsDepth, cell.m.campaign.config.nemesis);
  }
  Hunt h;
  h.strategy = strategy;
  const Clock::time_point start = Clock::now();
  for (std::int64_t i = 0; i < budget; ++i) {
    for (Cell& cell : cells) {
      if (cell.done) continue;
      const cli::Campaign& c = cell.m.campaign;
      const std::uint64_t seed = c.seed + static_cast<std::uint64_t>(i);
      const scenarios::DrawnRun setup = scenarios::run_setup(c, seed);
      std::unique_ptr<DecisionSource> seeded;
      if (!cell.dfs) seeded = scenarios::seeded_decisions(setup.strategy, seed, static_cast<int>(setup.depth));
      RecordingDecisions recording(cell.dfs ? static_cast<DecisionSource&>(*cell.dfs) : *seeded);
      scenarios::RunResult r = scenarios::run(setup.workload, recording, {}, setup.config);
      ++h.runs;
      if (cell.dfs && !cell.dfs->advance()) cell.done = true;
      if (r.violations.empty()) continue;
      h.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const scenarios::Violation& v = r.violations.front();
      Kill k{cell.m.recipe, cell.m.fault, v.property, v.message, recording.recorded().size(), 0, 0};
      scenarios::Scenario s;
      s.workload = setup.workload;
      s.config = setup.config;
      s.decisions = recording.recorded();
      s.strategy = setup.strategy;
      scenarios::Shrunk shrunk = scenarios::shrink_scenario(s, v.property, shrink_runs);
      k.shrunk = shrunk.reproduced ? shrunk.scenario.decisions.size() : k.decisions;
      k.shrink_runs = shrunk.runs;
      h.kill = std::move(k);
      return h;
    }
  }
  h.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return h;
}

std::vector<std::string> correct_recipes() {
  std::vector<std::string> out;
  for (const std::string& r : scenarios::recipe_names()) {
    if (!scenarios::recipe_is_flawed(r)) out.push_back(r);
  }
  return out;
}

// "killed", "gap", "equivalent"; the control: "none".
std::string_view expect_name(const Mutant& m, const std::string& id) {
  if (id == "none") return "none";
  switch (m.expect) {
    case Mutant::Expect::Killed: return "killed";
    case Mutant::Expect::Equivalent: return "equivalent";
    case Mutant::Expect::Gap: return "gap";
  }
  return "?";
}

cli::CommandSpec spec() {
  return cli::CommandSpec{
      .name = fmt::format("zksim-mutant-{}", kMutantId),
      .summary = "hunt one mutant of the recipes with the verdict matrix's campaigns",
      .options =
          {{"--mutants", "FILE", "the mutants file (default: the source tree's tests/mutants/mutants.txt)"},
           {"--budget", "RUNS", "runs per campaign (recipe x fault class) and strategy (default 300, the matrix's)"},
           {"--survivor-budget", "RUNS", "runs per campaign for a mutant the file marks equivalent or gap, which are only reported (default: --budget)"},
           {"--shrink-runs", "N", "most runs spent shrinking the killing run (default 300)"},
           {"--client", "FLAVOURS", "the client libraries of the matrix's campaigns, as 'zksim matrix --client' takes them (default any, as the matrix)"},
           {"--every-strategy", "", "hunt with each strategy on its own (for the benchmark) instead of stopping at the first kill"},
           {"--tsv", "", "also print a tab-separated line per strategy hunted, for scripts/mutants.sh: result, id, operator, strategy, killed|survived, property, fault, runs, seconds, shrunk decisions, expectation"}},
      .details =
          "Hunts go in the order default (the default search: what 'zksim explore' and 'zksim\n"
          "matrix' run with no option), then runs drawing nothing but their clients' libraries\n"
          "under each strategy: random, fixed-latency, dfs (depth 12, 2 clients), pct (depth 3).\n"
          "Exit status: 0 as the mutants file expects (or, for zksim-mutant-none, no\n"
          "violation at all), 1 a mutant expected killed survived (none: a violation),\n"
          "2 bad input."};
}

// The CLI helpers name every command "zksim NAME"; this program is NAME.
std::string without_zksim(std::string text) {
  for (std::size_t at = text.find("zksim zksim-mutant-"); at != std::string::npos;
       at = text.find("zksim zksim-mutant-", at)) {
    text.erase(at, 6);
  }
  return text;
}

int run_main(const std::vector<std::string>& argv) {
  const cli::CommandSpec s = spec();
  const cli::Args a = cli::parse_args(s, argv);
  if (a.help) {
    std::fputs(without_zksim(cli::help_text(s)).c_str(), stdout);
    return 0;
  }
  const std::int64_t budget = a.integer("--budget", 300, 1, 1'000'000);
  const int shrink_runs = static_cast<int>(a.integer("--shrink-runs", 300, 0, 1'000'000));
  const scenarios::ClientChoice clients = cli::parse_clients(s.name + " --client", a.text("--client", "any"));
  const std::string id = kMutantId;
  Mutant m;
  if (id == "none") {
    m.id = id;
    m.recipes = correct_recipes();
  } else {
    MutantsError error;
    auto all = load_mutants(a.text("--mutants", ZKSIM_MUTANTS_FILE), correct_recipes(), &error);
    if (!all) throw cli::UsageError(error.text());
    auto it = std::find_if(all->begin(), all->end(), [&](const Mutant& x) { return x.id == id; });
    if (it == all->end()) throw cli::UsageError(fmt::format("{}: no mutant '{}'", a.text("--mutants", ZKSIM_MUTANTS_FILE), id));
    m = *it;
  }
  const std::int64_t runs = m.expect == Mutant::Expect::Killed ? budget : a.integer("--survivor-budget", budget, 1, 1'000'000);
  bool killed = false;
  std::vector<std::optional<Strategy>> hunts{std::nullopt};
  for (std::size_t k = 0; k < scenarios::strategy_names().size(); ++k) hunts.push_back(static_cast<Strategy>(k));
  for (std::size_t k = 0; k < hunts.size() && (!killed || a.flag("--every-strategy")); ++k) {
    const Hunt h = hunt(m.recipes, clients, hunts[k], runs, shrink_runs);
    const std::string_view strategy = h.strategy ? scenarios::strategy_name(*h.strategy) : "default";
    if (h.kill) {
      killed = true;
      const Kill& x = *h.kill;
      fmt::print("{}: killed by {} under {}, faults {}, recipe {}: {} runs, {:.3f} s; {} decisions shrunk to {} "
                 "(in {} runs)\n  {}\n",
                 id, x.property, strategy, x.fault, x.recipe, h.runs, h.seconds, x.decisions, x.shrunk, x.shrink_runs,
                 x.message);
    } else {
      fmt::print("{}: survived {} ({} runs, {:.3f} s)\n", id, strategy, h.runs, h.seconds);
    }
    if (a.flag("--tsv")) {
      fmt::print("result\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6f}\t{}\t{}\n", id, m.op.empty() ? "-" : m.op, strategy,
                 h.kill ? "killed" : "survived", h.kill ? h.kill->property : "-", h.kill ? h.kill->fault : "-",
                 h.runs, h.seconds, h.kill ? std::to_string(h.kill->shrunk) : "-", expect_name(m, id));
    }
  }
  if (id == "none") return killed ? 1 : 0;
  switch (m.expect) {
    case Mutant::Expect::Killed:
      if (killed) return 0;
      fmt::print("{}: FAILED: expected killed, survived every strategy\n", id);
      return 1;
    case Mutant::Expect::Equivalent:
    case Mutant::Expect::Gap:
      fmt::print("{}: marked {} ({}){}\n", id, m.expect == Mutant::Expect::Gap ? "gap" : "equivalent", m.reason,
                 killed ? "; killed anyway: the listing may be out of date" : "");
      return 0;
  }
  return 0;
}

}  // namespace
}  // namespace zksim::mutants

int main(int argc, char** argv) {
  try {
    return zksim::mutants::run_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const zksim::cli::UsageError& e) {
    std::fprintf(stderr, "%s\n", zksim::mutants::without_zksim(e.what()).c_str());
    return 2;
  }
}
