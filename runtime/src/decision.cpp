#include "zksim/decision.h"

namespace zksim {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

SeededDecisions::SeededDecisions(std::uint64_t seed) {
  for (std::uint64_t& word : s_) word = splitmix64(seed);
}

std::uint64_t SeededDecisions::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint32_t SeededDecisions::choose(std::uint32_t n) {
  // Rejection sampling: drop the top 2^64 mod n values so every residue is
  // equally likely.
  const std::uint64_t threshold = (0 - static_cast<std::uint64_t>(n)) % n;
  while (true) {
    std::uint64_t r = next_u64();
    if (r >= threshold) return static_cast<std::uint32_t>(r % n);
  }
}

std::uint32_t ListDecisions::choose(std::uint32_t n) {
  if (next_ >= list_.size()) {
    ++next_;
    return 0;
  }
  return list_[next_++] % n;
}

std::uint32_t RecordingDecisions::choose(std::uint32_t n) {
  std::uint32_t c = inner_.pick(n);
  choices_.push_back(c);
  return c;
}

std::uint32_t RecordingDecisions::choose_for(std::uint32_t n, int actor) {
  std::uint32_t c = inner_.pick_for(n, actor);
  choices_.push_back(c);
  return c;
}

std::vector<std::uint32_t> RecordingDecisions::recorded() const {
  std::vector<std::uint32_t> out = choices_;
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

std::uint32_t DfsDecisions::choose(std::uint32_t n) {
  std::size_t i = trail_.size();
  std::uint32_t c = i < prefix_.size() ? prefix_[i] : 0;
  if (c >= n) c = n - 1;  // the run diverged from the one that set the prefix
  trail_.push_back(Step{c, n});
  return c;
}

bool DfsDecisions::advance() {
  std::size_t depth = trail_.size() < max_depth_ ? trail_.size() : max_depth_;
  while (depth > 0) {
    const Step& s = trail_[depth - 1];
    if (s.choice + 1 < s.n) {
      prefix_.resize(depth);
      for (std::size_t i = 0; i + 1 < depth; ++i) prefix_[i] = trail_[i].choice;
      prefix_[depth - 1] = s.choice + 1;
      trail_.clear();
      ++runs_;
      return true;
    }
    --depth;
  }
  trail_.clear();
  return false;
}

}  // namespace zksim
