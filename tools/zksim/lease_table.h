// The lease locks' verdict table (part of zksim matrix): every lease lock
// under no faults and under each lease fault class, and per cell the
// properties its runs lost, each either known for its kind of lock
// (lease::known_losses) or a finding.
#pragma once

#include "zksim/lease/harness.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::cli {

struct LeaseTableOptions {
  std::vector<std::string> recipes;  // in lease_recipes() order
  std::vector<std::string> faults;   // "none" and/or lease fault class names, in that order
  std::int64_t runs = 300;           // per recipe and fault configuration
  std::uint64_t seed = 1;
};

// "none" and every lease fault class, in order.
std::vector<std::string> lease_fault_configs();
// The workload of a matrix cell, as `zksim lease` runs it.
lease::LeaseWorkload lease_cell_workload(const std::string& recipe, const std::string& fault);

struct LeaseLoss {
  std::string property;
  bool known = false;        // lease::known_losses says so
  std::int64_t runs = 0;     // runs that lost it
  std::uint64_t seed = 0;    // the first of them
  std::string message;       // its violation
};

struct LeaseCell {
  bool applies = true;
  std::vector<LeaseLoss> losses;  // in the order first found
};

struct LeaseRow {
  const lease::LeaseRecipe* recipe = nullptr;
  std::vector<LeaseCell> cells;  // by options.faults
  bool ok = false;               // correct: only known losses; flawed: caught where its loss is no known one
  std::int64_t wakeups = 0;      // over every run (LeaseRun::wakeups)
  int worst_wakeups = 0;         // the most waiters one change woke in any run
  int worst_lasting_wakeups = 0;  // ... of those whose leases lasted
};

struct LeaseTable {
  LeaseTableOptions options;
  std::vector<LeaseRow> rows;
  std::int64_t runs = 0;
  bool ok() const;
};

LeaseTable lease_table(const LeaseTableOptions& o);
std::string lease_table_text(const LeaseTable& t);
nlohmann::json lease_table_json(const LeaseTable& t);

}  // namespace zksim::cli
