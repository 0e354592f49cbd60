#include "matrix.h"

#include "common.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

std::vector<MatrixCampaign> matrix_campaigns(const MatrixOptions& o) {
  std::vector<MatrixCampaign> out;
  for (const std::string& recipe : o.recipes) {
    for (scenarios::RecipeCampaign& m : scenarios::campaigns_for(recipe, o.check)) {
      out.push_back(MatrixCampaign{std::move(m.recipe), std::move(m.fault), std::move(m.campaign), {}});
    }
  }
  return out;
}

bool Matrix::ok() const {
  return std::all_of(rows.begin(), rows.end(), [](const RecipeRow& r) { return r.ok; });
}

Matrix verdicts(const MatrixOptions& o, const std::vector<MatrixCampaign>& done) {
  Matrix m;
  m.options = o;
  for (const MatrixCampaign& c : done) m.runs += c.result.runs;
  for (const std::string& recipe : o.recipes) {
    RecipeRow row;
    row.recipe = recipe;
    row.flawed = scenarios::recipe_is_flawed(recipe);
    if (const scenarios::FlawedRecipe* f = flaw_of(recipe)) row.breaks = f->property;
    std::vector<const MatrixCampaign*> mine;
    std::vector<scenarios::RecipeCampaign> campaigns;
    std::vector<CampaignResult> results;
    for (const MatrixCampaign& c : done) {
      if (c.recipe != recipe) continue;
      mine.push_back(&c);
      campaigns.push_back({c.recipe, c.fault, c.campaign});
      results.push_back(c.result);
      row.wakeups += c.result.wakeups;
      row.wakeups_without_progress += c.result.wakeups_without_progress;
    }
    const scenarios::Report report =
        scenarios::verdicts(recipe, campaigns, results, o.check.out_dir, o.check.shrink_runs);
    if (!report.error.empty()) throw UsageError("zksim: " + report.error);
    bool any_violated = false, breaks_violated = false;
    for (const std::string& p : scenarios::property_names()) {
      Cell cell;
      if (const scenarios::PropertyVerdict* v = report.find(p)) {
        cell.kind = v->holds ? Cell::Holds : Cell::Violated;
        if (!v->holds) {
          cell.finding = v->finding;
          cell.campaign = *std::find_if(mine.begin(), mine.end(), [&](const MatrixCampaign* c) { return c->fault == v->fault; });
          any_violated = true;
          breaks_violated |= p == row.breaks;
        }
      }
      row.cells.push_back(std::move(cell));
    }
    row.ok = row.flawed ? breaks_violated : !any_violated;
    m.rows.push_back(std::move(row));
  }
  return m;
}

}  // namespace zksim::cli
