// zksim matrix, the main job: every recipe under no faults and under each
// fault class; prints the verdict matrix and a summary line.
#include "campaign_json.h"
#include "commands.h"
#include "common.h"
#include "lease_table.h"
#include "matrix.h"
#include "progress.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace zksim::cli {

CommandSpec matrix_spec() {
  return CommandSpec{
      .name = "matrix",
      .summary = "the verdict matrix: every recipe x every property, under every fault class",
      .options =
          {{"--budget", "RUNS", "runs per recipe and fault config (default 300)"},
           {"--recipes", "NAME,...", "only these recipes, ZooKeeper's and the lease locks (default: all, see 'zksim list')"},
           {"--faults", "LIST", "fault configs, 'none' and/or classes, ZooKeeper's and the lease locks' (default: none and every class)"},
           {"--seed", "S", "run i of each campaign is seeded with S + i (default 1)"},
           {"--clients", "N", "clients per run (default 4)"},
           {"--client", "FLAVOURS", "fix the client library of every run: c, curator, kazoo, or a list (c,curator,kazoo: client i takes the (i mod n)th); any: drawn per run (the default)"},
           {"--rounds", "N", "rounds per client (default 4)"},
           {"--varied", "", "fix varied workloads on (drawn per run by default; see 'zksim explore --help')"},
           {"--servers", "N", "fix the servers of every run (drawn per run by default: 3 with a class of the ensemble, else 1 or 3; see docs/ensemble.md)"},
           {"--sequence-start", "N", "fix where the sequence counters of the recipe's directories start (drawn per run by default: 0, or near 2^31; see 'zksim explore --help')"},
           {"--fixed", "", "draw nothing per run: C clients, one server (three for a class of the ensemble), 5 ms holds (600 under pauses), plain workloads, random schedules"},
           {"--jobs", "N", "child processes making runs (default 1); the same matrix for any N"},
           {"--out", "DIR", "where the scenario files of violations go (default: failures)"},
           {"--shrink-runs", "N", "most runs spent shrinking each violation (default 500; 0: written as found)"},
           {"--json", "", "print JSON: {recipes: [{name, flawed, breaks, ok, properties: {...}}], campaigns, ok}"}},
      .details =
          "Each recipe runs --budget seeded runs under no faults and under each fault class, the\n"
          "class striking in every run; everything else each run draws as 'zksim explore' does\n"
          "with no option (the rate, servers, client libraries, hold, workload, random or pct).\n"
          "A cell is 'ok' when the property held in every run,\n"
          "'Xn' when a run violated it (note n names the shrunk scenario file and the command\n"
          "that replays it), '.' when the recipe does not check it.\n"
          "Then the lease locks (Redis, etcd; docs/lease.md): each under no faults and each lease fault\n"
          "class, --budget seeded runs; a cell lists the properties lost, known for the kind of\n"
          "lock (lower case) or findings (upper case). 'zksim lease' replays a cell's run.\n"
          "Exit status: 0 when every correct recipe holds every property, every correct lease lock\n"
          "loses only what its kind cannot keep, and every flawed recipe is caught by the property\n"
          "it is known to break; 1 otherwise; 2 bad input."};
}

namespace {

// The matrix's options, and the lease table's from the same arguments: a
// name in --recipes or --faults is ZooKeeper's, the lease locks', or both
// ("none", "pause").
MatrixOptions options_from(const Args& a, LeaseTableOptions& lease_options) {
  MatrixOptions o;
  const auto& all = scenarios::recipe_names();
  std::vector<std::string> lease_all;
  for (const lease::LeaseRecipe& r : lease::lease_recipes()) lease_all.push_back(r.name);
  const auto known = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (a.has("--recipes")) {
    const std::vector<std::string> wanted = split(a.text("--recipes", ""));
    for (const std::string& w : wanted) {
      if (!known(all, w) && !known(lease_all, w)) {
        throw UsageError(fmt::format("zksim matrix --recipes: unknown recipe '{}' (known: {}, {})", w, fmt::join(all, ", "),
                                     fmt::join(lease_all, ", ")));
      }
    }
    for (const std::string& r : all) {
      if (known(wanted, r)) o.recipes.push_back(r);
    }
    for (const std::string& r : lease_all) {
      if (known(wanted, r)) lease_options.recipes.push_back(r);
    }
  } else {
    o.recipes = all;
    lease_options.recipes = lease_all;
  }
  std::vector<std::string> faults{"none"};
  for (const std::string& k : fault_class_names()) faults.push_back(k);
  std::vector<std::string> lease_faults = lease_fault_configs();
  if (a.has("--faults")) {
    const std::vector<std::string> wanted = split(a.text("--faults", ""));
    for (const std::string& w : wanted) {
      if (w != "none" && !known(lease_faults, w)) parse_fault_classes("zksim matrix --faults", w);
    }
    std::erase_if(faults, [&](const std::string& f) { return !known(wanted, f); });
    std::erase_if(lease_faults, [&](const std::string& f) { return !known(wanted, f); });
  }
  scenarios::CheckOptions& c = o.check;
  c.faults = faults;
  lease_options.faults = lease_faults;
  c.runs = a.integer("--budget", c.runs, 1, 100'000'000);
  c.seed = a.unsigned64("--seed", c.seed);
  c.clients = static_cast<int>(a.integer("--clients", c.clients, 1, 100));
  c.rounds = static_cast<int>(a.integer("--rounds", c.rounds, 1, 10'000));
  c.shrink_runs = static_cast<int>(a.integer("--shrink-runs", c.shrink_runs, 0, 1'000'000));
  c.out_dir = a.text("--out", "failures");
  if (a.flag("--fixed")) c.search.reset();
  const scenarios::ClientChoice clients = parse_clients("zksim matrix --client", a.text("--client", "any"));
  const std::optional<int> servers =
      a.has("--servers") ? std::optional<int>(static_cast<int>(a.integer("--servers", 1, 1, 9))) : std::nullopt;
  std::optional<std::int32_t> sequence_start;
  if (a.has("--sequence-start")) {
    sequence_start = static_cast<std::int32_t>(a.integer("--sequence-start", 0, INT32_MIN, INT32_MAX));
  }
  if (c.search) {
    if (!clients.drawn) c.search->flavours = clients.flavours;
    if (a.flag("--varied")) c.search->varied = true;
    c.search->servers = servers;
    c.search->sequence_start = sequence_start;
  } else if (!clients.drawn || a.flag("--varied") || servers || sequence_start) {
    throw UsageError("zksim matrix --fixed: --client, --varied, --servers and --sequence-start narrow what runs draw; "
                     "with --fixed runs draw nothing");
  }
  lease_options.runs = c.runs;
  lease_options.seed = c.seed;
  return o;
}

}  // namespace

int matrix_main(const Args& args) {
  LeaseTableOptions lease_options;
  const MatrixOptions o = options_from(args, lease_options);
  const int jobs = static_cast<int>(args.integer("--jobs", 1, 1, 64));
  std::vector<MatrixCampaign> campaigns = matrix_campaigns(o);

  check_output_dir("zksim matrix --out", o.check.out_dir);
  ProgressLine line(stderr_is_terminal());
  std::vector<Campaign> plain;
  for (const MatrixCampaign& c : campaigns) plain.push_back(c.campaign);
  ExploreOptions eo{.jobs = jobs};
  eo.progress = [&](std::size_t k, const std::vector<CampaignResult>& now) {
    CampaignResult total;
    for (const CampaignResult& r : now) merge_into(total, r);
    line.show(fmt::format("matrix {} / {}", campaigns[k].recipe, campaigns[k].fault), total.runs, total.probes_reached(),
              total.violating_runs);
  };
  std::vector<CampaignResult> results = explore_or_stop("zksim matrix", plain, eo);
  for (std::size_t i = 0; i < campaigns.size(); ++i) campaigns[i].result = std::move(results[i]);
  CampaignResult all;
  for (const MatrixCampaign& c : campaigns) merge_into(all, c.result);
  line.show("matrix: shrinking violations", all.runs, all.probes_reached(), all.violating_runs);
  const Matrix m = verdicts(o, campaigns);
  line.show("matrix: the lease locks", all.runs, all.probes_reached(), all.violating_runs);
  const LeaseTable lease = lease_table(lease_options);
  line.clear();
  const bool zookeeper = !o.recipes.empty() && !o.check.faults.empty();
  const bool leases = !lease_options.recipes.empty() && !lease_options.faults.empty();
  if (args.flag("--json")) {
    nlohmann::json j = zookeeper ? matrix_json(m, campaigns) : nlohmann::json::object();
    if (leases) j["lease"] = lease_table_json(lease);
    j["ok"] = m.ok() && lease.ok();
    print_json(j);
  } else {
    if (zookeeper) std::fputs(matrix_text(m).c_str(), stdout);
    if (zookeeper && leases) std::fputs("\n", stdout);
    if (leases) std::fputs(lease_table_text(lease).c_str(), stdout);
  }
  return m.ok() && lease.ok() ? 0 : 1;
}

}  // namespace zksim::cli
