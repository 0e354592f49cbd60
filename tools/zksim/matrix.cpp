#include "matrix.h"

#include "common.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

std::vector<MatrixCampaign> matrix_campaigns(const MatrixOptions& o) {
  std::vector<MatrixCampaign> out;
  for (const std::string& recipe : o.recipes) {
    const scenarios::FlawedRecipe* flaw = flaw_of(recipe);
    for (const std::string& fault : o.faults) {
      MatrixCampaign m{recipe, fault, {}, {}};
      Campaign& c = m.campaign;
      c.workload.recipe = recipe;
      c.workload.clients = o.clients;
      c.workload.rounds = o.rounds;
      c.workload.flavours = o.clients_of.flavours;
      c.workload.draw_flavours = o.clients_of.drawn;
      c.workload.varied = o.varied || (flaw && flaw->varied);
      const std::vector<int> kinds = parse_fault_classes("zksim matrix", fault);
      if (flaw && fault == fault_label(flaw->config())) {
        c.config = flaw->config();
        c.workload.hold_ms = flaw->hold_ms;
        c.workload.flavours = {flaw->flavour};
        c.workload.draw_flavours = false;
      } else {
        c.config = nemesis_config(kinds, 30);
        c.workload.hold_ms = fault == "pause" ? 600 : 5;
      }
      c.faults = fault;
      c.seed = o.seed;
      if (!o.mix) {
        c.runs = o.runs;
        out.push_back(std::move(m));
        continue;
      }
      // The mix: random and pct, each with plain and varied workloads
      // (only varied ones when every run is), the first part taking what
      // the split leaves over.
      const bool both = !c.workload.varied;
      const std::int64_t parts = both ? 4 : 2;
      for (std::int64_t k = 0; k < parts; ++k) {
        MatrixCampaign part = m;
        part.campaign.runs = k == 0 ? o.runs - (parts - 1) * (o.runs / parts) : o.runs / parts;
        if (part.campaign.runs == 0) continue;
        if (k % 2 == 1) {
          part.campaign.strategy = scenarios::Strategy::Pct;
          part.campaign.depth = scenarios::kDefaultPctDepth;
        }
        if (both && k >= 2) part.campaign.workload.varied = true;
        out.push_back(std::move(part));
      }
    }
  }
  return out;
}

bool Matrix::ok() const {
  return std::all_of(rows.begin(), rows.end(), [](const RecipeRow& r) { return r.ok; });
}

Matrix verdicts(const MatrixOptions& o, const std::vector<MatrixCampaign>& done, const std::string& out_dir,
                int shrink_runs) {
  Matrix m;
  m.options = o;
  const auto& properties = scenarios::property_names();
  for (const MatrixCampaign& c : done) m.runs += c.result.runs;
  for (const std::string& recipe : o.recipes) {
    RecipeRow row;
    row.recipe = recipe;
    row.flawed = scenarios::recipe_is_flawed(recipe);
    if (const scenarios::FlawedRecipe* f = flaw_of(recipe)) row.breaks = f->property;
    const std::vector<std::string> applies = scenarios::properties_of(recipe);
    for (const MatrixCampaign& c : done) {
      if (c.recipe != recipe) continue;
      row.wakeups += c.result.wakeups;
      row.wakeups_without_progress += c.result.wakeups_without_progress;
    }
    bool any_violated = false, breaks_violated = false;
    for (const std::string& p : properties) {
      Cell cell;
      if (std::find(applies.begin(), applies.end(), p) != applies.end()) cell.kind = Cell::Holds;
      for (const MatrixCampaign& c : done) {
        if (c.recipe != recipe || cell.kind != Cell::Holds) continue;
        auto it = c.result.findings.find(p);
        if (it == c.result.findings.end()) continue;
        cell.kind = Cell::Violated;
        cell.campaign = &c;
        cell.finding = it->second;
        shrink_finding(c.campaign, cell.finding,
                       fmt::format("{}/{}.{}.{}.{}.scn", out_dir, file_stem(recipe), p, c.fault,
                                   finding_label(c.campaign, cell.finding)),
                       shrink_runs);
      }
      if (cell.kind == Cell::Violated) {
        any_violated = true;
        if (p == row.breaks) breaks_violated = true;
      }
      row.cells.push_back(std::move(cell));
    }
    row.ok = row.flawed ? breaks_violated : !any_violated;
    m.rows.push_back(std::move(row));
  }
  return m;
}

}  // namespace zksim::cli
