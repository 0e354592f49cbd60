// The one source of nondeterminism in the simulated world. Every choice the
// scheduler, the network or the nemesis makes is a call to pick(n), and
// choice 0 is always the boring one (FIFO delivery, no delay, no fault), so a
// shrunk decision list reads as "what had to go wrong".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace zksim {

class DecisionSource {
 public:
  virtual ~DecisionSource() = default;
  // A choice in [0, n). REQUIRES: n >= 1. pick(1) is 0 and is not a
  // decision: no implementation sees it, so a list holds only real choices.
  std::uint32_t pick(std::uint32_t n) { return n <= 1 ? 0 : choose(n); }
  // A scheduling choice made for `actor` (a number the world gives each
  // client's connection and each of its library's threads): a message's
  // delay or a thread's lag, where a larger choice runs it later. Sources
  // that schedule by actor (PCT) tell them apart; for the others it is
  // pick(n), so the two make the same runs.
  std::uint32_t pick_for(std::uint32_t n, int actor) { return n <= 1 ? 0 : choose_for(n, actor); }

 protected:
  // REQUIRES: n >= 2.
  virtual std::uint32_t choose(std::uint32_t n) = 0;
  virtual std::uint32_t choose_for(std::uint32_t n, int /*actor*/) { return choose(n); }
};

// xoshiro256** seeded through splitmix64, with our own unbiased bounded
// mapping: the same seed gives the same choices on every platform and
// standard library.
class SeededDecisions final : public DecisionSource {
 public:
  explicit SeededDecisions(std::uint64_t seed);
  std::uint32_t choose(std::uint32_t n) override;
  std::uint64_t next_u64();

 private:
  std::uint64_t s_[4];
};

// Replays a given list: the i-th call returns list[i] mod n; past the end,
// every choice is 0. This is what rapidcheck generates and shrinks.
class ListDecisions final : public DecisionSource {
 public:
  explicit ListDecisions(std::vector<std::uint32_t> list) : list_(std::move(list)) {}
  std::uint32_t choose(std::uint32_t n) override;
  std::size_t used() const { return next_; }

 private:
  std::vector<std::uint32_t> list_;
  std::size_t next_ = 0;
};

// Passes choices through from another source and records them, so a run
// driven by a seed can be written down and replayed with ListDecisions.
class RecordingDecisions final : public DecisionSource {
 public:
  explicit RecordingDecisions(DecisionSource& inner) : inner_(inner) {}
  std::uint32_t choose(std::uint32_t n) override;
  std::uint32_t choose_for(std::uint32_t n, int actor) override;
  // The choices made so far; trailing zeros trimmed, since a replay pads with 0.
  std::vector<std::uint32_t> recorded() const;

 private:
  DecisionSource& inner_;
  std::vector<std::uint32_t> choices_;
};

// Depth-first enumeration of every decision sequence, for bounded exhaustive
// search. Use:
//   DfsDecisions dfs(/*max_depth=*/20);
//   do { run_world(dfs); } while (dfs.advance());
// Each run follows the current prefix and then picks 0; advance() moves to
// the next unexplored sequence (the last position that still has an untried
// choice, within max_depth) and returns false when all are done. Positions
// past max_depth always pick 0.
class DfsDecisions final : public DecisionSource {
 public:
  explicit DfsDecisions(std::size_t max_depth) : max_depth_(max_depth) {}
  std::uint32_t choose(std::uint32_t n) override;
  bool advance();
  std::uint64_t runs() const { return runs_; }
  const std::vector<std::uint32_t>& current() const { return prefix_; }

  // A decision of a run: its choice out of n.
  struct Step {
    std::uint32_t choice;
    std::uint32_t n;
  };
  // What this run chose so far.
  const std::vector<Step>& trail() const { return trail_; }
  // A search kept in another process than its runs (a child making each
  // run): the run forced to `prefix` (a current() of the search's), and the
  // search told what that run chose before it advances.
  void force(std::vector<std::uint32_t> prefix) { prefix_ = std::move(prefix); }
  void took(std::vector<Step> trail) { trail_ = std::move(trail); }

 private:
  std::size_t max_depth_;
  std::vector<std::uint32_t> prefix_;  // choices forced for this run
  std::vector<Step> trail_;            // what this run actually picked
  std::uint64_t runs_ = 1;
};

}  // namespace zksim
