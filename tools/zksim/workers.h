// Parallel runs in child processes: `--jobs N` starts N copies of this
// program, each on its own share of the runs (a shard of the caller's
// shard), and merges what they report. A worker is the same subcommand
// with "--shard I/N --worker": it prints JSON lines on stdout,
// {"progress": ...} now and then and {"result": ...} once at the end, and
// writes no files. Which runs a worker does depends only on its shard, so
// the merged result is the same for any N.
#pragma once

#include "args.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace zksim::cli {

// The j-th of `jobs` parts of `shard`.
Shard sub_shard(const Shard& shard, int j, int jobs);

// `args` is the subcommand and its options; --jobs and --shard (with their
// values) are removed before the worker's own are added. Calls
// on_progress(j, body) for each progress line of worker j and returns the
// workers' results in worker order. Throws UsageError if a worker cannot be
// started, fails, or prints something that is not a worker line; the other
// workers are stopped then.
std::vector<nlohmann::json> run_workers(const std::vector<std::string>& args, const Shard& shard, int jobs,
                                        const std::function<void(int, const nlohmann::json&)>& on_progress);

// The latest progress of each worker, added up for the progress line.
class WorkerTotals {
 public:
  explicit WorkerTotals(int jobs);
  void update(int worker, const nlohmann::json& progress);
  std::int64_t runs() const;
  std::int64_t violating_runs() const;
  std::size_t probes_reached() const { return probes_.size(); }

 private:
  std::vector<std::int64_t> runs_, violating_;
  std::set<std::string> probes_;
};

// For a worker: prints one line (kind "progress" or "result") and flushes.
void emit_worker_line(const char* kind, const nlohmann::json& body);

}  // namespace zksim::cli
