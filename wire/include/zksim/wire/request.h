// Requests as the server reads them: a RequestHeader (xid, type) and the
// record of that type (zookeeper.jute), decoded into the project's own
// request types (zksim/request.h) where one exists and into the small
// structs below where none does.
//
// A request the real server would not execute (a null path, an unknown
// create flag or watch mode, a truncated body, an unknown opcode) decodes to
// an Answer instead: what the 3.8 server replies, measured on Debian's
// server (tests/wire/data/probes.hex) or read from its source where no
// capture shows it (docs/wire.md lists which is which).
#pragma once

#include "zksim/error.h"
#include "zksim/request.h"
#include "zksim/wire/jute.h"
#include "zksim/wire/opcode.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zksim::wire {

// Which fields arrived as jute null (length -1). The project's types hold
// plain strings, so the null is recorded here: the server keeps null data
// as null (getData returns it as null) and echoes a null sync path as null.
struct Nulls {
  bool path = false;
  bool data = false;
  bool acl = false;  // the ACL vector
  friend bool operator==(const Nulls&, const Nulls&) = default;
};

struct PingRequest {
  friend bool operator==(const PingRequest&, const PingRequest&) = default;
};
struct CloseSessionRequest {
  friend bool operator==(const CloseSessionRequest&, const CloseSessionRequest&) = default;
};
struct WhoAmIRequest {
  friend bool operator==(const WhoAmIRequest&, const WhoAmIRequest&) = default;
};
// AuthPacket. The server answers an unknown scheme with AuthFailed and
// closes the connection.
struct AuthRequest {
  std::int32_t type = 0;
  std::string scheme;
  std::string auth;
  friend bool operator==(const AuthRequest&, const AuthRequest&) = default;
};
// Does the session hold this watch? NoWatcher if not. The C client sends it
// to remove one watcher, the Java client for removeWatches with a watcher.
struct CheckWatchesRequest {
  std::string path;
  WatcherType type = WatcherType::Any;
  friend bool operator==(const CheckWatchesRequest&, const CheckWatchesRequest&) = default;
};
// multiRead: getData and getChildren ops, each answered on its own. The
// server ignores the ops' watch flags (Op.getData and Op.getChildren keep
// only the path); they are kept here to re-encode the bytes.
using ReadOp = std::variant<GetDataRequest, GetChildrenRequest>;
struct MultiReadRequest {
  std::vector<ReadOp> ops;
};

using Body = std::variant<Request, PingRequest, CloseSessionRequest, AuthRequest,
                          CheckWatchesRequest, WhoAmIRequest, MultiReadRequest>;

// One op of a multi or multiRead as it was sent.
struct OpInfo {
  OpCode code = OpCode::Check;
  Nulls nulls;
  // Set when the server fails this op whatever the tree holds (an unknown
  // create flag: BadArguments; a null setData or check path: BadArguments).
  // The op in the body then only keeps its place.
  std::optional<Error> error;
  // A create op's flags as sent, when they name no create mode.
  std::optional<std::int32_t> unknown_flags;
};

struct RequestFrame {
  std::int32_t xid = 0;
  OpCode code = OpCode::Ping;
  Body body;
  Nulls nulls;              // the request's own fields
  std::vector<OpInfo> ops;  // multi and multiRead: one per op, in order
};

enum class AnswerAction {
  Reply,           // send the reply; the connection goes on
  ReplyThenClose,  // send the reply, then close the connection
  Close,           // close the connection without a reply
};

// What the server does instead of executing a request.
struct Answer {
  std::int32_t xid = 0;       // 0 when the header itself was unreadable
  std::int32_t type = 0;      // the opcode number as sent
  AnswerAction action = AnswerAction::Reply;
  Error error = Error::Ok;    // the reply header's err
  // A write request: the server logs an error transaction for it, so the
  // reply carries a fresh zxid (PrepRequestProcessor sets the txn header
  // before it reads the body).
  bool error_txn = false;
  // The reply's zxid when the rule fixes it (-1 for an unknown opcode,
  // 0 for auth and sasl); otherwise the server's last zxid.
  std::optional<std::int64_t> zxid;
  Bytes body;                 // what follows the reply header, if anything
  const char* reason = "";    // for logs and test messages
};

using RequestDecode = std::variant<RequestFrame, Answer>;

// Decodes one request frame (`body`: the frame without its length prefix).
// Never reads past `body`; bytes after the record are ignored, as the
// server ignores them. Not for the connect request (connect.h).
RequestDecode decode_request(ByteView body, std::int32_t max_buffer = kDefaultMaxBuffer);

// The whole frame of a request, as a client sends it. The inverse of
// decode_request for the bytes real clients send; the non-canonical forms
// the server also accepts (a bool byte other than 0 or 1, a vector length
// below -1, trailing bytes) come out canonical.
Bytes encode_request(const RequestFrame& request);

// The reply frame for an answer with action Reply or ReplyThenClose.
// `last_zxid`: the server's last zxid, after the error transaction if the
// answer has one; ignored when answer.zxid is set.
Bytes encode_answer(const Answer& answer, std::int64_t last_zxid);

}  // namespace zksim::wire
