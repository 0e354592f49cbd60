// Replies and watch notifications (zookeeper.jute ReplyHeader, the
// *Response records, MultiResponse, WatcherEvent). A reply carries no type:
// its layout follows the request's opcode, so a reply is encoded from, and
// decoded with, the request it answers.
#pragma once

#include "zksim/error.h"
#include "zksim/request.h"
#include "zksim/types.h"
#include "zksim/wire/decoded.h"
#include "zksim/wire/jute.h"
#include "zksim/wire/opcode.h"
#include "zksim/wire/request.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zksim::wire {

struct ReplyHeader {
  std::int32_t xid = 0;
  std::int64_t zxid = 0;
  std::int32_t err = 0;  // an Error number
  friend bool operator==(const ReplyHeader&, const ReplyHeader&) = default;
};

// whoAmI: the session's authenticated ids (ClientInfo in zookeeper.jute).
struct ClientInfo {
  std::string scheme;
  std::string user;
  friend bool operator==(const ClientInfo&, const ClientInfo&) = default;
};
struct WhoAmIResponse {
  std::vector<ClientInfo> infos;
};

// One result of a multiRead: the data or children, or the op's error.
struct ReadResult {
  Error error = Error::Ok;
  std::variant<std::monostate, DataResponse, ChildrenResponse> value;
  bool null_data = false;  // a getData of a node whose data is null
};
struct MultiReadResponse {
  std::vector<ReadResult> results;
};

using ReplyBody = std::variant<Response, WhoAmIResponse, MultiReadResponse>;

struct ReplyFrame {
  ReplyHeader header;
  OpCode code = OpCode::Ping;  // the request's opcode
  // Which alternative fits `code`: create: CreateResponse (path only on the
  // wire); create2, createTTL, createContainer: CreateResponse; exists,
  // setData, setACL: StatResponse; getData: DataResponse; getChildren,
  // getChildren2: ChildrenResponse (getChildren sends no Stat); getACL:
  // AclResponse; sync: SyncResponse; getEphemerals: PathsResponse;
  // getAllChildrenNumber: CountResponse; multi: MultiResponse; multiRead:
  // MultiReadResponse; whoAmI: WhoAmIResponse; everything else, and every
  // reply whose err is not 0: Response{} (monostate), no body.
  ReplyBody body;
  Nulls nulls;  // data: getData's data is null; path: sync's path is null
  // multi and multiRead: the wire type of each result (MultiHeader.type):
  // create 1 (path only), create2 15 (path and Stat), delete 2, setData 5,
  // check 13, getData 4, getChildren 8, error -1.
  std::vector<std::int32_t> result_types;
};

// The reply to `request`: its xid and opcode, and for a multi each
// result's type as the 3.8 server chooses it (FinalRequestProcessor): when
// any op failed every result is an error result (the ops before the failure
// with err 0); a create in a multi reports path and Stat only for a
// container or TTL node. Fills nulls.data/nulls.path from the request where
// the server echoes them (sync).
ReplyFrame make_reply(const RequestFrame& request, std::int64_t zxid, Error err,
                      ReplyBody body = Response{});

// The whole reply frame; nullopt when the body does not fit the opcode.
std::optional<Bytes> encode_reply(const ReplyFrame& reply);

// Decodes a reply frame (without its length prefix) to a request of
// opcode `code`. A reply with err != 0 has no body; a multi's results keep
// their types in result_types.
Decoded<ReplyFrame> decode_reply(ByteView body, OpCode code);

// Decodes only the header, to learn the xid (and so the request) a reply
// answers.
Decoded<ReplyHeader> decode_reply_header(ByteView body);

// A watch notification: ReplyHeader(xid -1, zxid -1, err 0) then a
// WatcherEvent (type, state, path). The 3.8 server always sends zxid -1.
Bytes encode_notification(const WatchedEvent& event);
Decoded<WatchedEvent> decode_notification(ByteView body);

}  // namespace zksim::wire
