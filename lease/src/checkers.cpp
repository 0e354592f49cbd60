#include "zksim/lease/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace zksim::lease {

std::optional<Violation> check_resource_exclusion(const std::vector<LeaseHold>& holds,
                                                       const std::vector<int>& writes) {
  std::set<int> closed;
  for (std::size_t i = 1; i < writes.size(); ++i) {
    if (writes[i - 1] != writes[i]) closed.insert(writes[i - 1]);
    if (closed.count(writes[i])) {
      const LeaseHold& a = holds[writes[i]];
      const LeaseHold& b = holds[writes[i - 1]];
      return Violation{.property = "resource-exclusion",
                       .message = fmt::format("p{}'s hold {} wrote after p{}'s hold {} had written", a.process,
                                              a.number, b.process, b.number),
                       .clients = {a.process, b.process},
                       .time = -1};
    }
  }
  return std::nullopt;
}

namespace {
bool excused(const LeaseHold& h, TimeMs overlap) {
  return h.lease_end <= overlap && (h.grounded <= h.lease_end || h.paused_as_lease_ended);
}
}  // namespace

std::optional<Violation> check_belief_exclusion(const std::vector<LeaseHold>& holds) {
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size(); ++j) {
      const LeaseHold& a = holds[i];
      const LeaseHold& b = holds[j];
      if (a.process == b.process) continue;
      const TimeMs s = std::max(a.start, b.start);
      if (s >= std::min(a.end, b.end) || excused(a, s) || excused(b, s)) continue;
      return Violation{.property = "belief-exclusion",
                       .message = fmt::format("p{} (hold {}) and p{} (hold {}) both held the lock at {} ms",
                                              a.process, a.number, b.process, b.number, s),
                       .clients = {a.process, b.process},
                       .time = s};
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_lease_kept(const std::vector<LeaseHold>& holds) {
  for (const LeaseHold& h : holds) {
    if (h.lost_at_release && !h.cut_off) {
      return Violation{.property = "lease-kept",
                       .message = fmt::format("p{} (hold {}) had lost the lock by its release at {} ms though "
                                              "nothing had cut it off",
                                              h.process, h.number, h.end),
                       .clients = {h.process},
                       .time = h.end};
    }
  }
  return std::nullopt;
}

namespace {
// The wake-ups of each change, in delivery order.
std::map<std::uint64_t, std::vector<const LeaseWakeup*>> by_change(const std::vector<LeaseWakeup>& wakeups,
                                                                    bool lasted_only) {
  std::map<std::uint64_t, std::vector<const LeaseWakeup*>> out;
  for (const LeaseWakeup& w : wakeups) {
    if (w.lease_lasted || !lasted_only) out[w.change].push_back(&w);
  }
  return out;
}
}  // namespace

std::optional<Violation> check_herd(const std::vector<LeaseWakeup>& wakeups) {
  for (const auto& [change, woken] : by_change(wakeups, /*lasted_only=*/true)) {
    if (woken.size() < 2) continue;
    Violation v{.property = "herd-effect", .time = woken.front()->time};
    std::string who;
    for (const LeaseWakeup* w : woken) {
      v.clients.push_back(w->process);
      who += fmt::format("{}p{}", who.empty() ? "" : ", ", w->process);
    }
    v.message = fmt::format("one change woke {} waiters whose leases lasted ({}) at {} ms", woken.size(), who, v.time);
    return v;
  }
  return std::nullopt;
}

int worst_wakeups(const std::vector<LeaseWakeup>& wakeups, bool lasted_only) {
  std::size_t worst = 0;
  for (const auto& [change, woken] : by_change(wakeups, lasted_only)) worst = std::max(worst, woken.size());
  return static_cast<int>(worst);
}

}  // namespace zksim::lease
