// The watch-order checker: hand-written traces that must pass and must
// fail, and ensembles whose watching clients move between lagging servers.
#include "zksim/scenarios/checkers.h"
#include "zksim/world.h"
#include "ensemble_fixture.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace zksim::scenarios {
namespace {

TraceEvent reply(TimeMs t, int client, std::int64_t zxid, std::int64_t session = 1) {
  return TraceEvent{.time = t, .kind = TraceKind::Response, .client = client, .session = SessionId{session},
                    .zxid = zxid, .code2 = request_kind<GetDataRequest>, .path = "/a"};
}

TraceEvent event(TimeMs t, int client, std::int64_t zxid, std::int64_t session = 1) {
  return TraceEvent{.time = t, .kind = TraceKind::Watch, .client = client, .session = SessionId{session},
                    .zxid = zxid, .code = static_cast<std::int32_t>(EventType::NodeDeleted), .path = "/a"};
}

TEST(WatchOrder, HoldsWhenEachEventComesBeforeTheRepliesFromAfterItsChange) {
  EXPECT_TRUE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 3), event(2, 0, 5), reply(3, 0, 5), event(4, 0, 7), event(5, 0, 7),
                                 reply(6, 0, 9)})
                  .empty());
}

TEST(WatchOrder, AnEventAfterAReplyThatAlreadyShowedItsChangeIsAViolation) {
  const auto v = check_watch_order(std::vector<TraceEvent>{reply(1, 0, 3), reply(2, 0, 6), event(3, 0, 5)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].property, "watch-order");
  EXPECT_EQ(v[0].clients, std::vector<int>{0});
  EXPECT_EQ(v[0].time, 3);
  EXPECT_EQ(v[0].message,
            "client 0 got the NodeDeleted event of /a (zxid 5) after a reply at zxid 6 (getData /a, t=2)");
}

TEST(WatchOrder, EventsOutOfTheirChangesOrderAreAViolation) {
  const auto v = check_watch_order(std::vector<TraceEvent>{event(1, 0, 7), event(2, 0, 5)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "client 0 got the NodeDeleted event of /a (zxid 5) after one of zxid 7 (t=1)");
}

TraceEvent connected(TimeMs t, int client, std::int64_t session = 1) {
  return TraceEvent{.time = t, .kind = TraceKind::State, .client = client, .session = SessionId{session},
                    .code = static_cast<std::int32_t>(SessionState::Connected)};
}

// A watch event does not move the client's last seen zxid (ClientCnxn
// reads it from replies only; a 3.8 notification's header carries -1), so
// the client may move to a server behind a change it heard of, read the
// node as it was and hear the change again from that server: events are
// ordered per connection, not across a reconnection.
TEST(WatchOrder, EventsAreOrderedPerConnection) {
  EXPECT_TRUE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 3), event(2, 0, 5), event(3, 0, 6), connected(4, 0),
                                                        reply(5, 0, 4), event(6, 0, 5)})
                  .empty());
  EXPECT_FALSE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 3), event(2, 0, 5), event(3, 0, 6), connected(4, 0),
                                                         event(5, 0, 7), event(6, 0, 5)})
                   .empty());
}

TEST(WatchOrder, SessionsAreJudgedApart) {
  // A new session starts afresh: its events may be older than what the
  // expired one saw (its client connected to a server behind them).
  EXPECT_TRUE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 9, 1), event(2, 0, 5, 2)}).empty());
  EXPECT_TRUE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 9, 1), event(2, 1, 5, 2)}).empty());
}

TEST(WatchOrder, SessionEventsAndMadeUpRepliesAreLeftOut) {
  TraceEvent disconnected = event(2, 0, 0);
  disconnected.code = static_cast<std::int32_t>(EventType::None);
  EXPECT_TRUE(check_watch_order(std::vector<TraceEvent>{reply(1, 0, 5), disconnected, reply(3, 0, 0), event(4, 0, 6)}).empty());
}

// Three servers whose followers lag and a nemesis that breaks connections;
// clients that watch nodes the others delete and recreate. Every client's
// events keep their order, and the runs did fire watches, on
// reconnection too (setWatches).
TEST(WatchOrder, HoldsOnAnEnsembleWhoseWatchingClientsMoveBetweenLaggingServers) {
  int events = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SeededDecisions d(seed);
    World w(test::dropping_ensemble(), d);
    for (int c = 0; c < 3; ++c) {
      Client& client = w.open(fmt::format("c{}", c));
      w.spawn(client, [](Client& cl, int c) -> Task<> {
        for (int i = 0; i < 30; ++i) {
          const std::string mine = fmt::format("/k{}", (i + c) % 3);
          const std::string other = fmt::format("/k{}", (i + c + 1) % 3);
          co_await cl.exists(other, [](const WatchedEvent&) {});
          co_await cl.get_children("/", [](const WatchedEvent&) {});
          co_await cl.create(mine, "", CreateMode::Persistent);
          co_await cl.set_data(mine, fmt::format("{}-{}", c, i));
          co_await cl.get_data(other, [](const WatchedEvent&) {});
          co_await cl.remove(mine);
        }
      }(client, c));
    }
    ASSERT_TRUE(w.run_until_done(600'000)) << "seed " << seed;
    const auto& trace = w.trace().events();
    EXPECT_TRUE(check_watch_order(trace).empty()) << "seed " << seed;
    events += static_cast<int>(std::count_if(trace.begin(), trace.end(), [](const TraceEvent& e) {
      return e.kind == TraceKind::Watch && e.code != static_cast<std::int32_t>(EventType::None);
    }));
  }
  EXPECT_GT(events, 100);
}

}  // namespace
}  // namespace zksim::scenarios
