#include "zksim/lease/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace zksim::lease {

std::optional<LeaseViolation> check_resource_exclusion(const std::vector<LeaseHold>& holds,
                                                       const std::vector<int>& writes) {
  std::set<int> closed;
  for (std::size_t i = 1; i < writes.size(); ++i) {
    if (writes[i - 1] != writes[i]) closed.insert(writes[i - 1]);
    if (closed.count(writes[i])) {
      const LeaseHold& a = holds[writes[i]];
      const LeaseHold& b = holds[writes[i - 1]];
      return LeaseViolation{"resource-exclusion", fmt::format("p{}'s hold {} wrote after p{}'s hold {} had written",
                                                              a.process, a.number, b.process, b.number)};
    }
  }
  return std::nullopt;
}

namespace {
bool excused(const LeaseHold& h, TimeMs overlap) {
  return h.lease_end <= overlap && (h.grounded <= h.lease_end || h.paused_as_lease_ended);
}
}  // namespace

std::optional<LeaseViolation> check_belief_exclusion(const std::vector<LeaseHold>& holds) {
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size(); ++j) {
      const LeaseHold& a = holds[i];
      const LeaseHold& b = holds[j];
      if (a.process == b.process) continue;
      const TimeMs s = std::max(a.start, b.start);
      if (s >= std::min(a.end, b.end) || excused(a, s) || excused(b, s)) continue;
      return LeaseViolation{"belief-exclusion", fmt::format("p{} (hold {}) and p{} (hold {}) both held the lock at {} ms",
                                                            a.process, a.number, b.process, b.number, s)};
    }
  }
  return std::nullopt;
}

std::optional<LeaseViolation> check_lease_kept(const std::vector<LeaseHold>& holds) {
  for (const LeaseHold& h : holds) {
    if (h.lost_at_release && !h.cut_off) {
      return LeaseViolation{"lease-kept", fmt::format("p{} (hold {}) had lost the lock by its release at {} ms though "
                                                      "nothing had cut it off",
                                                      h.process, h.number, h.end)};
    }
  }
  return std::nullopt;
}

}  // namespace zksim::lease
