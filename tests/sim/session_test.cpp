// Server-side sessions: negotiation, expiry deadlines, close and expire.
#include "fixture.h"

namespace zksim::test {
namespace {

using SessionRules = ServerTest;

TEST_F(SessionRules, TimeoutIsClampedToTwoAndTwentyTicks) {
  // tick_ms = 200 in the fixture.
  EXPECT_EQ(server.open_session(100, now).timeout_ms, 400);
  EXPECT_EQ(server.open_session(1000, now).timeout_ms, 1000);
  EXPECT_EQ(server.open_session(100000, now).timeout_ms, 4000);
}

TEST_F(SessionRules, ExplicitMinAndMaxOverrideTheTickDefaults) {
  Server s(ServerConfig{.tick_ms = 200, .min_session_timeout_ms = 1000, .max_session_timeout_ms = 2000});
  EXPECT_EQ(s.open_session(100, 0).timeout_ms, 1000);
  EXPECT_EQ(s.open_session(5000, 0).timeout_ms, 2000);
}

TEST_F(SessionRules, SessionIdsCarryTheServerIdInTheHighByte) {
  Server s(ServerConfig{.server_id = 3});
  EXPECT_EQ(static_cast<std::uint64_t>(s.open_session(4000, 0).id.value), 0x0300000000000000ULL);
  EXPECT_EQ(static_cast<std::uint64_t>(s.open_session(4000, 0).id.value), 0x0300000000000001ULL);
}

TEST_F(SessionRules, DeadlineIsRoundedUpToTheNextTick) {
  Server s(ServerConfig{.tick_ms = 200});
  SessionId id = s.open_session(1000, 1050).id;  // 2050 rounds up to 2200
  EXPECT_EQ(s.next_expiry(), 2200);
  EXPECT_TRUE(s.expire_due(2199).empty());
  EXPECT_EQ(s.expire_due(2200).size(), 1u);
  EXPECT_FALSE(s.session_alive(id));
}

TEST_F(SessionRules, EveryPacketPushesTheDeadline) {
  Server s(ServerConfig{.tick_ms = 200});
  SessionId id = s.open_session(1000, 0).id;  // deadline 1200
  EXPECT_TRUE(s.touch(id, 500));              // ping: deadline 1600
  EXPECT_EQ(s.next_expiry(), 1600);
  ASSERT_EQ(s.apply(id, ExistsRequest{"/"}, 900).error, Error::Ok);  // request: 2000
  EXPECT_EQ(s.next_expiry(), 2000);
  EXPECT_TRUE(s.expire_due(1999).empty());
  EXPECT_FALSE(s.touch(SessionId{42}, 0));
}

TEST_F(SessionRules, ExpiryDeletesEphemeralsInOneTransactionAndNotifiesOthers) {
  SessionId watcher = server.open_session(4000, now).id;
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/e1", CreateMode::Ephemeral).error, Error::Ok);
  ASSERT_EQ(create("/p/e2", CreateMode::Ephemeral).error, Error::Ok);
  ASSERT_EQ(err(ExistsRequest{"/p/e1", true}, watcher), Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/p", true}, watcher), Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/p/e2", true}), Error::Ok);  // the dying session's own watch
  Zxid z = server.last_zxid();
  Outcome o = server.expire(s1, now);
  EXPECT_EQ(o.zxid.value, z.value + 1);
  EXPECT_EQ(server.last_zxid().value, z.value + 1);
  EXPECT_FALSE(server.session_alive(s1));
  EXPECT_TRUE(server.children("/p").empty());
  EXPECT_EQ(stat("/p").pzxid, o.zxid.value);
  ASSERT_EQ(o.notifications.size(), 2u);
  for (const Notification& n : o.notifications) EXPECT_EQ(n.session, watcher);
  EXPECT_EQ(o.notifications[0].event.type, EventType::NodeDeleted);
  EXPECT_EQ(o.notifications[0].event.path, "/p/e1");
  EXPECT_EQ(o.notifications[1].event.type, EventType::NodeChildrenChanged);
  EXPECT_EQ(o.notifications[1].event.path, "/p");
}

TEST_F(SessionRules, CloseDeletesEphemeralsAtOnce) {
  ASSERT_EQ(create("/e", CreateMode::Ephemeral).error, Error::Ok);
  ASSERT_EQ(server.close_session(s1, now).error, Error::Ok);
  EXPECT_FALSE(server.node("/e"));
  EXPECT_TRUE(server.ephemerals(s1).empty());
}

TEST_F(SessionRules, WatchesDieWithTheSession) {
  ASSERT_EQ(err(ExistsRequest{"/x", true}), Error::NoNode);
  ASSERT_EQ(err(AddWatchRequest{"/", AddWatchMode::PersistentRecursive}), Error::Ok);
  EXPECT_GT(server.watch_count(), 0u);
  ASSERT_EQ(server.close_session(s1, now).error, Error::Ok);
  EXPECT_EQ(server.watch_count(), 0u);
  EXPECT_TRUE(server.watches_of(s1).empty());
}

TEST_F(SessionRules, LiveSessionsAndTheirEphemeralsAreQueryable) {
  SessionId s2 = server.open_session(6000, now).id;
  ASSERT_EQ(create("/b", CreateMode::Ephemeral, "", s2).error, Error::Ok);
  ASSERT_EQ(create("/a", CreateMode::Ephemeral, "", s2).error, Error::Ok);
  EXPECT_EQ(server.sessions(), (std::vector<SessionId>{s1, s2}));
  EXPECT_EQ(server.ephemerals(s2), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(server.session_timeout_ms(s2), 4000);  // clamped to 20 ticks
  EXPECT_EQ(server.session_timeout_ms(SessionId{9}), 0);
}

TEST_F(SessionRules, ExpireDueTakesOnlySessionsPastTheirDeadline) {
  Server s(ServerConfig{.tick_ms = 100});
  SessionId late = s.open_session(2000, 0).id;   // deadline 2100
  SessionId early = s.open_session(1000, 0).id;  // deadline 1100
  EXPECT_EQ(s.next_expiry(), 1100);
  EXPECT_EQ(s.expire_due(1100).size(), 1u);
  EXPECT_FALSE(s.session_alive(early));
  EXPECT_TRUE(s.session_alive(late));
  EXPECT_EQ(s.next_expiry(), 2100);
}

}  // namespace
}  // namespace zksim::test
