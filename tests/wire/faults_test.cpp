// The frontend's faults and its trace, one test per rule (frontend.h).
#include "frames.h"
#include "zksim/wire/frontend.h"
#include "zksim/wire/reply.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace zksim::wire::test {
namespace {

ServerConfig config() {
  ServerConfig cfg;
  cfg.tick_ms = 2000;  // sessions of 4 to 40 s: none expires by itself here
  return cfg;
}

std::vector<Delivery> to(const std::vector<Delivery>& out, ConnectionId c) {
  std::vector<Delivery> mine;
  std::copy_if(out.begin(), out.end(), std::back_inserter(mine), [&](const Delivery& d) { return d.connection == c; });
  return mine;
}

std::int32_t xid_of(const Delivery& d) { return static_cast<std::int32_t>(d.bytes[4] << 24 | d.bytes[5] << 16 | d.bytes[6] << 8 | d.bytes[7]); }

struct Client {
  ConnectionId id = 0;
  SessionId session;
  std::string password;
};

Client connect(Frontend& fe, TimeMs now, int port = 1) {
  Client c;
  c.id = fe.open("127.0.0.1", port, now);
  const ConnectResponse r = handshake(fe, c.id, connect_frame(0, std::string(16, '\0'), 10000), now);
  c.session = SessionId{r.session_id};
  c.password = r.password.value_or("");
  return c;
}

TEST(Faults, ExpireEndsTheSessionItsEphemeralsAndItsConnection) {
  Server server(config());
  Frontend fe(server);
  const Client owner = connect(fe, 0, 1);
  const Client watcher = connect(fe, 0, 2);
  fe.receive(owner.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/e", .mode = CreateMode::Ephemeral}), 1);
  fe.receive(watcher.id, request_frame(1, OpCode::Exists, ExistsRequest{"/e", true}), 2);
  const auto out = fe.expire(owner.session, 3);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].connection, watcher.id);
  EXPECT_EQ(decode_notification(ByteView((*out)[0].bytes).subspan(4))->type, EventType::NodeDeleted);
  EXPECT_EQ((*out)[1], (Delivery{owner.id, {}, true}));
  EXPECT_FALSE(server.session_alive(owner.session));
  // The client learns it on its next connection: session 0, closed.
  const ConnectionId again = fe.open("127.0.0.1", 3, 4);
  const auto refused = fe.receive(again, connect_frame(owner.session.value, owner.password), 4);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(decode_connect_response(ByteView(refused[0].bytes).subspan(4))->session_id, 0);
}

TEST(Faults, ExpiringADeadSessionIsSessionExpired) {
  Server server(config());
  Frontend fe(server);
  EXPECT_EQ(fe.expire(SessionId{12345}, 0).error(), Error::SessionExpired);
}

TEST(Faults, DropBeforeApplyClosesTheConnectionWithoutApplying) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  ASSERT_TRUE(fe.drop_next(c.session, FaultKind::DropBeforeApply, {}, 1));
  const auto out = fe.receive(c.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 2);
  EXPECT_EQ(out, (std::vector<Delivery>{{c.id, {}, true}}));
  EXPECT_FALSE(server.node("/a"));
  EXPECT_TRUE(server.session_alive(c.session));
}

TEST(Faults, DropAfterApplyAppliesAndLosesTheReplyAndTheSessionsOwnEvents) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0, 1);
  const Client other = connect(fe, 0, 2);
  fe.receive(c.id, request_frame(1, OpCode::Exists, ExistsRequest{"/a", true}), 1);
  fe.receive(other.id, request_frame(1, OpCode::Exists, ExistsRequest{"/a", true}), 1);
  ASSERT_TRUE(fe.drop_next(c.session, FaultKind::DropAfterApply, {}, 1));
  const auto out = fe.receive(c.id, request_frame(2, OpCode::Create, CreateRequest{.path = "/a"}), 2);
  EXPECT_EQ(to(out, c.id), (std::vector<Delivery>{{c.id, {}, true}}));
  ASSERT_EQ(to(out, other.id).size(), 1u);  // NodeCreated
  EXPECT_EQ(xid_of(to(out, other.id)[0]), kNotificationXid);
  EXPECT_TRUE(server.node("/a"));
}

TEST(Faults, ADropWaitsForARequestItMatches) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  const RequestMatch create_under_lock{request_kind<CreateRequest>, "/lock/"};
  ASSERT_TRUE(fe.drop_next(c.session, FaultKind::DropBeforeApply, create_under_lock, 1));
  EXPECT_EQ(fe.receive(c.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/lock"}), 2).size(), 1u);
  EXPECT_EQ(fe.receive(c.id, request_frame(2, OpCode::Exists, ExistsRequest{"/lock/x", false}), 3).size(), 1u);
  EXPECT_EQ(fe.receive(c.id, request_frame(3, OpCode::Create, CreateRequest{.path = "/lock/x"}), 4),
            (std::vector<Delivery>{{c.id, {}, true}}));
  EXPECT_FALSE(server.node("/lock/x"));
}

TEST(Faults, ADropStrikesOnceAndOnlyDropKindsCanBeArmed) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  EXPECT_EQ(fe.drop_next(c.session, FaultKind::Pause, {}, 1).error(), Error::BadArguments);
  EXPECT_EQ(fe.drop_next(SessionId{999}, FaultKind::DropBeforeApply, {}, 1).error(), Error::SessionExpired);
  ASSERT_TRUE(fe.drop_next(c.session, FaultKind::DropBeforeApply, {}, 1));
  fe.receive(c.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 2);
  // The client reconnects to its session; its next request is served.
  const ConnectionId again = fe.open("127.0.0.1", 7, 3);
  handshake(fe, again, connect_frame(c.session.value, c.password, 10000), 3);
  EXPECT_EQ(fe.receive(again, request_frame(2, OpCode::Create, CreateRequest{.path = "/a"}), 4).size(), 1u);
  EXPECT_TRUE(server.node("/a"));
}

TEST(Faults, APauseHoldsEverythingForTheConnectionUntilItEnds) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0, 1);
  const Client other = connect(fe, 0, 2);
  fe.receive(c.id, request_frame(1, OpCode::Exists, ExistsRequest{"/a", true}), 1);
  ASSERT_TRUE(fe.pause(c.id, 1000, 10));
  EXPECT_EQ(fe.next_deadline(), 1010);
  EXPECT_TRUE(fe.receive(c.id, request_frame(2, OpCode::GetData, GetDataRequest{"/", false}), 20).empty());
  // Others are served, and what they fire for it waits too.
  EXPECT_EQ(fe.receive(other.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 30).size(), 1u);
  EXPECT_TRUE(fe.advance(1009).empty());
  const auto released = fe.advance(1010);
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(xid_of(released[0]), 2);                  // the reply, then
  EXPECT_EQ(xid_of(released[1]), kNotificationXid);  // the event, in the order made
  EXPECT_TRUE(fe.receive(c.id, request_frame(3, OpCode::Exists, ExistsRequest{"/", false}), 1011).size() == 1u);
}

TEST(Faults, PingsDuringAPauseKeepTheSessionAlive) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  const int timeout = server.session_timeout_ms(c.session);
  ASSERT_TRUE(fe.pause(c.id, 3 * timeout, 1));
  for (TimeMs t = 1000; t < 3 * timeout; t += 1000) {
    fe.receive(c.id, request_frame(kPingXid, OpCode::Ping, PingRequest{}), t);
  }
  EXPECT_TRUE(server.session_alive(c.session));
}

TEST(Faults, CloseEndsTheConnectionAndKeepsTheSession) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  const auto out = fe.close(c.id, 5);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, (std::vector<Delivery>{{c.id, {}, true}}));
  EXPECT_TRUE(server.session_alive(c.session));
  const ConnectionId again = fe.open("127.0.0.1", 9, 6);
  EXPECT_EQ(handshake(fe, again, connect_frame(c.session.value, c.password, 10000), 6).session_id, c.session.value);
  EXPECT_EQ(fe.close(c.id, 7).error(), Error::BadArguments);  // gone already
}

TEST(Faults, SetSequenceNamesTheNextSequentialChild) {
  Server server(config());
  Frontend fe(server);
  const Client c = connect(fe, 0);
  fe.receive(c.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/q"}), 1);
  ASSERT_TRUE(fe.set_sequence("/q", 2147483646, 2));
  fe.receive(c.id, request_frame(2, OpCode::Create, CreateRequest{.path = "/q/n-", .mode = CreateMode::PersistentSequential}), 3);
  EXPECT_TRUE(server.node("/q/n-2147483646"));
  EXPECT_EQ(fe.set_sequence("/missing", 1, 4).error(), Error::NoNode);
}

TEST(Faults, TargetsNameASessionsConnectionOrAnAddress) {
  Server server(config());
  Frontend fe(server);
  const Client a = connect(fe, 0, 1111);
  const Client b = connect(fe, 0, 2222);
  EXPECT_EQ(fe.find(Target{a.session, ""}), a.id);
  EXPECT_EQ(fe.find(Target{SessionId{}, "127.0.0.1:2222"}), b.id);
  EXPECT_EQ(fe.find(Target{SessionId{}, "127.0.0.1:3333"}), std::nullopt);
  const auto listed = fe.connections();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].address, "127.0.0.1:2222");
  EXPECT_EQ(listed[1].session, b.session);
  EXPECT_EQ(listed[1].lane, 1);
  EXPECT_EQ(listed[1].timeout_ms, 10000);
}

// One lane per session, in the order they opened; times from the origin.
TEST(Trace, RecordsSessionsRequestsRepliesEventsAndFaults) {
  Server server(config());
  FrontendOptions o;
  o.origin = 1000;
  Frontend fe(server, o);
  const Client a = connect(fe, 1000, 1);
  const Client b = connect(fe, 1001, 2);
  fe.receive(b.id, request_frame(1, OpCode::Exists, ExistsRequest{"/x", true}), 1002);
  fe.receive(a.id, request_frame(1, OpCode::Create, CreateRequest{.path = "/x"}), 1003);
  ASSERT_TRUE(fe.expire(a.session, 1004));
  std::vector<std::string> lines;
  for (const TraceEvent& e : fe.trace()) {
    std::string line = render_event(e);
    line.erase(16, 19);  // the session id
    lines.push_back(line);
  }
  const std::vector<std::string> want = {
      "t=0      c0     z=0x1 ## session-opened",
      "t=1      c1     z=0x2 ## session-opened",
      "t=2      c1     z=0x0 -> exists /x #1",
      "t=2      c1     z=0x2 <- exists /x #1 ZNONODE",
      "t=3      c0     z=0x0 -> create /x #1",
      "t=3      c1     z=0x3 !! NodeCreated /x",
      "t=3      c0     z=0x3 <- create /x #1 ZOK",
      "t=4      c0     z=0x3 ** fault expire-session",
      "t=4      c0     z=0x4 ## session-expired"};
  EXPECT_EQ(lines, want);
  EXPECT_EQ(fe.trace_dropped(), 0u);
}

TEST(Trace, KeepsTheLastEventsOnly) {
  Server server(config());
  FrontendOptions o;
  o.trace_limit = 3;
  Frontend fe(server, o);
  const Client c = connect(fe, 0);
  for (int i = 1; i <= 3; ++i) fe.receive(c.id, request_frame(i, OpCode::Exists, ExistsRequest{"/", false}), i);
  const auto events = fe.trace();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(fe.trace_dropped(), 4u);  // opened, and two requests and a reply
  EXPECT_EQ(events.back().kind, TraceKind::Response);
}

}  // namespace
}  // namespace zksim::wire::test
