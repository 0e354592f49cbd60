// Watch tables reuse the nodes of dropped paths: a reused node is a new
// entry, with nothing of the path it held before.
#include "node_reuse.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace zksim::detail {
namespace {

template <class Map>
void check_a_reused_node_starts_empty() {
  Map map;
  NodeReuse<Map> reuse;
  reuse.find_or_add(map, "/a/long/path/that/does/not/fit/inline")->second.push_back(1);
  reuse.find_or_add(map, "/a/long/path/that/does/not/fit/inline")->second.push_back(2);
  EXPECT_EQ(map.begin()->second, (std::vector<int>{1, 2}));
  reuse.erase(map, map.begin());
  EXPECT_TRUE(map.empty());
  auto it = reuse.find_or_add(map, "/b");
  EXPECT_EQ(it->first, "/b");
  EXPECT_TRUE(it->second.empty());
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.count("/a/long/path/that/does/not/fit/inline"), 0u);
}

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

TEST(NodeReuse, AReusedNodeIsANewEntryWithAnEmptyValue) {
  check_a_reused_node_starts_empty<std::map<std::string, std::vector<int>, std::less<>>>();
  check_a_reused_node_starts_empty<std::unordered_map<std::string, std::vector<int>, Hash, std::equal_to<>>>();
}

TEST(NodeReuse, MoreDropsThanSpareNodesThenAddsGiveEmptyEntries) {
  std::map<std::string, std::vector<int>, std::less<>> map;
  NodeReuse<decltype(map)> reuse;
  for (int i = 0; i < 100; ++i) reuse.find_or_add(map, std::to_string(i))->second.push_back(i);
  while (!map.empty()) reuse.erase(map, map.begin());
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(reuse.find_or_add(map, "k" + std::to_string(i))->second.empty());
  EXPECT_EQ(map.size(), 100u);
}

}  // namespace
}  // namespace zksim::detail
