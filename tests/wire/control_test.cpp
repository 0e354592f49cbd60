// The control interface (control.h) over a Frontend, no sockets: one test
// per rule. Over a socket, with the C client: serve_test.cpp.
#include "frames.h"
#include "zksim/wire/control.h"

#include <gtest/gtest.h>

namespace zksim::wire::test {
namespace {

ServerConfig config() {
  ServerConfig cfg;
  cfg.tick_ms = 2000;
  return cfg;
}

HttpRequest get(std::string target) {
  auto r = parse_http_head("GET " + target + " HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(r) << target;
  return r.value_or(HttpRequest{});
}

struct Fixture {
  Server server{config()};
  Frontend fe{server};
  ControlResult run(const std::string& target, const TraceDrawer& draw = {}) { return control(get(target), fe, 10, draw); }
  SessionId connect(int port) {
    const ConnectionId c = fe.open("127.0.0.1", port, 0);
    return SessionId{handshake(fe, c, connect_frame(0, std::string(16, '\0'), 10000), 0).session_id};
  }
};

std::string hex(SessionId s) { return fmt::format("0x{:x}", static_cast<std::uint64_t>(s.value)); }

TEST(Control, ParsesTheRequestLineAndTheQuery) {
  const auto r = parse_http_head("POST /commands/drop?session=0x10&path=%2Fa%20b&op=create&x=1+2&x=3 HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->method, "POST");
  EXPECT_EQ(r->path, "/commands/drop");
  EXPECT_EQ(r->query, (std::map<std::string, std::string>{{"session", "0x10"}, {"path", "/a b"}, {"op", "create"}, {"x", "3"}}));
  EXPECT_EQ(parse_http_head("GET /commands/trace?flag HTTP/1.1")->query.at("flag"), "");
}

TEST(Control, RefusesWhatIsNotHttp) {
  EXPECT_FALSE(parse_http_head("ruok"));
  EXPECT_FALSE(parse_http_head("GET /commands/x"));
  EXPECT_FALSE(parse_http_head("GET commands HTTP/1.1"));
  EXPECT_FALSE(parse_http_head("GET /x SPDY/3"));
}

TEST(Control, AHeadEndsAtItsBlankLine) {
  EXPECT_EQ(scan_http_head("GET / HTTP/1.1\r\nHost: x\r\n").verdict, HeadVerdict::Incomplete);
  const HeadScan crlf = scan_http_head("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody");
  EXPECT_EQ(crlf.verdict, HeadVerdict::Complete);
  EXPECT_EQ(crlf.size, 27u);
  const HeadScan lf = scan_http_head("GET / HTTP/1.1\n\nbody");
  EXPECT_EQ(lf.verdict, HeadVerdict::Complete);
  EXPECT_EQ(lf.size, 16u);
}

// Every beginning of a request is incomplete, never refused.
TEST(Control, EveryPrefixOfARequestIsIncomplete) {
  const std::string request = "POST /commands/drop?session=0x1&when=after HTTP/1.1\r\nHost: 127.0.0.1:2182\r\n"
                              "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n";
  for (std::size_t n = 0; n < request.size(); ++n) {
    EXPECT_EQ(scan_http_head(request.substr(0, n)).verdict, HeadVerdict::Incomplete) << request.substr(0, n);
  }
  EXPECT_EQ(scan_http_head(request).verdict, HeadVerdict::Complete);
}

// Refused at the first byte no request could have, not when the
// connection falls idle.
TEST(Control, BytesNoRequestBeginsWithAreRefusedAtOnce) {
  for (const std::string& bytes : {std::string("\x16\x03\x01", 3), std::string(" GET"), std::string("ruok\n"),
                                  std::string("GET  /"), std::string("GET x"), std::string("GET /a\x01"),
                                  std::string("GET / HTTP/2"), std::string("GET / HTTP/1.1x"),
                                  std::string("GET / HTTP/1.1\r\n bad"), std::string("GET / HTTP/1.1\r\nNo colon\r\n"),
                                  std::string("GET / HTTP/1.1\r\nA: b\x7f"), std::string("GET / HTTP/1.1\r\nA: b\rc"),
                                  std::string(17, 'A')}) {
    EXPECT_EQ(scan_http_head(bytes).verdict, HeadVerdict::NotHttp) << bytes;
  }
  EXPECT_EQ(http_refusal(HeadVerdict::NotHttp).status, 400);
}

TEST(Control, ARequestLineOverItsLimitIsUriTooLong) {
  const std::string line = "GET /commands/connections?x=" + std::string(kMaxRequestLine, 'a');
  EXPECT_EQ(scan_http_head(line).verdict, HeadVerdict::LineTooLong);
  EXPECT_EQ(scan_http_head(line + " HTTP/1.1\r\n\r\n").verdict, HeadVerdict::LineTooLong);
  const std::string longest = "GET /" + std::string(kMaxRequestLine - 16, 'a') + " HTTP/1.1\r\n";
  ASSERT_EQ(longest.size(), kMaxRequestLine);
  EXPECT_EQ(scan_http_head(longest + "\r\n").verdict, HeadVerdict::Complete);
  EXPECT_EQ(http_refusal(HeadVerdict::LineTooLong).status, 414);
}

TEST(Control, AHeadOverItsLimitIsTooLarge) {
  const std::string start = "GET / HTTP/1.1\r\nX-Big: ";
  EXPECT_EQ(scan_http_head(start + std::string(kMaxHttpHead, 'a')).verdict, HeadVerdict::HeadTooLarge);
  std::string many = "GET / HTTP/1.1\r\n";
  while (many.size() <= kMaxHttpHead) many += "X-A: b\r\n";
  EXPECT_EQ(scan_http_head(many).verdict, HeadVerdict::HeadTooLarge);
  const std::string largest = start + std::string(kMaxHttpHead - start.size() - 4, 'a') + "\r\n\r\n";
  ASSERT_EQ(largest.size(), kMaxHttpHead);
  EXPECT_EQ(scan_http_head(largest).verdict, HeadVerdict::Complete);
  EXPECT_EQ(http_refusal(HeadVerdict::HeadTooLarge).status, 431);
  EXPECT_EQ(encode_http(http_refusal(HeadVerdict::HeadTooLarge)).substr(0, 47),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nC");
}

TEST(Control, AnswersCarryTheirLengthAndClose) {
  EXPECT_EQ(encode_http(HttpResponse{404, "application/json", "{}"}),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
}

TEST(Control, TheRootListsTheCommands) {
  Fixture f;
  const auto r = f.run("/commands");
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body,
            R"({"command":"commands","error":null,"commands":["commands","connections","expire","drop","pause","close","sequence","trace"]})"
            "\n");
}

TEST(Control, AnUnknownCommandOrPathIsNotFound) {
  Fixture f;
  EXPECT_EQ(f.run("/commands/reboot").response.status, 404);
  EXPECT_EQ(f.run("/commands/reboot").response.body, R"({"command":"reboot","error":"Unknown command: reboot"})" "\n");
  EXPECT_EQ(f.run("/admin").response.status, 404);
}

TEST(Control, OnlyGetAndPostAreTaken) {
  Fixture f;
  auto r = parse_http_head("DELETE /commands/connections HTTP/1.1");
  ASSERT_TRUE(r);
  EXPECT_EQ(control(*r, f.fe, 0).response.status, 405);
}

TEST(Control, ConnectionsListsEachConnection) {
  Fixture f;
  const SessionId s = f.connect(4242);
  f.fe.open("127.0.0.1", 5353, 0);
  EXPECT_EQ(f.run("/commands/connections").response.body,
            R"({"command":"connections","error":null,"connections":[{"id":1,"address":"127.0.0.1:4242","session":")" +
                hex(s) +
                R"(","lane":0,"timeout_ms":10000},{"id":2,"address":"127.0.0.1:5353","session":"0x0","lane":-1,"timeout_ms":0}]})"
                "\n");
}

TEST(Control, ExpireTakesASessionOrAClientAddress) {
  Fixture f;
  const SessionId a = f.connect(1);
  const SessionId b = f.connect(2);
  auto r = f.run("/commands/expire?session=" + hex(a));
  EXPECT_EQ(r.response.body, R"({"command":"expire","error":null,"session":")" + hex(a) + "\"}\n");
  ASSERT_EQ(r.deliveries.size(), 1u);  // its connection closes
  EXPECT_TRUE(r.deliveries[0].close);
  EXPECT_FALSE(f.server.session_alive(a));
  EXPECT_EQ(f.run("/commands/expire?client=127.0.0.1:2").response.status, 200);
  EXPECT_FALSE(f.server.session_alive(b));
  // Decimal ids too.
  const SessionId c = f.connect(3);
  EXPECT_EQ(f.run("/commands/expire?session=" + std::to_string(c.value)).response.status, 200);
}

TEST(Control, AFaultWithoutItsTargetIsABadRequest) {
  Fixture f;
  f.connect(1);
  for (const char* target : {"/commands/expire", "/commands/expire?session=0x1&client=127.0.0.1:1",
                             "/commands/expire?session=zz", "/commands/expire?session=0"}) {
    EXPECT_EQ(f.run(target).response.status, 400) << target;
  }
}

TEST(Control, AnAbsentTargetIsNotFound) {
  Fixture f;
  EXPECT_EQ(f.run("/commands/expire?session=0x77").response.status, 404);
  EXPECT_EQ(f.run("/commands/close?client=127.0.0.1:9").response.status, 404);
  EXPECT_EQ(f.run("/commands/pause?session=0x77&ms=5").response.status, 404);
}

TEST(Control, DropNamesWhenAndMayNameTheRequest) {
  Fixture f;
  const SessionId s = f.connect(1);
  EXPECT_EQ(f.run("/commands/drop?session=" + hex(s)).response.status, 400);
  EXPECT_EQ(f.run("/commands/drop?session=" + hex(s) + "&when=after&op=frobnicate").response.status, 400);
  const auto r = f.run("/commands/drop?session=" + hex(s) + "&when=after&op=create&path=/locks/");
  EXPECT_EQ(r.response.body, R"({"command":"drop","error":null,"session":")" + hex(s) +
                                 R"(","when":"after","op":"create","path":"/locks/"})" "\n");
  // Armed: a create under /locks/ is applied and the connection dropped.
  const auto out = f.fe.receive(1, request_frame(1, OpCode::Create, CreateRequest{.path = "/locks"}), 11);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].close);
  EXPECT_EQ(f.fe.receive(1, request_frame(2, OpCode::Create, CreateRequest{.path = "/locks/x"}), 12),
            (std::vector<Delivery>{{1, {}, true}}));
  EXPECT_TRUE(f.server.node("/locks/x"));
}

TEST(Control, PauseAndCloseTakeTheConnection) {
  Fixture f;
  const SessionId s = f.connect(1);
  EXPECT_EQ(f.run("/commands/pause?session=" + hex(s)).response.status, 400);
  EXPECT_EQ(f.run("/commands/pause?session=" + hex(s) + "&ms=-1").response.status, 400);
  EXPECT_EQ(f.run("/commands/pause?session=" + hex(s) + "&ms=500").response.body,
            R"({"command":"pause","error":null,"connection":1,"session":")" + hex(s) + R"(","ms":500})" "\n");
  EXPECT_EQ(f.fe.next_deadline(), 510);
  const auto closed = f.run("/commands/close?client=127.0.0.1:1");
  EXPECT_EQ(closed.response.status, 200);
  EXPECT_TRUE(closed.deliveries.empty());  // held by the pause, the close included
  EXPECT_EQ(f.fe.advance(510), (std::vector<Delivery>{{1, {}, true}}));
}

TEST(Control, SequenceSetsAParentsCounter) {
  Fixture f;
  f.connect(1);
  f.fe.receive(1, request_frame(1, OpCode::Create, CreateRequest{.path = "/q"}), 1);
  EXPECT_EQ(f.run("/commands/sequence?path=/q&counter=2147483647").response.body,
            R"({"command":"sequence","error":null,"path":"/q","counter":2147483647})" "\n");
  EXPECT_EQ(f.run("/commands/sequence?path=/q&counter=2147483648").response.status, 400);
  EXPECT_EQ(f.run("/commands/sequence?path=/nope&counter=1").response.status, 404);
}

// A path ZooKeeper would refuse names nothing that could be found.
TEST(Control, ASequencePathThatIsNoZooKeeperPathIsABadRequest) {
  Fixture f;
  for (const char* path : {"nopath", "/q/", "/a//b", "/a/./b", ""}) {
    const auto r = f.run(std::string("/commands/sequence?path=") + path + "&counter=1");
    EXPECT_EQ(r.response.status, 400) << path;
    EXPECT_EQ(r.response.body, fmt::format(R"({{"command":"sequence","error":"not a ZooKeeper path: {}"}})", path) + "\n");
  }
}

TEST(Control, TraceIsJsonByDefault) {
  Fixture f;
  f.connect(1);
  f.fe.receive(1, request_frame(1, OpCode::Create, CreateRequest{.path = "/\"q\""}), 1);
  const std::string body = f.run("/commands/trace").response.body;
  EXPECT_TRUE(body.starts_with(R"({"command":"trace","error":null,"dropped":0,"events":[{"time":0,"kind":"server","client":0,)"))
      << body;
  EXPECT_NE(body.find(R"("kind":"request","client":0,)"), std::string::npos);
  EXPECT_NE(body.find(R"("path":"/\"q\"")"), std::string::npos);  // escaped
  EXPECT_NE(body.find(R"("text":"t=1      c0 )"), std::string::npos);
}

TEST(Control, TraceIsDrawnInTheOtherFormats) {
  Fixture f;
  f.connect(1);
  f.connect(2);
  int lanes_seen = -1;
  const TraceDrawer draw = [&](const std::vector<TraceEvent>& events, int lanes, std::string_view format) {
    lanes_seen = lanes;
    return format == "html" ? std::optional<std::string>("<p>" + std::to_string(events.size()) + "</p>") : std::nullopt;
  };
  const auto r = f.run("/commands/trace?format=html", draw);
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(r.response.body, "<p>2</p>");
  EXPECT_EQ(lanes_seen, 2);
  EXPECT_EQ(f.run("/commands/trace?format=svg", draw).response.status, 400);
  EXPECT_EQ(f.run("/commands/trace?format=html").response.status, 400);  // nobody to draw it
}

}  // namespace
}  // namespace zksim::wire::test
