#include "lease_table.h"

#include "common.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::cli {

using lease::LeaseFault;

std::vector<std::string> lease_fault_configs() {
  std::vector<std::string> out{"none"};
  for (const LeaseFault f : lease::kLeaseFaults) out.emplace_back(lease::lease_fault_name(f));
  return out;
}

lease::LeaseWorkload lease_cell_workload(const std::string& recipe, const std::string& fault) {
  lease::LeaseWorkload w{.recipe = recipe};
  if (const std::optional<LeaseFault> f = lease::lease_fault_named(fault)) {
    w.faults = {*f};
    w.fault_per_mille = 150;
  }
  return w;
}

bool LeaseTable::ok() const {
  return std::ranges::all_of(rows, [](const LeaseRow& r) { return r.ok; });
}

LeaseTable lease_table(const LeaseTableOptions& o) {
  LeaseTable t{.options = o};
  for (const std::string& name : o.recipes) {
    LeaseRow row{.recipe = lease::find_lease_recipe(name)};
    const bool flawed = !row.recipe->breaks.empty();
    bool unknown = false, caught = false;
    for (const std::string& fault : o.faults) {
      LeaseCell cell;
      const std::optional<LeaseFault> f = lease::lease_fault_named(fault);
      cell.applies = !f || lease::lease_fault_applies(*row.recipe, *f);
      const std::vector<std::string> known = f ? lease::known_losses(*row.recipe, *f) : std::vector<std::string>{};
      for (std::int64_t i = 0; cell.applies && i < o.runs; ++i) {
        SeededDecisions d(o.seed + static_cast<std::uint64_t>(i));
        const lease::LeaseRun run = lease::run_lease(lease_cell_workload(name, fault), d);
        ++t.runs;
        row.wakeups += run.wakeups;
        row.worst_wakeups = std::max(row.worst_wakeups, run.worst_wakeups);
        row.worst_lasting_wakeups = std::max(row.worst_lasting_wakeups, run.worst_lasting_wakeups);
        for (const Violation& v : run.violations) {
          auto it = std::ranges::find(cell.losses, v.property, &LeaseLoss::property);
          if (it == cell.losses.end()) {
            cell.losses.push_back({.property = v.property, .known = std::ranges::count(known, v.property) > 0,
                                   .seed = o.seed + static_cast<std::uint64_t>(i), .message = v.message});
            it = cell.losses.end() - 1;
          }
          ++it->runs;
        }
      }
      for (const LeaseLoss& l : cell.losses) {
        unknown = unknown || (!l.known && (!flawed || l.property != row.recipe->breaks));
        caught = caught || (!l.known && l.property == row.recipe->breaks);
      }
      row.cells.push_back(std::move(cell));
    }
    row.ok = flawed ? caught : !unknown;
    t.rows.push_back(std::move(row));
  }
  return t;
}

namespace {

// One letter per property: lower case for a known loss, upper case for a finding.
char letter(const LeaseLoss& l) {
  const char c = l.property == "resource-exclusion" ? 'r'
                 : l.property == "belief-exclusion" ? 'b'
                 : l.property == "lease-kept"       ? 'k'
                 : l.property == "herd-effect"      ? 'h'
                                                    : 'l';
  return l.known ? c : static_cast<char>(c - 'a' + 'A');
}

std::string cell_text(const LeaseCell& c) {
  if (!c.applies) return "n/a";
  if (c.losses.empty()) return "ok";
  std::string out;
  for (const LeaseLoss& l : c.losses) out += letter(l);
  std::ranges::sort(out);
  return out;
}

// A correct lock's verdict says what its known losses come to: without
// fencing, a holder that outlives its lease harms the resource; on Redis,
// a node that loses its state loses the lock.
std::string verdict(const LeaseRow& row, const std::vector<std::string>& faults) {
  if (!row.recipe->breaks.empty()) return row.ok ? fmt::format("caught ({})", row.recipe->breaks) : "NOT CAUGHT";
  if (!row.ok) return "VIOLATED";
  bool outlived = false, state_lost = false;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const bool state = faults[i] == "restart" || faults[i] == "clock-jump";
    for (const LeaseLoss& l : row.cells[i].losses) {
      (state ? state_lost : outlived) |= l.known;
    }
  }
  std::string out = outlived ? "safe only with fencing" : row.recipe->fenced ? "fenced: safe" : "holds";
  if (state_lost) out += "; not when a node loses its state";
  return out;
}

}  // namespace

std::string lease_table_text(const LeaseTable& t) {
  const LeaseTableOptions& o = t.options;
  std::string out = fmt::format("lease locks: {} recipes x {} fault configs x {} runs, seed {}\n\n", o.recipes.size(),
                                o.faults.size(), o.runs, o.seed);
  std::size_t name_w = 6;
  for (const std::string& r : o.recipes) name_w = std::max(name_w, r.size());
  out += fmt::format("{:<{}}", "recipe", name_w + 2);
  for (const std::string& f : o.faults) out += fmt::format("{:<{}}", f, std::max<std::size_t>(f.size(), 3) + 2);
  out += "verdict\n";
  int finding = 0;
  std::string notes;
  for (const LeaseRow& row : t.rows) {
    out += fmt::format("{:<{}}", row.recipe->name, name_w + 2);
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      out += fmt::format("{:<{}}", cell_text(row.cells[i]), std::max<std::size_t>(o.faults[i].size(), 3) + 2);
      for (const LeaseLoss& l : row.cells[i].losses) {
        if (l.known) continue;
        notes += fmt::format("F{} {} loses {} under {}: in {} of {} runs\n   seed {}: {}\n   {} lease --recipe {} "
                             "--faults {} --seed {}\n\n",
                             ++finding, row.recipe->name, l.property, o.faults[i], l.runs, o.runs, l.seed, l.message,
                             program_command(), row.recipe->name, o.faults[i], l.seed);
      }
    }
    out += verdict(row, o.faults) + "\n";
  }
  out += "\nok: lost nothing   r b k h l: lost resource-exclusion, belief-exclusion, lease-kept, herd-effect,\n"
         "liveness, known for this kind of lock (docs/lease.md)   R B K H L: lost, a finding (note Fn)   n/a: no such "
         "fault\n\n";
  out += notes;
  out += "wake-ups: pub/sub messages and watch events that reached a waiter, and the most waiters one\n"
         "change woke; for a lock whose waiters each wait for one change, herd-effect is judged: at most one\n"
         "waiter whose lease lasted (an etcd waiter whose lease ran out still hears its watch)\n";
  for (const LeaseRow& row : t.rows) {
    out += fmt::format("  {:<{}}", row.recipe->name, name_w + 2);
    if (row.wakeups == 0) {
      out += "none: it polls\n";
      continue;
    }
    out += fmt::format("{} wake-ups; one change woke at most {}", row.wakeups, row.worst_wakeups);
    out += row.recipe->herd_free ? fmt::format(", {} whose lease lasted\n", row.worst_lasting_wakeups)
                                 : std::string(": every waiter\n");
  }
  out += "\n";
  int correct = 0, holding = 0, flawed = 0, caught = 0;
  for (const LeaseRow& row : t.rows) {
    const bool is_flawed = !row.recipe->breaks.empty();
    (is_flawed ? flawed : correct) += 1;
    (is_flawed ? caught : holding) += row.ok ? 1 : 0;
  }
  out += fmt::format("lease summary: {} runs; {} of {} correct lease locks lose only what their kind cannot keep; {} "
                     "of {} flawed ones caught by the property they break: {}\n",
                     t.runs, holding, correct, caught, flawed, t.ok() ? "OK" : "FAILED");
  return out;
}

nlohmann::json lease_table_json(const LeaseTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const LeaseRow& row : t.rows) {
    nlohmann::json cells = nlohmann::json::object();
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      const LeaseCell& c = row.cells[i];
      nlohmann::json losses = nlohmann::json::array();
      for (const LeaseLoss& l : c.losses) {
        losses.push_back({{"property", l.property}, {"known", l.known}, {"runs", l.runs}, {"seed", l.seed},
                          {"message", l.message}});
      }
      cells[t.options.faults[i]] = {{"applies", c.applies}, {"losses", losses}};
    }
    rows.push_back({{"name", row.recipe->name}, {"flawed", !row.recipe->breaks.empty()},
                    {"breaks", row.recipe->breaks}, {"fenced", row.recipe->fenced}, {"ok", row.ok},
                    {"herd_free", row.recipe->herd_free}, {"wakeups", row.wakeups},
                    {"worst_wakeups", row.worst_wakeups}, {"worst_lasting_wakeups", row.worst_lasting_wakeups},
                    {"faults", cells}});
  }
  return {{"recipes", rows}, {"runs", t.runs}, {"ok", t.ok()}};
}

}  // namespace zksim::cli
