#include "matrix.h"

#include "common.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

scenarios::CheckOptions check_options(const MatrixOptions& o) {
  scenarios::CheckOptions c;
  c.faults = o.faults;
  c.runs = o.runs;
  c.seed = o.seed;
  c.clients = o.clients;
  c.rounds = o.rounds;
  c.search = o.search;
  return c;
}

std::vector<MatrixCampaign> matrix_campaigns(const MatrixOptions& o) {
  std::vector<MatrixCampaign> out;
  const scenarios::CheckOptions c = check_options(o);
  for (const std::string& recipe : o.recipes) {
    for (scenarios::RecipeCampaign& m : scenarios::campaigns_for(recipe, c)) {
      out.push_back(MatrixCampaign{std::move(m.recipe), std::move(m.fault), std::move(m.campaign), {}});
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
        shrink_and_write(c.campaign, cell.finding,
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
