// The sequential-consistency checker: hand-written traces that must pass and
// must fail, and ensembles whose clients reconnect to lagging servers.
#include "zksim/scenarios/checkers.h"
#include "zksim/world.h"
#include "ensemble_fixture.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace zksim::scenarios {
namespace {

TraceEvent reply(TimeMs t, int client, std::int64_t zxid, std::string path = "/a") {
  return TraceEvent{.time = t, .kind = TraceKind::Response, .client = client, .zxid = zxid,
                    .code2 = request_kind<GetDataRequest>, .path = std::move(path)};
}

TEST(SequentialConsistency, HoldsWhileEachClientsRepliesNeverGoBack) {
  EXPECT_TRUE(check_sequential_consistency(std::vector<TraceEvent>{reply(1, 0, 3), reply(2, 0, 3), reply(3, 0, 7), reply(4, 1, 2),
                                            reply(5, 1, 5)})
                  .empty());
}

TEST(SequentialConsistency, AReadOlderThanTheClientsOwnWriteIsAViolation) {
  TraceEvent write = reply(1, 0, 9);
  write.code2 = request_kind<SetDataRequest>;
  const auto v = check_sequential_consistency(std::vector<TraceEvent>{reply(0, 0, 4), write, reply(2, 0, 6), reply(3, 0, 5)});
  ASSERT_EQ(v.size(), 1u);  // one per client
  EXPECT_EQ(v[0].property, "sequential-consistency");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
  EXPECT_EQ(v[0].time, 2);
  EXPECT_EQ(v[0].message, "client 0 got a reply at zxid 6 (getData /a) after one at zxid 9 (t=1)");
}

TEST(SequentialConsistency, ClientsAreJudgedApart) {
  EXPECT_TRUE(check_sequential_consistency(std::vector<TraceEvent>{reply(1, 0, 9), reply(2, 1, 4)}).empty());
  EXPECT_EQ(check_sequential_consistency(std::vector<TraceEvent>{reply(1, 0, 9), reply(2, 1, 4), reply(3, 1, 3)}).size(), 1u);
}

TEST(SequentialConsistency, RepliesTheLibraryMadeUpAreLeftOut) {
  EXPECT_TRUE(check_sequential_consistency(std::vector<TraceEvent>{reply(1, 0, 9), reply(2, 0, 0), reply(3, 0, 9)}).empty());
}

// Three servers whose followers lag, clients that read and write the same
// few nodes, and a nemesis that breaks connections: clients move between
// servers, some behind what they saw. Every client's replies still never
// go back, and the runs did reach lagging servers and were refused by them.
TEST(SequentialConsistency, HoldsOnAnEnsembleWhoseClientsMoveBetweenLaggingServers) {
  int refused = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SeededDecisions d(seed);
    World w(test::dropping_ensemble(), d);
    for (int c = 0; c < 3; ++c) {
      Client& client = w.open(fmt::format("c{}", c));
      w.spawn(client, [](Client& cl, int c) -> Task<> {
        for (int i = 0; i < 30; ++i) {
          const std::string path = fmt::format("/k{}", (i + c) % 3);
          co_await cl.create(path, "", CreateMode::Persistent);
          co_await cl.set_data(path, fmt::format("{}-{}", c, i));
          co_await cl.get_data(fmt::format("/k{}", (i + c + 1) % 3));
          if (i % 7 == 0) co_await cl.sync("/");
          co_await cl.exists(fmt::format("/k{}", (i + c + 2) % 3));
        }
      }(client, c));
    }
    ASSERT_TRUE(w.run_until_done(600'000)) << "seed " << seed;
    const auto events = w.trace().events();
    EXPECT_TRUE(check_sequential_consistency(events).empty()) << "seed " << seed;
    refused += static_cast<int>(std::count_if(events.begin(), events.end(), [](const TraceEvent& e) {
      return e.kind == TraceKind::Server && e.code == static_cast<int>(ServerAction::ConnectionRefused);
    }));
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace zksim::scenarios
