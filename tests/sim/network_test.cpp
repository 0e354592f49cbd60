// The simulated network's rules (sim/src/network.h), one test each.
#include "network.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace zksim {
namespace {

// A network of 10 ms hops and 3 delay choices, recording what each end got
// and when.
struct Fixture {
  explicit Fixture(std::vector<std::uint32_t> choices) : decisions(std::move(choices)) {}
  runtime::EventLoop loop;
  ListDecisions decisions;
  std::vector<std::pair<TimeMs, std::uint32_t>> at_server, at_client;  // (time, xid)
  Network net{loop, decisions, 10, 3,
              Network::Hooks{
                  .at_server = [this](std::uint64_t, UpMsg& m) { at_server.emplace_back(loop.now(), m.xid); },
                  .at_client = [this](std::uint64_t, DownMsg& m) { at_client.emplace_back(loop.now(), m.xid); },
                  .actor = [](int handle) { return handle; },
              }};
  void run() {
    while (loop.step(1'000'000)) {
    }
  }
};

UpMsg up(std::uint32_t xid) { return UpMsg{.kind = UpMsg::Req, .xid = xid}; }
DownMsg down(std::uint32_t xid) { return DownMsg{.kind = DownMsg::Reply, .xid = xid}; }

TEST(Network, AMessageTakesTheLatencyTimesOneMoreThanItsDrawnChoice) {
  Fixture f({2, 0});
  const std::uint64_t c = f.net.open(0, 0);
  f.net.send_up(c, up(1));
  f.net.send_down(c, down(2));
  f.run();
  EXPECT_EQ(f.at_server, (std::vector<std::pair<TimeMs, std::uint32_t>>{{30, 1}}));
  EXPECT_EQ(f.at_client, (std::vector<std::pair<TimeMs, std::uint32_t>>{{10, 2}}));
}

TEST(Network, MessagesOnAChannelArriveInTheOrderSent) {
  Fixture f({2, 0});  // the first drawn slow, the second fast
  const std::uint64_t c = f.net.open(0, 0);
  f.net.send_up(c, up(1));
  f.net.send_up(c, up(2));
  f.run();
  EXPECT_EQ(f.at_server, (std::vector<std::pair<TimeMs, std::uint32_t>>{{30, 1}, {30, 2}}));
}

TEST(Network, AClosedServerEndServesNothingAndSendsOnlyClosed) {
  Fixture f({});
  const std::uint64_t c = f.net.open(0, 0);
  f.net.send_up(c, up(1));
  f.net.find(c)->server_open = false;
  f.net.send_down(c, down(2));
  f.net.send_down(c, DownMsg{.kind = DownMsg::Closed, .xid = 3});
  f.run();
  EXPECT_TRUE(f.at_server.empty());
  EXPECT_EQ(f.at_client, (std::vector<std::pair<TimeMs, std::uint32_t>>{{10, 3}}));
}

TEST(Network, AConnectionIsFreedOnceItsClientEndClosedAndItsChannelsDrained) {
  Fixture f({});
  const std::uint64_t c = f.net.open(0, 0);
  f.net.send_down(c, down(1));
  f.net.find(c)->client_open = false;
  f.net.free_if_done(c);
  ASSERT_NE(f.net.find(c), nullptr);  // a message is still on its way
  f.run();
  EXPECT_TRUE(f.at_client.empty());   // a closed client end reads nothing
  EXPECT_EQ(f.net.find(c), nullptr);
  EXPECT_EQ(f.net.open(0, 0), c + 1);  // ids are never reused
}

TEST(Network, ADelayFaultHoldsTheNextDownMessageOnly) {
  Fixture f({});
  const std::uint64_t c = f.net.open(0, 0);
  f.net.find(c)->extra_delay_next = 100;
  f.net.send_down(c, down(1));
  f.net.send_down(c, down(2));
  f.run();
  EXPECT_EQ(f.at_client, (std::vector<std::pair<TimeMs, std::uint32_t>>{{110, 1}, {110, 2}}));
}

}  // namespace
}  // namespace zksim
