#include "zksim/decision.h"

#include <gtest/gtest.h>

#include <set>

namespace zksim {
namespace {

TEST(SeededDecisions, SameSeedSameChoices) {
  SeededDecisions a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    std::uint32_t x = a.pick(1000);
    EXPECT_EQ(x, b.pick(1000));
    differs |= x != c.pick(1000);
  }
  EXPECT_TRUE(differs);
}

// Recorded outputs: the generator and the bounded mapping are ours, so these
// numbers must be the same with every compiler, library and build type.
TEST(SeededDecisions, OutputIsPinned) {
  SeededDecisions d(1);
  EXPECT_EQ(d.next_u64(), 0xb3f2af6d0fc710c5ULL);
  SeededDecisions e(2026);
  std::vector<std::uint32_t> picks;
  for (int i = 0; i < 8; ++i) picks.push_back(e.pick(10));
  EXPECT_EQ(picks, (std::vector<std::uint32_t>{9, 2, 8, 6, 4, 6, 2, 9}));
}

TEST(SeededDecisions, PickStaysInRangeAndCoversIt) {
  SeededDecisions d(7);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 10000; ++i) {
    std::uint32_t x = d.pick(7);
    ASSERT_LT(x, 7u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_EQ(d.pick(1), 0u);
}

TEST(ListDecisions, ReplaysThenPadsWithZero) {
  ListDecisions d({3, 9, 1});
  EXPECT_EQ(d.pick(5), 3u);
  EXPECT_EQ(d.pick(5), 4u);  // 9 mod 5
  EXPECT_EQ(d.pick(2), 1u);
  EXPECT_EQ(d.pick(100), 0u);
  EXPECT_EQ(d.used(), 4u);
}

TEST(RecordingDecisions, RecordsWhatReplays) {
  SeededDecisions seed(5);
  RecordingDecisions rec(seed);
  std::vector<std::uint32_t> first;
  for (int i = 0; i < 50; ++i) first.push_back(rec.pick(3));
  ListDecisions replay(rec.recorded());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(replay.pick(3), first[i]);
}

TEST(DfsDecisions, EnumeratesEveryCombinationOnce) {
  DfsDecisions dfs(10);
  std::set<std::vector<std::uint32_t>> seen;
  do {
    std::vector<std::uint32_t> run = {dfs.pick(2), dfs.pick(3), dfs.pick(1)};
    EXPECT_TRUE(seen.insert(run).second);
  } while (dfs.advance());
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(dfs.runs(), 6u);
}

TEST(DfsDecisions, DepthBoundLeavesLaterChoicesAtZero) {
  DfsDecisions dfs(1);
  std::set<std::vector<std::uint32_t>> seen;
  do {
    seen.insert({dfs.pick(3), dfs.pick(3)});
  } while (dfs.advance());
  EXPECT_EQ(seen, (std::set<std::vector<std::uint32_t>>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(DfsDecisions, HandlesRunsOfDifferentShapes) {
  // The number of later choices depends on earlier ones, as in a real world.
  DfsDecisions dfs(10);
  std::set<std::vector<std::uint32_t>> seen;
  do {
    std::vector<std::uint32_t> run{dfs.pick(2)};
    if (run[0] == 1) run.push_back(dfs.pick(2));
    EXPECT_TRUE(seen.insert(run).second);
  } while (dfs.advance());
  EXPECT_EQ(seen, (std::set<std::vector<std::uint32_t>>{{0}, {1, 0}, {1, 1}}));
}

}  // namespace
}  // namespace zksim
