// Adding and dropping entries of a node-based map keyed by strings without
// allocating: a watch table gains a path and loses it again at every wait
// on a lock, and a fresh entry costs three allocations (the node, its key,
// its value's storage). A dropped entry's node is kept, its value emptied
// (what it held goes at once) but its key and value keeping their capacity,
// and the next new key takes it.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace zksim::detail {

template <class Map>
class NodeReuse {
 public:
  // The entry for `key`, added with an empty value if absent.
  typename Map::iterator find_or_add(Map& map, std::string_view key) {
    auto it = map.find(key);
    if (it != map.end()) return it;
    if (spare_.empty()) return map.emplace(std::string(key), typename Map::mapped_type{}).first;
    typename Map::node_type node = std::move(spare_.back());
    spare_.pop_back();
    node.key().assign(key);
    return map.insert(std::move(node)).position;
  }

  // Erases `it`, keeping its node (up to kSpare of them) with its value
  // emptied.
  void erase(Map& map, typename Map::iterator it) {
    if (spare_.size() >= kSpare) {
      map.erase(it);
      return;
    }
    spare_.push_back(map.extract(it));
    spare_.back().mapped().clear();
  }

 private:
  static constexpr std::size_t kSpare = 8;
  std::vector<typename Map::node_type> spare_;
};

}  // namespace zksim::detail
