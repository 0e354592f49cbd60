// The verdict matrix for people (a grid with footnotes) and for machines.
#include "campaign_json.h"
#include "common.h"
#include "matrix.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace zksim::cli {

namespace {

// Column headings: the initials of a hyphenated name ("mutual-exclusion":
// ME), or the first four letters of a single word ("liveness": LIVE); a
// clash gets a digit.
std::vector<std::string> headings(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    std::string h;
    if (n.find('-') == std::string::npos) {
      h = n.substr(0, 4);
    } else {
      for (std::size_t i = 0; i < n.size(); ++i) {
        if (i == 0 || n[i - 1] == '-') h += n[i];
      }
    }
    for (char& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string unique = h;
    for (int k = 2; std::find(out.begin(), out.end(), unique) != out.end(); ++k) unique = fmt::format("{}{}", h, k);
    out.push_back(unique);
  }
  return out;
}

std::string row_verdict(const RecipeRow& r) {
  if (!r.flawed) return r.ok ? "holds" : "VIOLATED";
  if (r.breaks.empty()) return "NOT CAUGHT (not in flawed_recipes())";
  return r.ok ? fmt::format("caught ({})", r.breaks) : fmt::format("NOT CAUGHT ({})", r.breaks);
}

}  // namespace

std::string matrix_text(const Matrix& m) {
  const auto& properties = scenarios::property_names();
  // Only the properties some listed recipe checks get a column.
  std::vector<std::size_t> shown;
  for (std::size_t p = 0; p < properties.size(); ++p) {
    for (const RecipeRow& r : m.rows) {
      if (r.cells[p].kind != Cell::NotApplicable) {
        shown.push_back(p);
        break;
      }
    }
  }
  std::vector<std::string> names;
  for (std::size_t p : shown) names.push_back(properties[p]);
  const std::vector<std::string> heads = headings(names);
  std::size_t recipe_width = 6;
  for (const RecipeRow& r : m.rows) recipe_width = std::max(recipe_width, r.recipe.size());

  std::string out = fmt::format("zksim matrix: {} recipes x {} fault configs ({}) x {} runs, seed {}\n",
                                m.rows.size(), m.options.check.faults.size(), fmt::join(m.options.check.faults, ", "),
                                m.options.check.runs, m.options.check.seed);
  // What every run of a fault configuration draws: the search without its classes.
  if (m.options.check.search) {
    scenarios::SearchSpace rest = *m.options.check.search;
    rest.faults.clear();
    out += fmt::format("each configuration's class strikes in every run, and {}\n\n",
                       scenarios::describe(rest, scenarios::Workload{}));
  } else {
    out += "every run as its fault configuration says, nothing drawn (--fixed)\n\n";
  }
  out += fmt::format("{:<{}}", "recipe", recipe_width + 2);
  for (const std::string& h : heads) out += fmt::format("{:<{}}", h, std::max<std::size_t>(h.size(), 4) + 1);
  out += "verdict\n";
  std::vector<const Cell*> notes;
  std::vector<std::string> note_recipes;
  for (const RecipeRow& r : m.rows) {
    out += fmt::format("{:<{}}", r.recipe, recipe_width + 2);
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const Cell& c = r.cells[shown[i]];
      std::string mark = c.kind == Cell::NotApplicable ? "." : c.kind == Cell::Holds ? "ok" : "";
      if (c.kind == Cell::Violated) {
        notes.push_back(&c);
        note_recipes.push_back(r.recipe);
        mark = fmt::format("X{}", notes.size());
      }
      out += fmt::format("{:<{}}", mark, std::max<std::size_t>(heads[i].size(), 4) + 1);
    }
    out += row_verdict(r) + "\n";
  }
  out += "\nok: holds in every run   Xn: violated (note n)   .: does not apply\n";
  std::string legend;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const std::string item = fmt::format("{} {}", heads[i], names[i]);
    const std::size_t line_length = legend.size() - (legend.rfind('\n') == std::string::npos ? 0 : legend.rfind('\n') + 1);
    legend += fmt::format("{}{}", legend.empty() ? "" : line_length + item.size() + 3 > 100 ? "\n" : "   ", item);
  }
  out += legend + "\n";
  out += "\nwake-ups without progress (measured, not judged): a watch event woke a call that then waited\n"
         "again, failed or timed out instead of being granted, taking or passing\n";
  for (const RecipeRow& r : m.rows) {
    out += fmt::format("  {:<{}}{} of {} wake-ups", r.recipe, recipe_width + 2, r.wakeups_without_progress, r.wakeups);
    if (r.wakeups > 0) {
      out += fmt::format(" ({:.1f}%)", 100.0 * static_cast<double>(r.wakeups_without_progress) / static_cast<double>(r.wakeups));
    }
    out += "\n";
  }
  for (std::size_t n = 0; n < notes.size(); ++n) {
    const Cell& c = *notes[n];
    const Finding& f = c.finding;
    out += fmt::format("\nX{} {} violates {} under {}: in {} of {} runs; clients {}\n", n + 1, note_recipes[n],
                       f.property, c.campaign->fault == "none" ? "no faults" : c.campaign->fault, f.runs,
                       c.campaign->result.runs, client_names(f.violation.clients));
    out += fmt::format("   {}\n", f.violation.message);
    out += fmt::format("   {} (seed {}; {} decisions, shrunk to {})\n", f.scenario_file, f.seed, f.decisions,
                       f.shrunk_decisions);
  }
  if (!notes.empty()) {
    out += fmt::format("\nReplay a scenario file: {}\nDraw it: {} timeline FILE --html OUT.html\n",
                       replay_command("FILE"), program_command());
  }
  int correct = 0, correct_ok = 0, flawed = 0, flawed_ok = 0;
  std::vector<std::string> failures;
  for (const RecipeRow& r : m.rows) {
    (r.flawed ? flawed : correct) += 1;
    (r.flawed ? flawed_ok : correct_ok) += r.ok ? 1 : 0;
    if (!r.ok) failures.push_back(fmt::format("{} {}", r.recipe, row_verdict(r)));
  }
  out += fmt::format("\nsummary: {} runs; {} of {} correct recipes hold every property; {} of {} flawed recipes caught by the property they break: {}\n",
                     m.runs, correct_ok, correct, flawed_ok, flawed, m.ok() ? "OK" : "FAILED");
  for (const std::string& f : failures) out += fmt::format("  {}\n", f);
  return out;
}

nlohmann::json matrix_json(const Matrix& m, const std::vector<MatrixCampaign>& done) {
  using nlohmann::json;
  const auto& properties = scenarios::property_names();
  json recipes = json::array();
  for (const RecipeRow& r : m.rows) {
    json cells = json::object();
    for (std::size_t p = 0; p < properties.size(); ++p) {
      const Cell& c = r.cells[p];
      if (c.kind == Cell::NotApplicable) {
        cells[properties[p]] = json{{"verdict", "n/a"}};
      } else if (c.kind == Cell::Holds) {
        cells[properties[p]] = json{{"verdict", "holds"}};
      } else {
        const Finding& f = c.finding;
        cells[properties[p]] = json{{"verdict", "violated"},   {"faults", c.campaign->fault},
                                    {"seed", f.seed},          {"runs", f.runs},
                                    {"clients", f.violation.clients}, {"message", f.violation.message},
                                    {"time_ms", f.violation.time},    {"scenario", f.scenario_file},
                                    {"decisions", f.shrunk_decisions}, {"replay", replay_command(f.scenario_file)}};
      }
    }
    recipes.push_back(json{{"name", r.recipe},
                           {"flawed", r.flawed},
                           {"breaks", r.breaks.empty() ? json(nullptr) : json(r.breaks)},
                           {"ok", r.ok},
                           {"wakeups", r.wakeups},
                           {"wakeups_without_progress", r.wakeups_without_progress},
                           {"properties", cells}});
  }
  json campaigns = json::array();
  for (const MatrixCampaign& c : done) {
    campaigns.push_back(json{{"recipe", c.recipe}, {"faults", c.fault}, {"campaign", campaign_json(c.campaign)},
                             {"result", result_json(c.result)}});
  }
  return json{{"runs_per_campaign", m.options.check.runs},
              {"seed", m.options.check.seed},
              {"fault_configs", m.options.check.faults},
              {"runs", m.runs},
              {"recipes", recipes},
              {"campaigns", campaigns},
              {"ok", m.ok()}};
}

}  // namespace zksim::cli
