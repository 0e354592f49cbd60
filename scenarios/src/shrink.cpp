#include "zksim/scenarios/shrink.h"

#include "run_pool.h"
#include "run_record.h"
#include "zksim/scenarios/campaign.h"
#include "zksim/scenarios/property.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace zksim::scenarios {
namespace {

void trim(DecisionList& l) {
  while (!l.empty() && l.back() == 0) l.pop_back();
}

// The predicate with its budget: false once the budget is spent.
class Budgeted {
 public:
  Budgeted(const std::function<bool(const DecisionList&)>& fails, int max_runs)
      : fails_(fails), max_runs_(max_runs) {}
  bool operator()(const DecisionList& l) {
    if (spent()) return false;
    ++runs_;
    return fails_(l);
  }
  bool spent() const { return runs_ >= max_runs_; }
  int runs() const { return runs_; }

 private:
  const std::function<bool(const DecisionList&)>& fails_;
  int max_runs_;
  int runs_ = 0;
};

// The shortest prefix that still fails, by bisection (the decisions after
// a violation rarely matter; a non-monotone predicate only costs precision,
// since every accepted list failed). True if the list got shorter.
bool cut_tail(DecisionList& cur, Budgeted& fails) {
  std::size_t lo = 0, hi = cur.size();  // the prefix of length hi fails
  while (lo < hi && !fails.spent()) {
    const std::size_t mid = lo + (hi - lo) / 2;
    DecisionList cand(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(mid));
    trim(cand);
    if (fails(cand)) {
      hi = cand.size();
    } else {
      lo = mid + 1;
    }
  }
  if (hi == cur.size()) return false;
  cur.resize(hi);
  trim(cur);
  return true;
}

// One pass over chunk sizes (half the list, a quarter, ... one) trying
// `change` on each chunk [i, i+k); an accepted change stays, and the next
// chunk starts at the same i. True if anything was accepted.
template <class Change>
bool chunk_pass(DecisionList& cur, Budgeted& fails, std::size_t smallest, Change change) {
  bool progress = false;
  for (std::size_t k = std::max<std::size_t>(cur.size() / 2, 1); k >= smallest && !cur.empty(); k /= 2) {
    std::size_t i = 0;
    while (i < cur.size() && !fails.spent()) {
      DecisionList cand = cur;
      if (!change(cand, i, std::min(cur.size(), i + k))) {
        i += k;
        continue;
      }
      trim(cand);
      if (fails(cand)) {
        cur = std::move(cand);
        progress = true;
      } else {
        i += k;
      }
    }
  }
  return progress;
}

bool remove_chunks(DecisionList& cur, Budgeted& fails) {
  return chunk_pass(cur, fails, 1, [](DecisionList& l, std::size_t from, std::size_t to) {
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(from), l.begin() + static_cast<std::ptrdiff_t>(to));
    return true;
  });
}

// Whole chunks to 0 at once (later decisions keep their positions, which
// removal shifts); single values are left to lower_values.
bool zero_chunks(DecisionList& cur, Budgeted& fails) {
  return chunk_pass(cur, fails, 2, [](DecisionList& l, std::size_t from, std::size_t to) {
    bool any = false;
    for (std::size_t j = from; j < to; ++j) {
      any = any || l[j] != 0;
      l[j] = 0;
    }
    return any;
  });
}

// One pass lowering each value: to 0, else to half, else to one less.
bool lower_values(DecisionList& cur, Budgeted& fails) {
  bool progress = false;
  for (std::size_t i = 0; i < cur.size() && !fails.spent(); ++i) {
    const std::uint32_t v = cur[i];
    std::vector<std::uint32_t> lowers;
    for (std::uint32_t x : {0u, v / 2, v - 1}) {
      if (x < v && std::find(lowers.begin(), lowers.end(), x) == lowers.end()) lowers.push_back(x);
    }
    for (std::uint32_t lower : lowers) {
      DecisionList cand = cur;
      cand[i] = lower;
      trim(cand);
      if (fails(cand)) {
        cur = std::move(cand);
        progress = true;
        break;
      }
    }
  }
  return progress;
}

}  // namespace

ShrunkList shrink_list(DecisionList start, const std::function<bool(const DecisionList&)>& fails,
                       int max_runs) {
  Budgeted budgeted(fails, max_runs);
  trim(start);
  bool progress = true;
  while (progress && !budgeted.spent()) {
    progress = cut_tail(start, budgeted);
    progress = remove_chunks(start, budgeted) || progress;
    progress = zero_chunks(start, budgeted) || progress;
    progress = lower_values(start, budgeted) || progress;
  }
  return ShrunkList{std::move(start), budgeted.runs()};
}

Shrunk shrink_scenario(Scenario s, const std::string& property, int max_runs) {
  s.seed.reset();
  Shrunk out;
  if (max_runs <= 0) {
    out.scenario = std::move(s);
    return out;
  }
  // Each list runs in a child process: one may crash the recipe (and for
  // "crashed" that is the violation kept). The answer: the violation's
  // message, time and clients, or nothing.
  const auto in_child = [&](std::string_view bytes) {
    Scenario c = s;
    c.decisions.resize(bytes.size() / sizeof(std::uint32_t));
    if (!bytes.empty()) std::memcpy(c.decisions.data(), bytes.data(), bytes.size());
    detail::RunRecord record;
    for (Violation& v : run_scenario(c, KeepTrace::No).result.violations) {
      if (v.property == property) {
        record.violations.push_back(std::move(v));
        break;
      }
    }
    return detail::encode(record);
  };
  detail::RunPool pool(1, in_child, {}, 1);
  auto violation_in = [&](const DecisionList& l) -> std::optional<Violation> {
    pool.submit(0, std::string(reinterpret_cast<const char*>(l.data()), l.size() * sizeof(std::uint32_t)));
    detail::RunPool::Answer a;
    try {
      a = pool.next();
    } catch (const detail::ExternalDeath& e) {
      throw RunnerKilled(0, -1, e.what());
    }
    if (a.crash) {
      if (property != name(Property::Crashed)) return std::nullopt;
      return Violation{property, fmt::format("the run crashed: {}", *a.crash), {}, 0};
    }
    detail::RunRecord r = detail::decode(a.bytes);
    if (r.violations.empty()) return std::nullopt;
    return std::move(r.violations.front());
  };
  // The violation of the last list that failed: shrink_list keeps that list,
  // so the result needs no run of its own.
  std::optional<Violation> last = violation_in(s.decisions);
  out.runs = 1;
  if (!last) {
    out.scenario = std::move(s);
    return out;
  }
  auto fails = [&](const DecisionList& l) {
    std::optional<Violation> v = violation_in(l);
    if (!v) return false;
    last = std::move(v);
    return true;
  };
  ShrunkList shrunk = shrink_list(s.decisions, fails, max_runs - 1);
  s.decisions = std::move(shrunk.decisions);
  out.violation = std::move(*last);
  out.runs += shrunk.runs;
  s.expect_violation = property;
  out.scenario = std::move(s);
  out.reproduced = true;
  return out;
}

}  // namespace zksim::scenarios
