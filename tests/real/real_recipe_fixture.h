// Helpers for running the recipes on the real server: clients on one
// RealLoop, a count of holders (every coroutine runs on the loop's one
// thread, so plain ints do), and the leftover check every test ends with.
#pragma once

#include "zk_server_env.h"
#include "zksim/real_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace zksim {
// gtest prints errors by name.
inline void PrintTo(Error e, std::ostream* os) { *os << error_name(e); }
}  // namespace zksim

namespace zksim::test {

// Short sessions keep the expiry tests quick; the server's tickTime (200 ms)
// allows timeouts from 400 ms.
constexpr int kSessionTimeoutMs = 3000;

// Who is inside a critical section at once, and the grants' fences in
// entry order.
struct Holders {
  int inside = 0;
  int max_inside = 0;
  int entries = 0;
  std::vector<std::int64_t> fences;
  void enter(std::int64_t fence = 0) {
    max_inside = std::max(max_inside, ++inside);
    ++entries;
    fences.push_back(fence);
  }
  void leave() { --inside; }
  bool fences_increase() const {
    return std::adjacent_find(fences.begin(), fences.end(),
                              [](auto a, auto b) { return a >= b; }) == fences.end();
  }
};

// Resumes once `c` is in state `s` (true) or after `limit_ms` (false).
inline Task<bool> until_state(Client& c, SessionState s, TimeMs limit_ms = 10'000) {
  TimeMs end = c.now() + limit_ms;
  while (c.state() != s) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

// Watches on the server, data and child: `mntr`'s zk_watch_count
// (DataTree.getWatchCount); -1 if absent. Not `wchs`, whose "Total
// watches" counts data watches only (DataTree.dumpWatchesSummary).
inline long total_watches() {
  std::string reply = zk_server().four_letter("mntr");
  const std::string key = "zk_watch_count";
  std::size_t at = reply.find(key);
  return at == std::string::npos ? -1 : std::stol(reply.substr(at + key.size()));
}

class RealRecipeTest : public ::testing::Test {
 protected:
  // A client straight to the server (or to `hosts`, e.g. a TcpGate).
  RealClient& open(std::string hosts = zk_server().hosts(), int timeout_ms = kSessionTimeoutMs) {
    clients_.push_back(RealClient::open(loop_, std::move(hosts), timeout_ms));
    return *clients_.back();
  }
  void spawn(Task<> t) { loop_.spawn(std::move(t)); }
  // Runs the spawned tasks to the end; fails the test after `limit_ms`.
  void run(TimeMs limit_ms = 30'000) { ASSERT_TRUE(loop_.run_until_done(limit_ms)); }

  // What every test ends with, while its clients are still open: no child
  // left in `dir` and no watch left on the server (`mntr`).
  void expect_no_leftovers(const std::string& dir) {
    RealClient& checker = open();
    std::vector<std::string> children;
    Error error = Error::Ok;
    spawn([](Client& c, std::string dir, std::vector<std::string>& out, Error& error) -> Task<> {
      auto listed = co_await c.get_children(dir);
      if (listed) out = listed->children;
      else error = listed.error();
    }(checker, dir, children, error));
    run(10'000);
    EXPECT_EQ(error, Error::Ok) << dir;
    EXPECT_EQ(children, std::vector<std::string>{}) << "leftover nodes in " << dir;
    EXPECT_EQ(total_watches(), 0) << "leftover watches";
  }

 private:
  RealLoop loop_;  // declared first: the clients must go before it
  std::vector<std::unique_ptr<RealClient>> clients_;
};

}  // namespace zksim::test
