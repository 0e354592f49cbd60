// Replies and notifications, from the captures.
#include "capture_file.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

namespace zksim::wire::test {
namespace {

const RequestFrame& request_frame(const Exchange& e, RequestDecode& holder) {
  holder = decode_request(e.request->body());
  return std::get<RequestFrame>(holder);
}

TEST(Reply, EveryCapturedReplyDecodesAndReencodesByteForByte) {
  int checked = 0;
  for (const char* file : {"c_client.hex", "kazoo.hex", "zkcli.hex", "probes.hex"}) {
    const Capture c = load_capture(file);
    for (const Exchange& e : all_exchanges(c)) {
      // sasl's token has no type here: the decoder answers sasl itself
      // (Request.ReconfigSaslAndDeleteContainerAreAnsweredAsStandaloneAnswers
      // checks those bytes).
      if (!e.reply || e.type == static_cast<std::int32_t>(OpCode::Sasl)) continue;
      const auto reply = decode_reply(e.reply->body(), static_cast<OpCode>(e.type));
      ASSERT_TRUE(reply) << file << ":" << e.reply->line;
      const auto bytes = encode_reply(*reply);
      ASSERT_TRUE(bytes) << file << ":" << e.reply->line;
      EXPECT_EQ(hex(*bytes), hex(e.reply->bytes)) << file << ":" << e.reply->line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

// For every request of the clients, the reply built by make_reply from the
// decoded request and the decoded body is the server's, byte for byte:
// xid, layout by opcode, multi result types, nulls echoed.
TEST(Reply, MakeReplyBuildsTheServersReplyFromTheRequest) {
  int checked = 0;
  for (const char* file : {"c_client.hex", "kazoo.hex", "zkcli.hex"}) {
    const Capture c = load_capture(file);
    for (const Exchange& e : all_exchanges(c)) {
      if (!e.reply) continue;
      RequestDecode holder;
      const RequestFrame& req = request_frame(e, holder);
      auto decoded = decode_reply(e.reply->body(), req.code);
      ASSERT_TRUE(decoded);
      const ReplyHeader& h = decoded->header;
      Error err = Error::Ok;
      ASSERT_TRUE(error_from_number(h.err, err)) << h.err;
      ReplyFrame made = make_reply(req, h.zxid, err, decoded->body);
      made.header.xid = h.xid;  // auth replies keep the auth xid; setWatches the client's
      made.nulls.data |= decoded->nulls.data;  // the tree's own null, not the request's
      const auto bytes = encode_reply(made);
      ASSERT_TRUE(bytes) << file << ":" << e.reply->line;
      EXPECT_EQ(hex(*bytes), hex(e.reply->bytes)) << file << ":" << e.reply->line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Reply, AnErrorReplyIsTheHeaderAlone) {
  const Capture c = load_capture("c_client.hex");
  int errors = 0;
  for (const Exchange& e : all_exchanges(c)) {
    if (!e.reply || int_at(e.reply->bytes, 16) == 0) continue;
    EXPECT_EQ(e.reply->bytes.size(), 20u) << e.reply->line;
    ++errors;
  }
  EXPECT_GE(errors, 8);
}

// FinalRequestProcessor does not take the multi's error into the header:
// err 0, then one error result per op (0 before the failing op, its error,
// RuntimeInconsistency after).
TEST(Reply, AFailedMultiHasErrZeroAndAnErrorResultPerOp) {
  for (const char* file : {"c_client.hex", "kazoo.hex"}) {
    const Capture c = load_capture(file);
    const auto e = find(c, OpCode::Multi, 1);
    ASSERT_TRUE(e && e->reply);
    const auto reply = decode_reply(e->reply->body(), OpCode::Multi);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->header.err, 0);
    EXPECT_EQ(reply->result_types, (std::vector<std::int32_t>{-1, -1, -1}));
    const auto& m = std::get<MultiResponse>(std::get<Response>(reply->body));
    const Error failing = std::string(file) == "kazoo.hex" ? Error::NoNode : Error::BadVersion;
    ASSERT_EQ(m.results.size(), 3u);
    EXPECT_EQ(m.results[0].error, Error::Ok);
    EXPECT_EQ(m.results[1].error, failing);
    EXPECT_EQ(m.results[2].error, Error::RuntimeInconsistency);
  }
}

// In a multi a plain create reports its path alone (type create), setData a
// Stat, check and delete nothing.
TEST(Reply, ASuccessfulMultiReportsEachOpByItsType) {
  const Capture c = load_capture("c_client.hex");
  const auto e = find(c, OpCode::Multi, 0);
  ASSERT_TRUE(e && e->reply);
  const auto reply = decode_reply(e->reply->body(), OpCode::Multi);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->result_types, (std::vector<std::int32_t>{1, 5, 13, 2}));
  const auto& m = std::get<MultiResponse>(std::get<Response>(reply->body));
  EXPECT_EQ(std::get<CreateResponse>(m.results[0].value).path, "/c/m");
  EXPECT_EQ(std::get<StatResponse>(m.results[1].value).stat.version, 1);
}

TEST(Reply, Create2AndTheExtendedCreatesCarryAStatAndCreateDoesNot) {
  const Capture c = load_capture("c_client.hex");
  for (OpCode code : {OpCode::Create2, OpCode::CreateContainer, OpCode::CreateTtl}) {
    const auto e = find(c, code);
    ASSERT_TRUE(e && e->reply);
    const auto reply = decode_reply(e->reply->body(), code);
    ASSERT_TRUE(reply);
    const auto& created = std::get<CreateResponse>(std::get<Response>(reply->body));
    EXPECT_GT(created.stat.czxid, 0) << opcode_name(code);
    EXPECT_EQ(created.stat.ephemeralOwner, 0) << opcode_name(code);  // containers and TTL show none
  }
  const auto plain = find(c, OpCode::Create);
  const auto reply = decode_reply(plain->reply->body(), OpCode::Create);
  ASSERT_TRUE(reply);
  EXPECT_EQ(plain->reply->bytes.size(), 20u + 4 + std::get<CreateResponse>(std::get<Response>(reply->body)).path.size());
}

TEST(Reply, AnAddWatchReplyCarriesAZero) {
  const Capture c = load_capture("zkcli.hex");
  const auto e = find(c, OpCode::AddWatch);
  ASSERT_TRUE(e && e->reply);
  EXPECT_EQ(e->reply->bytes.size(), 24u);
  EXPECT_EQ(int_at(e->reply->bytes, 20), 0);
}

TEST(Reply, AuthRepliesCarryZxidZero) {
  const Capture c = load_capture("probes.hex");
  const auto e = find(c, OpCode::Auth);
  ASSERT_TRUE(e && e->reply);
  const auto h = decode_reply_header(e->reply->body());
  ASSERT_TRUE(h);
  EXPECT_EQ(h->xid, kAuthXid);
  EXPECT_EQ(h->zxid, 0);
}

TEST(Reply, AnUnknownAuthSchemeIsAuthFailedThenTheConnectionCloses) {
  const Capture c = load_capture("probes.hex");
  const int conn = c.probe_conn("auth-unknown-scheme");
  const auto ex = exchanges(c, conn);
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(int_at(ex[0].reply->bytes, 16), static_cast<int>(Error::AuthFailed));
  EXPECT_NE(std::find(c.closed_by_server.begin(), c.closed_by_server.end(), conn), c.closed_by_server.end());
}

// FinalRequestProcessor answers a lone check with a SetDataResponse of a
// null Stat, which fails to serialize: no reply at all. A failing check
// gets its error.
TEST(Reply, ASucceedingCheckOutsideAMultiGetsNoReply) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("check-and-unwatch-outside-multi"));
  ASSERT_EQ(ex.size(), 4u);
  EXPECT_EQ(ex[0].reply, nullptr);
  ASSERT_TRUE(ex[1].reply);
  EXPECT_EQ(int_at(ex[1].reply->bytes, 16), static_cast<int>(Error::BadVersion));
  EXPECT_EQ(int_at(ex[2].reply->bytes, 16), static_cast<int>(Error::NoWatcher));
  EXPECT_EQ(int_at(ex[3].reply->bytes, 16), static_cast<int>(Error::NoWatcher));
}

TEST(Reply, CloseSessionIsAnsweredThenTheServerCloses) {
  const Capture c = load_capture("probes.hex");
  const int conn = c.probe_conn("close-session");
  const auto ex = exchanges(c, conn);
  ASSERT_GE(ex.size(), 1u);
  ASSERT_TRUE(ex[0].reply);
  EXPECT_EQ(int_at(ex[0].reply->bytes, 16), 0);
  // The probe's next request, if it got through before the close, has no reply.
  for (std::size_t i = 1; i < ex.size(); ++i) EXPECT_EQ(ex[i].reply, nullptr);
  EXPECT_NE(std::find(c.closed_by_server.begin(), c.closed_by_server.end(), conn), c.closed_by_server.end());
}

TEST(Reply, WhoAmIListsTheSessionsIds) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("who-am-i-and-ping"));
  const auto before = decode_reply(ex.at(0).reply->body(), OpCode::WhoAmI);
  const auto after = decode_reply(ex.at(3).reply->body(), OpCode::WhoAmI);
  ASSERT_TRUE(before && after);
  // The server keeps them in a hash set (ServerCnxn.authInfo): any order.
  auto sorted = [](std::vector<ClientInfo> v) {
    std::sort(v.begin(), v.end(), [](const ClientInfo& a, const ClientInfo& b) {
      return std::tie(a.scheme, a.user) < std::tie(b.scheme, b.user);
    });
    return v;
  };
  EXPECT_EQ(std::get<WhoAmIResponse>(before->body).infos, (std::vector<ClientInfo>{{"ip", "127.0.0.1"}}));
  EXPECT_EQ(sorted(std::get<WhoAmIResponse>(after->body).infos),
            (std::vector<ClientInfo>{{"digest", "eve"}, {"ip", "127.0.0.1"}}));
}

TEST(Reply, MultiReadAnswersEachOpOnItsOwn) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("multi-read"));
  const auto reply = decode_reply(ex.at(1).reply->body(), OpCode::MultiRead);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->header.err, 0);
  EXPECT_EQ(reply->result_types, (std::vector<std::int32_t>{4, 8, -1}));
  const auto& m = std::get<MultiReadResponse>(reply->body);
  EXPECT_EQ(std::get<DataResponse>(m.results[0].value).data, "d");
  EXPECT_EQ(m.results[2].error, Error::NoNode);
  RequestDecode holder;
  const ReplyFrame made = make_reply(request_frame(ex[1], holder), reply->header.zxid, Error::Ok, reply->body);
  EXPECT_EQ(hex(*encode_reply(made)), hex(ex[1].reply->bytes));
}

TEST(Reply, ABodyThatDoesNotFitTheOpcodeIsNotEncoded) {
  RequestFrame req;
  req.xid = 5;
  req.code = OpCode::GetData;
  req.body = Request(GetDataRequest{"/a", false});
  EXPECT_FALSE(encode_reply(make_reply(req, 9, Error::Ok, Response(StatResponse{}))));
  EXPECT_TRUE(encode_reply(make_reply(req, 9, Error::NoNode, Response(StatResponse{}))));
}

// NIOServerCnxn.process: xid -1, zxid -1, err 0, then the WatcherEvent.
TEST(Notification, ANotificationHasXidAndZxidMinusOne) {
  int checked = 0;
  for (const char* file : {"c_client.hex", "zkcli.hex", "probes.hex"}) {
    const Capture c = load_capture(file);
    for (const CapturedFrame& f : c.frames) {
      if (f.to_server || int_at(f.bytes, 4) != kNotificationXid) continue;
      const auto event = decode_notification(f.body());
      ASSERT_TRUE(event) << file << ":" << f.line;
      EXPECT_EQ(event->state, KeeperState::SyncConnected);
      const auto h = decode_reply_header(f.body());
      EXPECT_EQ(h->zxid, -1);
      EXPECT_EQ(hex(encode_notification(*event)), hex(f.bytes)) << file << ":" << f.line;
      ++checked;
    }
  }
  EXPECT_GE(checked, 5);
}

TEST(Notification, TheCClientsWatchesFireAfterTheReconnect) {
  const Capture c = load_capture("c_client.hex");
  std::vector<WatchedEvent> after;
  for (const CapturedFrame& f : c.frames) {
    if (f.conn == 2 && !f.to_server && int_at(f.bytes, 4) == kNotificationXid) {
      after.push_back(*decode_notification(f.body()));
    }
  }
  EXPECT_EQ(after, (std::vector<WatchedEvent>{{EventType::NodeCreated, KeeperState::SyncConnected, "/c/missing"},
                                               {EventType::NodeDeleted, KeeperState::SyncConnected, "/c/two"}}));
}

}  // namespace
}  // namespace zksim::wire::test
