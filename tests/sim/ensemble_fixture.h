// Helpers for tests of a simulated ensemble (tests/sim and the real
// ensemble's comparisons): decision sources that set the followers' lags,
// and counts of what the servers did.
#pragma once

#include "zksim/world.h"

#include <algorithm>
#include <cstdint>

namespace zksim::test {

// Every follower lag is `lag` (of Ensemble's 4 choices), every other
// decision 0. No other decision of a world with fixed message delays has
// 4 choices.
class Lags final : public DecisionSource {
 public:
  explicit Lags(std::uint32_t lag) : lag(lag) {}
  std::uint32_t lag;
  std::uint32_t choose(std::uint32_t n) override { return n == 4 ? lag : 0; }
};

// Server 1 never lags, server 2 always lags 3 steps: the followers draw in
// server order, so the 4-choice picks alternate.
class SlowServer2 final : public DecisionSource {
 public:
  std::uint32_t choose(std::uint32_t n) override {
    if (n != 4) return 0;
    return (next_++ % 2) ? 3 : 0;
  }

 private:
  std::uint32_t next_ = 0;
};

// Three servers whose followers lag, and a nemesis that breaks 4% of the
// requests' connections before the server applied them and 4% after: the
// clients move between servers, some behind what they saw.
inline WorldConfig dropping_ensemble() {
  WorldConfig cfg;
  cfg.servers = 3;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropBeforeApply)] = 40;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropAfterApply)] = 40;
  return cfg;
}

// How many times the servers did `action` (trace.h).
inline long count_of(const World& w, ServerAction action) {
  return std::count_if(w.trace().events().begin(), w.trace().events().end(), [action](const TraceEvent& e) {
    return e.kind == TraceKind::Server && e.code == static_cast<int>(action);
  });
}

}  // namespace zksim::test
