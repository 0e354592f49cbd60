// The verdict matrix: every recipe explored under no faults and under each
// fault class, and per recipe and property whether it holds, was violated
// (with the scenario file that shows it), or does not apply.
#pragma once

#include "campaign.h"
#include "common.h"
#include "zksim/scenarios/harness.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace zksim::cli {

struct MatrixOptions {
  std::vector<std::string> recipes;  // in recipe_names() order
  // Each recipe's campaigns and verdicts, as check() makes them; `faults`
  // names "none" and/or fault class names, in that order.
  scenarios::CheckOptions check;
};

struct MatrixCampaign {
  std::string recipe, fault;  // fault: "none" or a class name
  Campaign campaign;
  CampaignResult result;
};

// The harness's campaigns (scenarios::campaigns_for) of every recipe, in
// order. REQUIRES: known recipes and fault configurations.
std::vector<MatrixCampaign> matrix_campaigns(const MatrixOptions& o);

struct Cell {
  enum Kind { NotApplicable, Holds, Violated } kind = NotApplicable;
  const MatrixCampaign* campaign = nullptr;  // Violated: the first campaign that found it
  Finding finding;                           // Violated: shrunk, with its scenario file
};

struct RecipeRow {
  std::string recipe;
  bool flawed = false;
  std::string breaks;  // flawed: the property it is known to break
  std::vector<Cell> cells;  // by property_names()
  bool ok = false;          // correct: every cell holds; flawed: `breaks` violated
  // Summed over the recipe's campaigns (CampaignResult's): measured, not judged.
  std::int64_t wakeups = 0, wakeups_without_progress = 0;
};

struct Matrix {
  MatrixOptions options;
  std::vector<RecipeRow> rows;
  std::int64_t runs = 0;
  bool ok() const;
};

// The rows, from explored campaigns: each recipe's scenarios::verdicts
// (its violations shrunk and written as o.check says). Throws UsageError
// when a finding cannot be shrunk or written.
Matrix verdicts(const MatrixOptions& o, const std::vector<MatrixCampaign>& done);

std::string matrix_text(const Matrix& m);
nlohmann::json matrix_json(const Matrix& m, const std::vector<MatrixCampaign>& done);

}  // namespace zksim::cli
