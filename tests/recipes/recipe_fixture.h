// Helpers for recipe tests on the simulator: a critical section that notices
// overlap, and the leftover checks every test ends with (quiet() and the
// fault helpers come from the world tests' fixture).
#pragma once

#include "../sim/world_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace zksim {
// gtest prints errors by name.
inline void PrintTo(Error e, std::ostream* os) { *os << error_name(e); }
}  // namespace zksim

namespace zksim::test {

// A resource several clients enter and leave: counts who is inside at once
// and records the grants' fences in entry order.
struct Critical {
  int inside = 0;
  int max_inside = 0;
  int entries = 0;
  std::vector<std::int64_t> fences;
  std::vector<int> who;            // client ids, in entry order
  std::vector<std::string> nodes;  // the granted nodes, in entry order
  void enter(int client, std::int64_t fence = 0, std::string node = "") {
    max_inside = std::max(max_inside, ++inside);
    ++entries;
    fences.push_back(fence);
    who.push_back(client);
    nodes.push_back(std::move(node));
  }
  void leave() { --inside; }
  bool fences_increase() const {
    return std::adjacent_find(fences.begin(), fences.end(),
                              [](auto a, auto b) { return a >= b; }) == fences.end();
  }
};

// What every recipe test ends with: nothing of the recipe left in `dir`,
// and no watch left on the server.
inline void expect_no_leftovers(World& w, const std::string& dir) {
  EXPECT_EQ(w.server().children(dir), std::vector<std::string>{}) << "leftover nodes in " << dir;
  EXPECT_EQ(w.server().watch_count(), 0u) << "leftover watches";
}

// How many watch events of `type` the clients received.
inline int watch_events(const World& w, EventType type) {
  return static_cast<int>(std::count_if(
      w.trace().events().begin(), w.trace().events().end(), [&](const TraceEvent& e) {
        return e.kind == TraceKind::Watch && e.code == static_cast<std::int32_t>(type);
      }));
}

// Responses of `request_kind` to `client` that carried `error`.
inline int responses(const World& w, int client, std::int32_t request_kind, Error error) {
  return static_cast<int>(std::count_if(
      w.trace().events().begin(), w.trace().events().end(), [&](const TraceEvent& e) {
        return e.kind == TraceKind::Response && e.client == client &&
               e.code2 == request_kind && e.code == static_cast<std::int32_t>(error);
      }));
}

}  // namespace zksim::test
