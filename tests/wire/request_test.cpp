// Requests, from the captures: what each decodes to, the server's answers
// to the ones it does not execute, and re-encoding byte for byte.
#include "capture_file.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <gtest/gtest.h>

namespace zksim::wire::test {
namespace {

const RequestFrame* frame_of(const RequestDecode& d) { return std::get_if<RequestFrame>(&d); }
const Answer* answer_of(const RequestDecode& d) { return std::get_if<Answer>(&d); }

template <class T>
const T* request_of(const RequestFrame& f) {
  const Request* r = std::get_if<Request>(&f.body);
  return r ? std::get_if<T>(r) : nullptr;
}

std::int64_t reply_zxid(const CapturedFrame& reply) {
  Reader r(reply.body().subspan(4));
  std::int64_t z = 0;
  r.read_long(z);
  return z;
}

// Every request of a probe decodes to an Answer whose reply is the
// server's, byte for byte; returns the answers.
std::vector<Answer> expect_answers(const Capture& c, const std::string& probe, std::vector<std::size_t> which) {
  std::vector<Answer> out;
  const auto ex = exchanges(c, c.probe_conn(probe));
  for (std::size_t i : which) {
    if (i >= ex.size()) {
      ADD_FAILURE() << probe << ": no exchange " << i;
      continue;
    }
    const RequestDecode d = decode_request(ex[i].request->body());
    const Answer* a = answer_of(d);
    if (!a) {
      ADD_FAILURE() << probe << " #" << i << ": decoded to a request, not an answer";
      continue;
    }
    EXPECT_NE(a->action, AnswerAction::Close) << probe << " #" << i;
    if (!ex[i].reply) {
      ADD_FAILURE() << probe << " #" << i << ": the server sent no reply";
      continue;
    }
    EXPECT_EQ(hex(encode_answer(*a, reply_zxid(*ex[i].reply))), hex(ex[i].reply->bytes))
        << probe << " #" << i << " (" << a->reason << ")";
    out.push_back(*a);
  }
  return out;
}

TEST(Request, EveryCapturedClientRequestDecodesAndReencodesByteForByte) {
  int checked = 0;
  for (const char* file : {"c_client.hex", "kazoo.hex", "zkcli.hex"}) {
    const Capture c = load_capture(file);
    for (const Exchange& e : all_exchanges(c)) {
      const RequestDecode d = decode_request(e.request->body());
      const RequestFrame* f = frame_of(d);
      ASSERT_TRUE(f) << file << ":" << e.request->line << " " << answer_of(d)->reason;
      EXPECT_EQ(f->xid, e.xid);
      EXPECT_EQ(static_cast<std::int32_t>(f->code), e.type);
      EXPECT_EQ(hex(encode_request(*f)), hex(e.request->bytes)) << file << ":" << e.request->line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Request, CreateModesFollowTheFlagsAndTheOpcode) {
  const Capture c = load_capture("c_client.hex");
  struct Want {
    OpCode code;
    int nth;
    const char* path;
    CreateMode mode;
    std::int64_t ttl;
  };
  const Want wants[] = {
      {OpCode::Create, 0, "/c", CreateMode::Persistent, -1},
      {OpCode::Create, 2, "/c/e", CreateMode::Ephemeral, -1},
      {OpCode::Create, 3, "/c/ps-", CreateMode::PersistentSequential, -1},
      {OpCode::Create, 4, "/c/es-", CreateMode::EphemeralSequential, -1},
      {OpCode::Create2, 0, "/c/two", CreateMode::Persistent, -1},
      {OpCode::CreateContainer, 0, "/c/box", CreateMode::Container, -1},
      {OpCode::CreateTtl, 0, "/c/ttl", CreateMode::PersistentWithTtl, 60000},
      {OpCode::CreateTtl, 1, "/c/ttls-", CreateMode::PersistentSequentialWithTtl, 60000},
  };
  for (const Want& w : wants) {
    const auto e = find(c, w.code, w.nth);
    ASSERT_TRUE(e) << w.path;
    const RequestDecode d = decode_request(e->request->body());
    ASSERT_TRUE(frame_of(d)) << w.path;
    const auto* create = request_of<CreateRequest>(*frame_of(d));
    ASSERT_TRUE(create) << w.path;
    EXPECT_EQ(create->path, w.path);
    EXPECT_EQ(create->mode, w.mode) << w.path;
    EXPECT_EQ(create->ttl_ms, w.ttl) << w.path;
    EXPECT_EQ(create->acl, open_acl());
  }
}

TEST(Request, NullDataDecodesAsEmptyAndIsMarkedNull) {
  const Capture c = load_capture("c_client.hex");
  const auto e = find(c, OpCode::Create, 1);  // "/c/null"
  ASSERT_TRUE(e);
  const RequestDecode d = decode_request(e->request->body());
  ASSERT_TRUE(frame_of(d));
  const auto* create = request_of<CreateRequest>(*frame_of(d));
  ASSERT_TRUE(create);
  EXPECT_EQ(create->path, "/c/null");
  EXPECT_EQ(create->data, "");
  EXPECT_TRUE(frame_of(d)->nulls.data);
  EXPECT_FALSE(frame_of(d)->nulls.path);
}

// DataTree keeps the null; getData returns it as null with dataLength 0.
TEST(Request, TheServerKeepsNullDataNull) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("create-and-read-null-data"));
  ASSERT_EQ(ex.size(), 5u);
  for (std::size_t i : {1u, 4u}) {  // after create with null data, and after setData null
    const auto reply = decode_reply(ex[i].reply->body(), OpCode::GetData);
    ASSERT_TRUE(reply);
    EXPECT_TRUE(reply->nulls.data) << i;
    const auto* data = std::get_if<DataResponse>(&std::get<Response>(reply->body));
    ASSERT_TRUE(data);
    EXPECT_EQ(data->stat.dataLength, 0);
  }
  const RequestDecode set_null = decode_request(ex[3].request->body());
  ASSERT_TRUE(frame_of(set_null));
  EXPECT_TRUE(frame_of(set_null)->nulls.data);
}

// PrepRequestProcessor and FinalRequestProcessor on a null path: a
// NullPointerException is a marshalling error, validatePath's refusal is
// BadArguments; sync echoes the null, getEphemerals reads it as "/", and
// addWatch puts a watch on it and succeeds.
TEST(Request, ANullPathIsAnsweredAsTheServerAnswersIt) {
  const Capture c = load_capture("probes.hex");
  const std::pair<const char*, Error> refused[] = {
      {"null-path-create", Error::MarshallingError}, {"null-path-delete", Error::MarshallingError},
      {"null-path-exists", Error::MarshallingError}, {"null-path-getData", Error::MarshallingError},
      {"null-path-setData", Error::BadArguments},     {"null-path-getACL", Error::MarshallingError},
      {"null-path-getChildren", Error::MarshallingError}, {"null-path-addWatch", Error::Ok},
  };
  for (auto [probe, error] : refused) {
    const auto answers = expect_answers(c, probe, {0});
    ASSERT_EQ(answers.size(), 1u) << probe;
    EXPECT_EQ(answers[0].error, error) << probe;
  }
  const auto sync = exchanges(c, c.probe_conn("null-path-sync"));
  const RequestDecode d = decode_request(sync.at(0).request->body());
  ASSERT_TRUE(frame_of(d));
  EXPECT_TRUE(frame_of(d)->nulls.path);
  const auto reply = make_reply(*frame_of(d), reply_zxid(*sync[0].reply), Error::Ok, Response(SyncResponse{}));
  EXPECT_EQ(hex(*encode_reply(reply)), hex(sync[0].reply->bytes));

  const auto eph = exchanges(c, c.probe_conn("null-prefix-getEphemerals"));
  const RequestDecode g = decode_request(eph.at(0).request->body());
  ASSERT_TRUE(frame_of(g));
  EXPECT_EQ(request_of<GetEphemeralsRequest>(*frame_of(g))->prefix, "/");
}

// CreateMode.fromFlag and EphemeralType.validateTTL: BadArguments, with an
// error transaction (a fresh zxid) since create is a write.
TEST(Request, AnUnknownCreateFlagOrAMisfitTtlIsBadArguments) {
  const Capture c = load_capture("probes.hex");
  const auto answers = expect_answers(c, "create-flags-out-of-range", {0, 1, 2, 3, 4, 5});
  ASSERT_EQ(answers.size(), 6u);
  for (const Answer& a : answers) {
    EXPECT_EQ(a.error, Error::BadArguments);
    EXPECT_TRUE(a.error_txn);
  }
}

// The opcode, not the flag, makes a container: the server created one
// (create2-style reply) for createContainer with flag 0.
TEST(Request, CreateContainerMakesAContainerWhateverTheFlag) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("create-flags-out-of-range"));
  const RequestDecode d = decode_request(ex.at(6).request->body());
  ASSERT_TRUE(frame_of(d));
  EXPECT_EQ(request_of<CreateRequest>(*frame_of(d))->mode, CreateMode::Container);
  EXPECT_EQ(int_at(ex[6].reply->bytes, 16), 0);  // err
}

// In a multi, an unknown flag fails that op (BadArguments), and the server
// reports it with err 0 in the reply header.
TEST(Request, AnUnknownCreateFlagInAMultiFailsThatOp) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("create-flags-out-of-range"));
  const RequestDecode d = decode_request(ex.at(7).request->body());
  ASSERT_TRUE(frame_of(d));
  const RequestFrame& f = *frame_of(d);
  ASSERT_EQ(f.ops.size(), 1u);
  EXPECT_EQ(f.ops[0].error, Error::BadArguments);
  MultiResponse m;
  m.results.push_back(OpResult{Error::BadArguments, {}});
  const auto reply = make_reply(f, reply_zxid(*ex[7].reply), Error::Ok, Response(m));
  EXPECT_EQ(hex(*encode_reply(reply)), hex(ex[7].reply->bytes));
}

// WatcherMode.fromZooDef and WatcherType.fromInt throw: marshalling error,
// no transaction.
TEST(Request, AnUnknownWatchModeOrWatcherTypeIsAMarshallingError) {
  const Capture c = load_capture("probes.hex");
  for (const Answer& a : expect_answers(c, "watch-modes-out-of-range", {0, 1, 2, 3})) {
    EXPECT_EQ(a.error, Error::MarshallingError);
    EXPECT_FALSE(a.error_txn);
  }
}

// The IOException of a short record: marshalling error; a write's costs a zxid.
TEST(Request, ATruncatedBodyIsAMarshallingError) {
  const Capture c = load_capture("probes.hex");
  const auto answers = expect_answers(c, "truncated-bodies", {0, 1, 2, 3});
  ASSERT_EQ(answers.size(), 4u);
  for (const Answer& a : answers) EXPECT_EQ(a.error, Error::MarshallingError);
  EXPECT_TRUE(answers[0].error_txn);   // create
  EXPECT_FALSE(answers[1].error_txn);  // getData
  EXPECT_TRUE(answers[3].error_txn);   // multi
}

// A string length below -1 or past the end: marshalling error. An ACL
// vector of negative length is read as empty (then InvalidAcl from the
// server's ACL check, as for an empty or null one).
TEST(Request, LengthsOutOfRangeAreReadAsTheServerReadsThem) {
  const Capture c = load_capture("probes.hex");
  expect_answers(c, "lengths-out-of-range", {0, 1});
  const auto ex = exchanges(c, c.probe_conn("lengths-out-of-range"));
  for (std::size_t i : {2u, 3u, 4u}) {
    const RequestDecode d = decode_request(ex.at(i).request->body());
    ASSERT_TRUE(frame_of(d)) << i;
    EXPECT_TRUE(request_of<CreateRequest>(*frame_of(d))->acl.empty());
    EXPECT_EQ(frame_of(d)->nulls.acl, i == 3) << i;
    EXPECT_EQ(int_at(ex[i].reply->bytes, 16), static_cast<int>(Error::InvalidAcl));
  }
}

TEST(Request, TrailingBytesAreIgnored) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("trailing-bytes"));
  ASSERT_EQ(ex.size(), 2u);
  const RequestDecode exists = decode_request(ex[0].request->body());
  ASSERT_TRUE(frame_of(exists));
  EXPECT_EQ(request_of<ExistsRequest>(*frame_of(exists))->path, "/");
  const RequestDecode get = decode_request(ex[1].request->body());
  ASSERT_TRUE(frame_of(get));
  EXPECT_EQ(request_of<GetDataRequest>(*frame_of(get))->path, "/zookeeper");
  for (const Exchange& e : ex) EXPECT_EQ(int_at(e.reply->bytes, 16), 0);
}

// Request.isValid: anything else (and notification, 0) goes to
// UnimplementedRequestProcessor: ZUNIMPLEMENTED with zxid -1, then close.
TEST(Request, AnUnknownOpcodeIsUnimplementedThenTheConnectionCloses) {
  const Capture c = load_capture("probes.hex");
  for (const char* probe : {"unknown-opcode", "notification-opcode"}) {
    const auto answers = expect_answers(c, probe, {0});
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].error, Error::Unimplemented);
    EXPECT_EQ(answers[0].action, AnswerAction::ReplyThenClose);
    const int conn = c.probe_conn(probe);
    EXPECT_NE(std::find(c.closed_by_server.begin(), c.closed_by_server.end(), conn), c.closed_by_server.end());
  }
  const auto ex = exchanges(c, c.probe_conn("unknown-opcode"));
  EXPECT_EQ(ex.at(1).reply, nullptr);  // the exists after it got nothing
}

TEST(Request, AnUnreadableHeaderClosesTheConnectionWithoutAReply) {
  const Capture c = load_capture("probes.hex");
  const int conn = c.probe_conn("header-truncated");
  const auto out = c.of(conn, true);
  ASSERT_EQ(out.size(), 2u);
  const RequestDecode d = decode_request(out[1]->body());
  const Answer* a = answer_of(d);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->action, AnswerAction::Close);
  EXPECT_EQ(c.of(conn, false).size(), 1u);  // the connect response only
}

TEST(Request, ReconfigSaslAndDeleteContainerAreAnsweredAsStandaloneAnswers) {
  const Capture c = load_capture("probes.hex");
  const auto answers = expect_answers(c, "reconfig-sasl-deleteContainer", {0, 1, 2});
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0].error, Error::ReconfigDisabled);
  EXPECT_EQ(answers[1].error, Error::BadArguments);
  EXPECT_EQ(answers[2].error, Error::Ok);
}

TEST(Request, PingAuthAndTheCClientsSetWatchesUseTheirOwnXids) {
  const Capture c = load_capture("c_client.hex");
  const auto ping = find(c, OpCode::Ping);
  const auto auth = find(c, OpCode::Auth);
  const auto watches = find(c, OpCode::SetWatches);
  ASSERT_TRUE(ping && auth && watches);
  EXPECT_EQ(ping->xid, kPingXid);
  EXPECT_EQ(auth->xid, kAuthXid);
  EXPECT_EQ(watches->xid, kSetWatchesXid);
  EXPECT_EQ(int_at(ping->reply->bytes, 4), kPingXid);
  EXPECT_EQ(int_at(auth->reply->bytes, 4), kAuthXid);
  EXPECT_EQ(int_at(watches->reply->bytes, 4), kSetWatchesXid);
  const RequestDecode a = decode_request(auth->request->body());
  ASSERT_TRUE(frame_of(a));
  const auto* packet = std::get_if<AuthRequest>(&frame_of(a)->body);
  ASSERT_TRUE(packet);
  EXPECT_EQ(packet->scheme, "digest");
  EXPECT_EQ(packet->auth, "alice:secret");
}

// The Java client gives setWatches2 an ordinary xid (ClientCnxnSocketNIO
// renumbers every packet but ping and auth), and the server echoes it.
TEST(Request, TheJavaClientsSetWatches2HasAnOrdinaryXid) {
  const Capture c = load_capture("zkcli.hex");
  const auto e = find(c, OpCode::SetWatches2);
  ASSERT_TRUE(e);
  EXPECT_GT(e->xid, 0);
  ASSERT_TRUE(e->reply);
  EXPECT_EQ(int_at(e->reply->bytes, 4), e->xid);
  const RequestDecode d = decode_request(e->request->body());
  ASSERT_TRUE(frame_of(d));
  const auto* s = request_of<SetWatchesRequest>(*frame_of(d));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->persistent, std::vector<std::string>{"/j"});            // addWatch -m PERSISTENT /j
  EXPECT_EQ(s->persistent_recursive, std::vector<std::string>{"/j/box"});  // and -m PERSISTENT_RECURSIVE
  EXPECT_GT(s->relative_zxid, 0);
}

TEST(Request, SetWatchesAfterAReconnectCarriesTheWatchesLeft) {
  const Capture c = load_capture("c_client.hex");
  const auto e = find(c, OpCode::SetWatches);
  ASSERT_TRUE(e);
  const RequestDecode d = decode_request(e->request->body());
  ASSERT_TRUE(frame_of(d));
  const auto* s = request_of<SetWatchesRequest>(*frame_of(d));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->data, std::vector<std::string>{"/c/two"});
  EXPECT_EQ(s->exist, std::vector<std::string>{"/c/missing"});
  EXPECT_TRUE(s->child.empty());
  EXPECT_GT(s->relative_zxid, 0);
}

TEST(Request, MultiReadDecodesItsReadOps) {
  const Capture c = load_capture("probes.hex");
  const auto ex = exchanges(c, c.probe_conn("multi-read"));
  const RequestDecode d = decode_request(ex.at(1).request->body());
  ASSERT_TRUE(frame_of(d));
  const auto* reads = std::get_if<MultiReadRequest>(&frame_of(d)->body);
  ASSERT_TRUE(reads);
  ASSERT_EQ(reads->ops.size(), 3u);
  EXPECT_EQ(std::get<GetDataRequest>(reads->ops[0]).path, "/mr");
  EXPECT_EQ(std::get<GetChildrenRequest>(reads->ops[1]).path, "/");
  EXPECT_EQ(hex(encode_request(*frame_of(d))), hex(ex[1].request->bytes));
}

// MultiOperationRecord refuses to mix reads and writes.
TEST(Request, ReadsAndWritesMixedAreAMarshallingError) {
  const Capture c = load_capture("probes.hex");
  const auto answers = expect_answers(c, "multi-read", {2});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error, Error::MarshallingError);
}

TEST(Request, WhoAmIPingAndCloseSessionHaveNoBody) {
  const Capture c = load_capture("probes.hex");
  const auto who = exchanges(c, c.probe_conn("who-am-i-and-ping"));
  const auto close = exchanges(c, c.probe_conn("close-session"));
  const RequestDecode w = decode_request(who.at(0).request->body());
  const RequestDecode p = decode_request(who.at(1).request->body());
  const RequestDecode x = decode_request(close.at(0).request->body());
  ASSERT_TRUE(frame_of(w) && frame_of(p) && frame_of(x));
  EXPECT_TRUE(std::holds_alternative<WhoAmIRequest>(frame_of(w)->body));
  EXPECT_TRUE(std::holds_alternative<PingRequest>(frame_of(p)->body));
  EXPECT_TRUE(std::holds_alternative<CloseSessionRequest>(frame_of(x)->body));
}

// Every prefix of every captured request decodes to something, without
// reading past it (the sanitizer build checks the reads).
TEST(Decoder, EveryPrefixOfEveryCapturedRequestDecodesWithoutCrashing) {
  for (const char* file : {"c_client.hex", "kazoo.hex", "zkcli.hex", "probes.hex"}) {
    const Capture c = load_capture(file);
    for (const CapturedFrame& f : c.frames) {
      if (!f.to_server) continue;
      for (std::size_t n = 0; n <= f.body().size(); ++n) {
        const RequestDecode d = decode_request(f.body().first(n));
        EXPECT_TRUE(frame_of(d) || answer_of(d));
      }
    }
  }
}

}  // namespace
}  // namespace zksim::wire::test
