// What a campaign keeps of one run, as it crosses from the child process
// that made it (run_pool.h) to the campaign: bytes both sides read the same
// way, since a child is a fork of its parent (no versioning, no byte order).
#pragma once

#include "zksim/fault.h"
#include "zksim/scenarios/checkers.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zksim::scenarios::detail {

struct RunRecord {
  std::vector<Violation> violations;   // the first of each property, in time order
  std::map<std::string, int> probes;   // the nonzero ones
  int wakeups = 0;
  int wakeups_without_progress = 0;
  int granted_while_suspended = 0;
  int lost_in_transit = 0;
  std::int64_t decisions = 0;          // decisions the run made
  int completed_ops = 0;
  std::array<int, kFaultClasses> struck{};
  std::array<bool, kFaultClasses> armed{};  // the classes the run's nemesis struck with
  // A dfs run: what each decision chose out of how many (DfsDecisions::Step).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> trail;
};

std::string encode(const RunRecord& r);
// REQUIRES: `bytes` came from encode().
RunRecord decode(std::string_view bytes);

// Violation messages are cut to this many bytes on their way out of a
// child: an answer stays small (run_pool.h), and no message is that long.
inline constexpr std::size_t kMaxMessageBytes = 4096;

}  // namespace zksim::scenarios::detail
