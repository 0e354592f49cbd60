// Search strategies of `zksim explore`: how a campaign's runs choose their
// decisions. A scenario file names the strategy that found it (`strategy
// NAME`), for people: its replay depends only on its config and its seed or
// decision list, which is what the strategy chose.
//
//   random         seeded runs (run i: seed S + i), every decision drawn
//   fixed-latency  seeded runs, but every message takes exactly the latency
//                  (no delay is drawn), so timing holds steady; faults are
//                  still drawn by the nemesis
//   dfs            bounded exhaustive search: every schedule of the first D
//                  decisions, depth first (DfsSchedules); with a nemesis
//                  latency is held fixed too, so that the D decisions are
//                  where faults strike, not the delays of the first few
//                  messages (each message's delay is a decision)
//   pct            seeded priority schedules (PctDecisions): the clients'
//                  messages and library threads go in a drawn priority
//                  order, which changes at d - 1 drawn points
#pragma once

#include "zksim/decision.h"
#include "zksim/world.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::scenarios {

enum class Strategy : int { Random = 0, FixedLatency = 1, Dfs = 2, Pct = 3 };

// "random", "fixed-latency", "dfs", "pct", in enum order.
const std::vector<std::string>& strategy_names();
std::string_view strategy_name(Strategy s);
// One line, for help texts.
std::string_view strategy_summary(Strategy s);
std::optional<Strategy> strategy_named(std::string_view name);

// The world config the runs of `s` use: fixed-latency, and dfs with a
// nemesis, hold every message to config.latency_ms (delay_choices 1);
// otherwise `config` as it is. Why dfs: with three delays a message, the
// first 12 decisions of a run are the delays of its first few messages and
// the nemesis decisions of its first two or three requests: 100,000
// schedules of them (2 or 3 clients) found none of the flaws that need a
// fault (flawed/no-guid-lock, forgetful-lock, stubborn-unlock-lock); with
// latency held, no-guid-lock and stubborn-unlock-lock are found within 100
// schedules (zksim-bench-strategies). Without a nemesis the delays are what a search has to
// explore (flawed/prefix-write-lock needs them).
WorldConfig strategy_config(Strategy s, WorldConfig config);

// A depth-first search over a world's schedules (DfsDecisions), in which a
// nemesis decision tries each of its outcomes once: no fault, then each
// request-triggered class with a choice (NemesisRates::choice_for), in list order,
// instead of its 1000 choices, most of which mean the same "no fault". The
// choices it returns are the world's own, so a RecordingDecisions around it
// records a list that replays the schedule with ListDecisions.
//
//   DfsSchedules dfs(12, config.nemesis);
//   do { RecordingDecisions r(dfs); run(workload, r, {}, config); } while (dfs.advance());
//
// A nemesis decision is known by its range, kNemesisChoices, and with a
// nemesis on only then; without one every choice passes through. Another
// decision of that range (a getChildren order of 1000 names) needs some
// thousand requests first, each drawing a decision, so within a depth of
// a few hundred none is taken for the nemesis's.
class DfsSchedules final : public DecisionSource {
 public:
  // REQUIRES: depth >= 1.
  DfsSchedules(std::size_t depth, const NemesisRates& rates);
  // The search itself (advance(), schedule()), for a search kept apart from
  // its runs (DfsDecisions::force, took).
  DfsDecisions& search() { return dfs_; }
  std::uint32_t choose(std::uint32_t n) override;
  // Moves to the next schedule; false when every one within the depth was run.
  bool advance() { return dfs_.advance(); }
  // The current schedule's number, from 0 in search order.
  std::uint64_t schedule() const { return dfs_.runs() - 1; }

 private:
  DfsDecisions dfs_;
  std::vector<std::uint32_t> outcomes_;  // a nemesis decision's choices to try; empty: no nemesis
};

// PCT, after Burckhardt et al. (ASPLOS 2010), over the world's scheduling
// choices (DecisionSource::pick_for: message delays and library thread
// lags). Each client gets a priority drawn from the seed when it is first
// scheduled; a choice made for a client is its rank among the clients seen
// so far (0 for the highest: its messages and steps go first), capped at
// the choice's range. At d - 1 change points, drawn among the first
// `horizon` scheduling choices, the client whose choice it is drops below
// every other. Every other decision (faults, orders) is drawn from the seed
// as in a random run. With `depth` 1 the priorities never change.
class PctDecisions final : public DecisionSource {
 public:
  // REQUIRES: depth >= 1, horizon >= 1.
  PctDecisions(std::uint64_t seed, int depth, std::uint64_t horizon = kPctHorizon);
  static constexpr std::uint64_t kPctHorizon = 400;

 protected:
  std::uint32_t choose(std::uint32_t n) override { return rng_.pick(n); }
  std::uint32_t choose_for(std::uint32_t n, int actor) override;

 private:
  SeededDecisions rng_;
  std::vector<std::uint64_t> change_points_;  // scheduling choices' indices, ascending
  std::uint64_t scheduled_ = 0;               // scheduling choices made so far
  std::map<int, std::int64_t> priority_;      // by actor; higher goes first
  std::int64_t lowest_ = 0;                   // below every priority given so far
};

// The decisions of seeded run `seed` under `s` (random, fixed-latency and
// pct; dfs has no seeded runs): a SeededDecisions, or for pct a
// PctDecisions of depth `depth`. REQUIRES: s != Dfs; depth >= 1.
std::unique_ptr<DecisionSource> seeded_decisions(Strategy s, std::uint64_t seed, int depth);
// pct's depth d unless told otherwise: two change points.
inline constexpr int kDefaultPctDepth = 3;

}  // namespace zksim::scenarios
