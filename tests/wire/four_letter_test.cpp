// The four-letter words through the Frontend, one test per rule. The texts
// are Debian's 3.8 server's, measured with
// 4lw.commands.whitelist=ruok,srvr,stat,mntr,cons,wchs,isro,conf,envi,dump (docs/wire.md);
// FourLetterOnTheRealServer (four_letter_real_test.cpp) compares the two
// servers side by side.
#include "frames.h"
#include "zksim/wire/frontend.h"

#include <gtest/gtest.h>

#include <sstream>

namespace zksim::wire::test {
namespace {

ServerConfig config() {
  ServerConfig cfg;
  cfg.tick_ms = 200;
  return cfg;
}

// Asks `word` on a fresh connection; the reply and whether it closed.
struct Asked {
  std::string text;
  bool closed = false;
  std::size_t deliveries = 0;
};
Asked ask(Frontend& fe, std::string_view word, TimeMs now = 100, int port = 40000) {
  const ConnectionId c = fe.open("127.0.0.1", port, now);
  Asked a;
  for (const Delivery& d : fe.receive(c, text_bytes(word), now)) {
    if (d.connection != c) continue;
    ++a.deliveries;
    a.text += text_of(d.bytes);
    a.closed |= d.close;
  }
  fe.lost(c);
  return a;
}

std::string line_of(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(key)) return line;
  }
  return "(no " + std::string(key) + ")";
}

TEST(FourLetter, RuokIsAnsweredImokAndTheConnectionCloses) {
  Server server(config());
  Frontend fe(server);
  const Asked a = ask(fe, "ruok");
  EXPECT_EQ(a.text, "imok");
  EXPECT_TRUE(a.closed);
  EXPECT_EQ(a.deliveries, 1u);
}

TEST(FourLetter, IsroSaysReadWrite) {
  Server server(config());
  Frontend fe(server);
  EXPECT_EQ(ask(fe, "isro").text, "rw");
}

// NIOServerCnxn reads four bytes as a length, whatever the pieces.
TEST(FourLetter, AWordMayArriveInPieces) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId c = fe.open();
  EXPECT_TRUE(fe.receive(c, text_bytes("ru"), 1).empty());
  const auto out = fe.receive(c, text_bytes("ok"), 2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(text_of(out[0].bytes), "imok");
  EXPECT_TRUE(out[0].close);
}

// Measured: "ruok\n" (echo ruok | nc) and "ruokruok" get one "imok".
TEST(FourLetter, BytesAfterTheWordAreIgnored) {
  Server server(config());
  Frontend fe(server);
  EXPECT_EQ(ask(fe, "ruok\n").text, "imok");
  EXPECT_EQ(ask(fe, "ruokruok").text, "imok");
}

// checkFourLetterWord runs only before the connection is initialized: after
// the handshake the word is a frame length, far over jute.maxbuffer.
TEST(FourLetter, AWordAfterTheHandshakeIsAFrameLength) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId c = fe.open();
  handshake(fe, c, connect_frame(), 0);
  const auto out = fe.receive(c, text_bytes("ruok"), 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (Delivery{c, {}, true}));
}

// A word FourLetterCommands knows but the whitelist leaves out: NopCommand.
TEST(FourLetter, KnownWordsOutsideTheTenAreNotWhitelisted) {
  Server server(config());
  Frontend fe(server);
  for (std::string_view w : {"wchc", "wchp", "crst", "srst", "gtmk", "stmk", "dirs", "hash"}) {
    const Asked a = ask(fe, w);
    EXPECT_EQ(a.text, std::string(w) + " is not executed because it is not in the whitelist.\n");
    EXPECT_TRUE(a.closed);
  }
  const Bytes telnet_close = {0xff, 0xf4, 0xff, 0xfd};
  const ConnectionId c = fe.open();
  const auto out = fe.receive(c, telnet_close, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(text_of(out[0].bytes), "telnet close is not executed because it is not in the whitelist.\n");
}

// Measured: "xxxx" closes the connection without a word.
TEST(FourLetter, AnUnknownWordIsAFrameLength) {
  Server server(config());
  Frontend fe(server);
  const Asked a = ask(fe, "xxxx");
  EXPECT_EQ(a.text, "");
  EXPECT_TRUE(a.closed);
}

// A fresh real server, measured: the word itself is the one packet
// received, the root is counted twice among 4 nodes.
TEST(FourLetter, SrvrOfAFreshServer) {
  Server server(config());
  Frontend fe(server);
  EXPECT_EQ(ask(fe, "srvr").text,
            "Zookeeper version: 3.8.0-zksim, built on zksim\n"
            "Latency min/avg/max: 0/0.0/0\nReceived: 1\nSent: 0\nConnections: 1\nOutstanding: 0\n"
            "Zxid: 0x0\nMode: standalone\nNode count: 5\n");
}

// Each word is a packet received, and its answer a packet sent once
// written (measured: mntr after srvr says sent 1, received 2).
TEST(FourLetter, EachWordCountsAsAPacketEachWay) {
  Server server(config());
  Frontend fe(server);
  ask(fe, "srvr");
  const std::string mntr = ask(fe, "mntr").text;
  EXPECT_EQ(line_of(mntr, "zk_packets_sent"), "zk_packets_sent\t1");
  EXPECT_EQ(line_of(mntr, "zk_packets_received"), "zk_packets_received\t2");
}

// stat: each connection briefly, the asking one with interest ops 0.
TEST(FourLetter, StatListsTheConnectionsBriefly) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId c = fe.open("127.0.0.1", 34012, 0);
  handshake(fe, c, connect_frame(), 0);
  fe.receive(c, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 1);
  EXPECT_EQ(ask(fe, "stat", 5, 34058).text,
            "Zookeeper version: 3.8.0-zksim, built on zksim\nClients:\n"
            " /127.0.0.1:34012[1](queued=0,recved=2,sent=2)\n"
            " /127.0.0.1:34058[0](queued=0,recved=1,sent=0)\n\n"
            "Latency min/avg/max: 0/0.0/0\nReceived: 3\nSent: 2\nConnections: 2\nOutstanding: 0\n"
            "Zxid: 0x2\nMode: standalone\nNode count: 6\n");
}

// cons: in full for a connection with a session (lcxid of the last
// request, the special xids left out; lzxid the server's last).
TEST(FourLetter, ConsListsEachConnectionInFull) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId c = fe.open("127.0.0.1", 34012, 1000);
  const ConnectResponse granted = handshake(fe, c, connect_frame(), 1000);
  fe.receive(c, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 1001);
  fe.receive(c, request_frame(2, OpCode::GetData, GetDataRequest{"/a", false}), 1002);
  fe.receive(c, request_frame(kPingXid, OpCode::Ping, PingRequest{}), 1003);
  const std::string sid = fmt::format("{:x}", static_cast<std::uint64_t>(granted.session_id));
  EXPECT_EQ(ask(fe, "cons", 1005, 34076).text,
            " /127.0.0.1:34012[1](queued=0,recved=4,sent=4,sid=0x" + sid +
                ",lop=PING,est=1000,to=4000,lcxid=0x2,lzxid=0x2,lresp=1003,llat=0,minlat=0,avglat=0,maxlat=0)\n"
                " /127.0.0.1:34076[0](queued=0,recved=1,sent=0)\n\n");
}

// envi: Environment.list's keys in its order, the version first (kazoo's
// server_version() reads its digits); what the serve loop gave, and
// "<NA>" for the rest, as the real server prints a property it lacks.
TEST(FourLetter, EnviListsTheEnvironmentsKeysInOrder) {
  Server server(config());
  Frontend fe(server, FrontendOptions{.environment = {{"host.name", "box"}, {"os.name", "Linux"}, {"user.dir", "/w"}}});
  EXPECT_EQ(ask(fe, "envi").text,
            "Environment:\nzookeeper.version=3.8.0-zksim, built on zksim\nhost.name=box\njava.version=<NA>\n"
            "java.vendor=<NA>\njava.home=<NA>\njava.class.path=<NA>\njava.library.path=<NA>\n"
            "java.io.tmpdir=<NA>\njava.compiler=<NA>\nos.name=Linux\nos.arch=<NA>\nos.version=<NA>\n"
            "user.name=<NA>\nuser.home=<NA>\nuser.dir=/w\nos.memory.free=<NA>\nos.memory.max=<NA>\n"
            "os.memory.total=<NA>\n");
}

// conf: ZooKeeperServer.dumpConf's keys with the server's own values: the
// port, the tick and the session bounds it derives (2 and 20 ticks).
TEST(FourLetter, ConfListsTheServersConfiguration) {
  Server server(config());
  Frontend fe(server, FrontendOptions{.client_port = 2181});
  EXPECT_EQ(ask(fe, "conf").text,
            "clientPort=2181\nsecureClientPort=-1\ndataDir=\ndataDirSize=0\ndataLogDir=\ndataLogSize=0\n"
            "tickTime=200\nmaxClientCnxns=0\nminSessionTimeout=400\nmaxSessionTimeout=4000\n"
            "clientPortListenBacklog=-1\nserverId=0\n");
}

// dump: sessions in buckets of tickTime by when they expire, the sessions
// with ephemerals (one whose only ephemeral was deleted stays listed,
// empty, as in DataTree.ephemerals), and connections in buckets of the
// sessionless timeout (10 s) by when they would expire.
TEST(FourLetter, DumpListsSessionsEphemeralsAndConnections) {
  Server server(config());
  const TimeMs t0 = 1'795'000'000'000;  // Wed Nov 18 11:06:40 UTC 2026
  Frontend fe(server, FrontendOptions{.origin = t0});
  const ConnectionId a = fe.open("127.0.0.1", 34012, t0);
  const ConnectResponse sa = handshake(fe, a, connect_frame(0, std::string(16, '\0'), 4000), t0);
  fe.receive(a, request_frame(1, OpCode::Create, CreateRequest{.path = "/e1", .mode = CreateMode::Ephemeral}), t0 + 1);
  fe.receive(a, request_frame(2, OpCode::Create, CreateRequest{.path = "/p"}), t0 + 2);
  fe.receive(a, request_frame(3, OpCode::Create, CreateRequest{.path = "/p/e2", .mode = CreateMode::Ephemeral}), t0 + 3);
  const ConnectionId b = fe.open("127.0.0.1", 34020, t0 + 10);
  const ConnectResponse sb = handshake(fe, b, connect_frame(0, std::string(16, '\0'), 4000), t0 + 10);
  fe.receive(b, request_frame(1, OpCode::Create, CreateRequest{.path = "/gone", .mode = CreateMode::Ephemeral}), t0 + 11);
  fe.receive(b, request_frame(2, OpCode::Delete, DeleteRequest{.path = "/gone"}), t0 + 12);
  const ConnectionId c = fe.open("127.0.0.1", 34030, t0 + 500);
  const ConnectResponse sc = handshake(fe, c, connect_frame(0, std::string(16, '\0'), 4000), t0 + 500);
  auto id = [](const ConnectResponse& r) { return fmt::format("0x{:x}", static_cast<std::uint64_t>(r.session_id)); };
  // Sessions: a and b last heard at t0 + 3 and t0 + 12, due 4 s later
  // rounded up to the next 200 ms: t0 + 4200; c at t0 + 4600. Connections:
  // the same times rounded up to the next 10 s, t0 + 10000; the asker's,
  // sessionless, t0 + 1000 + 10000 rounded up: t0 + 20000.
  EXPECT_EQ(ask(fe, "dump", t0 + 1000, 34076).text,
            "SessionTracker dump:\nSession Sets (2)/(3):\n"
            "2 expire at Wed Nov 18 11:06:44 UTC 2026:\n\t" + id(sa) + "\n\t" + id(sb) + "\n"
            "1 expire at Wed Nov 18 11:06:44 UTC 2026:\n\t" + id(sc) + "\n"
            "ephemeral nodes dump:\nSessions with Ephemerals (2):\n" + id(sa) + ":\n\t/e1\n\t/p/e2\n" + id(sb) + ":\n"
            "Connections dump:\nConnections Sets (2)/(4):\n"
            "3 expire at Wed Nov 18 11:06:50 UTC 2026:\n\tip: /127.0.0.1:34012 sessionId: " + id(sa) +
            "\n\tip: /127.0.0.1:34020 sessionId: " + id(sb) + "\n\tip: /127.0.0.1:34030 sessionId: " + id(sc) + "\n"
            "1 expire at Wed Nov 18 11:07:00 UTC 2026:\n\tip: /127.0.0.1:34076 sessionId: 0x0\n");
}

// A session's end takes its entry among the sessions with ephemerals.
TEST(FourLetter, DumpForgetsAClosedSessionsEphemerals) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId a = fe.open("127.0.0.1", 34012, 0);
  handshake(fe, a, connect_frame(), 0);
  fe.receive(a, request_frame(1, OpCode::Create, CreateRequest{.path = "/e", .mode = CreateMode::Ephemeral}), 1);
  EXPECT_EQ(line_of(ask(fe, "dump", 2, 34076).text, "Sessions with Ephemerals"), "Sessions with Ephemerals (1):");
  fe.receive(a, request_frame(2, OpCode::CloseSession, CloseSessionRequest{}), 3);
  EXPECT_EQ(line_of(ask(fe, "dump", 4, 34078).text, "Sessions with Ephemerals"), "Sessions with Ephemerals (0):");
}

// wchs summarises the data watches only (DataTree.dumpWatchesSummary):
// measured, getData, exists and getChildren of one path by one session give
// one watch; mntr's watch count adds the child watches.
TEST(FourLetter, WchsCountsDataWatchesOnly) {
  Server server(config());
  Frontend fe(server);
  const ConnectionId c = fe.open();
  handshake(fe, c, connect_frame(), 0);
  fe.receive(c, request_frame(1, OpCode::Create, CreateRequest{.path = "/p"}), 1);
  fe.receive(c, request_frame(2, OpCode::GetData, GetDataRequest{"/p", true}), 2);
  fe.receive(c, request_frame(3, OpCode::GetChildren, GetChildrenRequest{"/p", true}), 3);
  fe.receive(c, request_frame(4, OpCode::Exists, ExistsRequest{"/p", true}), 4);
  EXPECT_EQ(ask(fe, "wchs").text, "1 connections watching 1 paths\nTotal watches:1\n");
  EXPECT_EQ(line_of(ask(fe, "mntr").text, "zk_watch_count"), "zk_watch_count\t2");
}

// mntr: dumpMonitorValues and the server's gauges, in the order Debian's
// server prints them, with the tree's own counts.
TEST(FourLetter, MntrReportsTheServersGauges) {
  Server server(config());
  FrontendOptions o;
  o.origin = 1000;
  Frontend fe(server, o);
  const ConnectionId c = fe.open("127.0.0.1", 1, 1000);
  handshake(fe, c, connect_frame(), 1000);
  fe.receive(c, request_frame(1, OpCode::Create, CreateRequest{.path = "/a"}), 1001);
  fe.receive(c, request_frame(2, OpCode::Create, CreateRequest{.path = "/a/b"}), 1002);
  fe.receive(c, request_frame(3, OpCode::Create, CreateRequest{.path = "/e", .data = "xy", .mode = CreateMode::Ephemeral}),
             1003);
  const std::string mntr = ask(fe, "mntr", 3000).text;
  std::vector<std::string> keys;
  std::istringstream in(mntr);
  for (std::string line; std::getline(in, line);) keys.push_back(line.substr(0, line.find('\t')));
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "zk_version", "zk_server_state", "zk_ephemerals_count", "zk_num_alive_connections",
                      "zk_avg_latency", "zk_outstanding_requests", "zk_znode_count", "zk_global_sessions",
                      "zk_non_mtls_remote_conn_count", "zk_last_client_response_size", "zk_packets_sent",
                      "zk_packets_received", "zk_max_client_response_size", "zk_connection_drop_probability",
                      "zk_watch_count", "zk_auth_failed_count", "zk_min_latency", "zk_approximate_data_size",
                      "zk_local_sessions", "zk_uptime", "zk_max_latency", "zk_outstanding_tls_handshake",
                      "zk_min_client_response_size", "zk_non_mtls_local_conn_count"}));
  EXPECT_EQ(line_of(mntr, "zk_server_state"), "zk_server_state\tstandalone");
  EXPECT_EQ(line_of(mntr, "zk_ephemerals_count"), "zk_ephemerals_count\t1");
  EXPECT_EQ(line_of(mntr, "zk_znode_count"), "zk_znode_count\t8");
  EXPECT_EQ(line_of(mntr, "zk_global_sessions"), "zk_global_sessions\t1");
  EXPECT_EQ(line_of(mntr, "zk_num_alive_connections"), "zk_num_alive_connections\t2");
  // Measured with the same nodes: 44 for the fresh tree, paths and data after.
  EXPECT_EQ(line_of(mntr, "zk_approximate_data_size"), "zk_approximate_data_size\t54");
  EXPECT_EQ(line_of(mntr, "zk_uptime"), "zk_uptime\t2000");
  // Create replies: a header and a path (16 + 4 + 2 or 4).
  EXPECT_EQ(line_of(mntr, "zk_min_client_response_size"), "zk_min_client_response_size\t22");
  EXPECT_EQ(line_of(mntr, "zk_max_client_response_size"), "zk_max_client_response_size\t24");
  EXPECT_EQ(line_of(mntr, "zk_last_client_response_size"), "zk_last_client_response_size\t22");
}

// Measured on a fresh server: no reply yet, so the sizes read -1.
TEST(FourLetter, MntrOfAFreshServerHasNoResponseSizes) {
  Server server(config());
  Frontend fe(server);
  const std::string mntr = ask(fe, "mntr").text;
  EXPECT_EQ(line_of(mntr, "zk_last_client_response_size"), "zk_last_client_response_size\t-1");
  EXPECT_EQ(line_of(mntr, "zk_max_client_response_size"), "zk_max_client_response_size\t-1");
  EXPECT_EQ(line_of(mntr, "zk_min_client_response_size"), "zk_min_client_response_size\t-1");
}

// NIOServerCnxnFactory closes a connection that sends nothing before its
// handshake for sessionlessCnxnTimeout (10 s by default).
TEST(Frontend, AConnectionSilentBeforeItsHandshakeIsClosed) {
  Server server;  // tickTime 2000: the served session's 40 s outlasts the test
  Frontend fe(server);
  const ConnectionId quiet = fe.open("127.0.0.1", 1, 0);
  const ConnectionId partial = fe.open("127.0.0.1", 2, 0);
  const ConnectionId served = fe.open("127.0.0.1", 3, 0);
  fe.receive(partial, text_bytes("\0\0"), 5000);
  handshake(fe, served, connect_frame(0, std::string(16, '\0'), 40000), 1);
  ASSERT_TRUE(fe.next_deadline());
  EXPECT_EQ(*fe.next_deadline(), 10000);
  EXPECT_TRUE(fe.advance(9999).empty());
  EXPECT_EQ(fe.advance(10000), (std::vector<Delivery>{{quiet, {}, true}}));
  EXPECT_EQ(fe.advance(15000), (std::vector<Delivery>{{partial, {}, true}}));
  EXPECT_EQ(fe.connections().size(), 1u);
}

}  // namespace
}  // namespace zksim::wire::test
