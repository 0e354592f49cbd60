// The frontend (the protocol in front of the simulated server) replayed
// against the captures: the clients' bytes go in, and what comes out must be
// what the real server sent, up to session ids, passwords and times.
#include "capture_file.h"
#include "frames.h"
#include "zksim/wire/connect.h"
#include "zksim/wire/frame.h"
#include "zksim/wire/frontend.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace zksim::wire::test {
namespace {

ServerConfig real_config() {
  ServerConfig cfg;
  cfg.tick_ms = 200;  // as the capture's server (tests/wire/data/README.md)
  return cfg;
}

// Whether zxids are compared too: not for the probes, whose real run had
// sessions expire (a transaction each) at times the capture does not keep.
bool g_loose = false;

void clear_stat(Stat& s) {
  s.ctime = 0;
  s.mtime = 0;
  s.ephemeralOwner = s.ephemeralOwner != 0 ? 1 : 0;
  if (g_loose) s.czxid = s.mzxid = s.pzxid = 0;
}

// A server frame with what differs between two servers blanked: session
// ids, passwords, times, the order of children and of auth ids.
std::string normalized(const Bytes& frame, std::int32_t code, bool first) {
  const ByteView body = ByteView(frame).subspan(4);
  if (first) {
    auto c = decode_connect_response(body);
    if (!c) return "bad connect response";
    c.value().session_id = c->session_id != 0 ? 1 : 0;
    c.value().password = std::string(16, c->session_id != 0 ? 'p' : '\0');
    return hex(encode_connect_response(*c));
  }
  const auto h = decode_reply_header(body);
  if (!h) return "bad header";
  if (h->xid == kNotificationXid) return hex(frame);
  auto r = decode_reply(body, static_cast<OpCode>(code));
  if (!r) return "bad reply";
  if (g_loose) r.value().header.zxid = 0;
  if (auto* resp = std::get_if<Response>(&r.value().body)) {
    std::visit(
        [](auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, ChildrenResponse>) {
            // ZooKeeper promises no order (the real server's is a hash
            // map's): compared as sets.
            std::sort(v.children.begin(), v.children.end());
          }
          if constexpr (std::is_same_v<T, MultiResponse>) {
            for (OpResult& op : v.results) {
              if (auto* c = std::get_if<CreateResponse>(&op.value)) clear_stat(c->stat);
              if (auto* s = std::get_if<StatResponse>(&op.value)) clear_stat(s->stat);
            }
          } else if constexpr (!std::is_same_v<T, std::monostate> && !std::is_same_v<T, PathsResponse> &&
                               !std::is_same_v<T, CountResponse> && !std::is_same_v<T, SyncResponse>) {
            clear_stat(v.stat);
          }
        },
        *resp);
  }
  if (auto* reads = std::get_if<MultiReadResponse>(&r.value().body)) {
    for (ReadResult& rr : reads->results) {
      if (auto* d = std::get_if<DataResponse>(&rr.value)) clear_stat(d->stat);
      if (auto* k = std::get_if<ChildrenResponse>(&rr.value)) std::sort(k->children.begin(), k->children.end());
    }
  }
  if (auto* who = std::get_if<WhoAmIResponse>(&r.value().body)) {
    // The server's auth ids are a hash set (ServerCnxn.authInfo): no order.
    std::sort(who->infos.begin(), who->infos.end(), [](const ClientInfo& a, const ClientInfo& b) {
      return std::tie(a.scheme, a.user) < std::tie(b.scheme, b.user);
    });
  }
  const auto out = encode_reply(*r);
  return out ? hex(*out) : "unencodable";
}

// Replays every client frame of captures taken one after the other from
// one server, in the order captured, through a Frontend; returns, per captured connection, the normalized frames the
// frontend sent and those the real server sent.
struct Replay {
  std::map<int, std::vector<std::string>> ours;
  std::map<int, std::vector<std::string>> theirs;
};

Replay replay(const std::vector<std::string>& files) {
  Capture c;
  for (const std::string& file : files) {
    Capture part = load_capture(file);
    for (CapturedFrame& f : part.frames) c.frames.push_back(std::move(f));
  }
  Server server(real_config());
  Frontend frontend(server);
  Replay out;
  std::map<int, ConnectionId> conn_of;
  std::map<ConnectionId, int> capture_of;
  std::map<int, std::map<std::int32_t, std::int32_t>> code_of_xid;  // per captured connection
  std::map<int, bool> first_out;
  std::map<std::int64_t, SessionId> session_of_real;  // the real server's ids to ours
  TimeMs now = 0;
  auto collect = [&](const std::vector<Delivery>& ds) {
    for (const Delivery& d : ds) {
      if (d.bytes.empty()) continue;
      const int cc = capture_of.at(d.connection);
      const std::int32_t xid = int_at(d.bytes, 4);
      const bool first = !first_out[cc];
      first_out[cc] = true;
      out.ours[cc].push_back(normalized(d.bytes, code_of_xid[cc][xid], first));
    }
  };
  for (const CapturedFrame& f : c.frames) {
    now += 10;
    if (!f.to_server) {
      const bool first = out.theirs[f.conn].empty();
      const std::int32_t xid = int_at(f.bytes, 4);
      if (first) {
        const auto rsp = decode_connect_response(f.body());
        if (rsp && rsp->session_id != 0 && conn_of.count(f.conn)) {
          session_of_real[rsp->session_id] = frontend.session_of(conn_of[f.conn]);
        }
      }
      out.theirs[f.conn].push_back(normalized(f.bytes, code_of_xid[f.conn][xid], first));
      continue;
    }
    Bytes bytes = f.bytes;
    if (!conn_of.count(f.conn)) {
      // A new connection. A reconnect names the real server's session: ours
      // instead (the frontend closes the session's previous connection).
      conn_of[f.conn] = frontend.open();
      capture_of[conn_of[f.conn]] = f.conn;
      auto req = decode_connect_request(f.body());
      if (req && req->session_id != 0) {
        const SessionId ours = session_of_real[req->session_id];
        req.value().session_id = ours.value;
        req.value().password = session_password(ours);
        bytes = encode_connect_request(*req);
      }
    } else if (bytes.size() >= 12) {
      code_of_xid[f.conn][int_at(bytes, 4)] = int_at(bytes, 8);
    }
    collect(frontend.receive(conn_of[f.conn], bytes, now));
  }
  return out;
}

// The captures of the three clients come from one server, one after the
// other, each client closing its sessions: replayed in that order on one
// simulated server, zxids included.
TEST(Frontend, AnswersTheClientsAsTheRealServerDid) {
  const Replay r = replay({"c_client.hex", "kazoo.hex", "zkcli.hex"});
  ASSERT_EQ(r.theirs.size(), 6u);
  for (const auto& [conn, frames] : r.theirs) {
    const auto it = r.ours.find(conn);
    ASSERT_NE(it, r.ours.end()) << "connection " << conn;
    EXPECT_EQ(it->second.size(), frames.size()) << "connection " << conn;
    for (std::size_t i = 0; i < std::min(frames.size(), it->second.size()); ++i) {
      EXPECT_EQ(it->second[i], frames[i]) << "connection " << conn << ", frame " << i;
    }
  }
}

// The hand-made probes, replayed after the clients as they were captured:
// the same replies, errors and bodies, zxids aside.
TEST(Frontend, AnswersTheProbesAsTheRealServerDid) {
  g_loose = true;
  const Replay r = replay({"c_client.hex", "kazoo.hex", "zkcli.hex", "probes.hex"});
  g_loose = false;
  const Capture probes = load_capture("probes.hex");
  // Its 1 MiB frame is stored as its first bytes only (README.md).
  const int big = probes.probe_conn("frame-at-the-limit");
  for (const auto& [conn, frames] : r.theirs) {
    if (conn == big) continue;
    const auto it = r.ours.find(conn);
    ASSERT_NE(it, r.ours.end()) << "connection " << conn;
    EXPECT_EQ(it->second, frames) << "connection " << conn;
  }
}

}  // namespace
}  // namespace zksim::wire::test

namespace zksim::wire::test {
namespace {

TEST(Frontend, BytesMayArriveInAnyPieces) {
  Server whole_server(real_config());
  Server piece_server(real_config());
  Frontend whole(whole_server);
  Frontend pieces(piece_server);
  Bytes stream = connect_frame();
  for (const Bytes& b : {request_frame(1, OpCode::Create, CreateRequest{.path = "/a", .data = "x"}),
                         request_frame(2, OpCode::GetData, GetDataRequest{"/a", true}),
                         request_frame(3, OpCode::SetData, SetDataRequest{"/a", "y", kAnyVersion})}) {
    stream.insert(stream.end(), b.begin(), b.end());
  }
  const ConnectionId w = whole.open();
  const ConnectionId p = pieces.open();
  const auto all = whole.receive(w, stream, 5);
  std::vector<Delivery> got;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    for (Delivery& d : pieces.receive(p, ByteView(stream).subspan(i, 1), 5)) got.push_back(std::move(d));
  }
  ASSERT_EQ(all.size(), 5u);  // connect, create, getData, notification, setData
  EXPECT_EQ(got, all);
}

TEST(Frontend, AReconnectWithTheSessionsPasswordReattaches) {
  Server server(real_config());
  Frontend fe(server);
  const ConnectionId a = fe.open();
  const ConnectResponse granted = handshake(fe, a, connect_frame(), 0);
  ASSERT_NE(granted.session_id, 0);
  EXPECT_EQ(granted.timeout_ms, 4000);
  const ConnectionId b = fe.open();
  const auto out = fe.receive(b, connect_frame(granted.session_id, *granted.password), 10);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (Delivery{a, {}, true}));  // the old connection closes
  const auto again = decode_connect_response(ByteView(out[1].bytes).subspan(4));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->session_id, granted.session_id);
  EXPECT_EQ(fe.session_of(b), SessionId{granted.session_id});
}

// finishSessionInit(valid = false): session 0, timeout 0, a zero password,
// then the connection closes.
TEST(Frontend, AReconnectWithAWrongPasswordIsToldSessionZeroAndClosed) {
  Server server(real_config());
  Frontend fe(server);
  const ConnectResponse granted = handshake(fe, fe.open(), connect_frame(), 0);
  const ConnectionId b = fe.open();
  const auto out = fe.receive(b, connect_frame(granted.session_id, std::string(16, 'x')), 10);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].close);
  const auto rsp = decode_connect_response(ByteView(out[0].bytes).subspan(4));
  ASSERT_TRUE(rsp);
  EXPECT_EQ(rsp->session_id, 0);
  EXPECT_EQ(rsp->timeout_ms, 0);
  EXPECT_EQ(rsp->password, std::string(16, '\0'));
}

TEST(Frontend, AFrameOverJuteMaxBufferClosesTheConnection) {
  Server server(real_config());
  Frontend fe(server);
  const ConnectionId c = fe.open();
  handshake(fe, c, connect_frame(), 0);
  Bytes huge;
  Writer(huge).write_int(0x100000);
  const auto out = fe.receive(c, huge, 5);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (Delivery{c, {}, true}));
  EXPECT_TRUE(fe.receive(c, request_frame(1, OpCode::Exists, ExistsRequest{"/", false}), 6).empty());
}

TEST(Frontend, ASilentSessionExpiresItsConnectionClosesAndOthersWatchesFire) {
  Server server(real_config());
  Frontend fe(server);
  const ConnectionId owner = fe.open();
  const ConnectionId watcher = fe.open();
  handshake(fe, owner, connect_frame(), 0);
  handshake(fe, watcher, connect_frame(), 0);
  fe.receive(owner, request_frame(1, OpCode::Create, CreateRequest{.path = "/e", .mode = CreateMode::Ephemeral}), 1);
  fe.receive(watcher, request_frame(1, OpCode::Exists, ExistsRequest{"/e", true}), 2);
  ASSERT_TRUE(fe.next_deadline());
  EXPECT_LE(*fe.next_deadline(), 4000 + 200);  // expiry is rounded up to the next tick
  EXPECT_TRUE(fe.advance(3000).empty());
  fe.receive(watcher, request_frame(2, OpCode::Exists, ExistsRequest{"/", false}), 3000);
  const auto out = fe.advance(5000);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].connection, watcher);
  const auto event = decode_notification(ByteView(out[0].bytes).subspan(4));
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, EventType::NodeDeleted);
  EXPECT_EQ(out[1], (Delivery{owner, {}, true}));
}

TEST(Frontend, PingsKeepASessionAlive) {
  Server server(real_config());
  Frontend fe(server);
  const ConnectionId c = fe.open();
  handshake(fe, c, connect_frame(), 0);
  RequestFrame ping;
  ping.xid = kPingXid;
  ping.code = OpCode::Ping;
  ping.body = PingRequest{};
  for (TimeMs t = 1000; t <= 20000; t += 1000) {
    const auto out = fe.receive(c, encode_request(ping), t);
    ASSERT_EQ(out.size(), 1u) << t;
    EXPECT_EQ(int_at(out[0].bytes, 4), kPingXid);
  }
  EXPECT_NE(fe.session_of(c), SessionId{});
  EXPECT_TRUE(server.session_alive(fe.session_of(c)));
}

}  // namespace
}  // namespace zksim::wire::test
