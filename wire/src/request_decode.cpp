// decode_request: the record of each opcode, and the server's answer where
// it would not execute the request. The rules name their source in 3.8
// (docs/wire.md has the list, and which ones the captures measured).
#include "records.h"
#include "zksim/wire/request.h"

#include <utility>

namespace zksim::wire {
namespace {

using detail::AclRead;
using detail::read_acl;
using detail::read_string;
using detail::read_strings;

// Requests that go through PrepRequestProcessor.pRequest2Txn, which sets the
// transaction header before it reads the body: whatever fails after that
// is logged as an error transaction with a zxid of its own.
bool is_write(std::int32_t type) {
  switch (static_cast<OpCode>(type)) {
    case OpCode::Create:
    case OpCode::Create2:
    case OpCode::CreateContainer:
    case OpCode::CreateTtl:
    case OpCode::Delete:
    case OpCode::DeleteContainer:
    case OpCode::SetData:
    case OpCode::SetAcl:
    case OpCode::Check:
    case OpCode::Multi:
    case OpCode::Reconfig:
      return true;
    default:
      return false;
  }
}

class Decoder {
 public:
  Decoder(ByteView body, std::int32_t max_buffer) : r_(body, max_buffer) {}

  RequestDecode run();

 private:
  Answer answer(Error error, const char* reason, AnswerAction action = AnswerAction::Reply) const {
    Answer a;
    a.xid = xid_;
    a.type = type_;
    a.action = action;
    a.error = error;
    a.error_txn = is_write(type_) && action != AnswerAction::Close;
    a.reason = reason;
    return a;
  }
  // A body that cannot be read: the request processors catch the
  // IOException and answer MarshallingError.
  Answer unreadable() const { return answer(Error::MarshallingError, "unreadable body"); }

  RequestFrame frame(Request request) {
    RequestFrame f;
    f.xid = xid_;
    f.code = static_cast<OpCode>(type_);
    f.body = std::move(request);
    f.nulls = nulls_;
    return f;
  }
  RequestFrame frame(Body body) {
    RequestFrame f;
    f.xid = xid_;
    f.code = static_cast<OpCode>(type_);
    f.body = std::move(body);
    f.nulls = nulls_;
    return f;
  }

  bool path(std::string& out) { return read_string(r_, out, nulls_.path); }
  RequestDecode create(std::int32_t code);
  RequestDecode acl_answer(const AclRead& acl);
  RequestDecode set_watches(bool persistent);
  RequestDecode multi(bool read);
  RequestDecode auth();

  Reader r_;
  std::int32_t xid_ = 0;
  std::int32_t type_ = 0;
  Nulls nulls_;
};

// The create flags a create request may carry: CreateMode.fromFlag throws
// BadArguments for any other number.
bool create_mode_from_flag(std::int32_t flags, CreateMode& out) {
  if (flags < 0 || flags > 6) return false;
  out = static_cast<CreateMode>(flags);
  return true;
}

// EphemeralType.validateTTL: a TTL mode needs 0 < ttl <= kMaxTtlMs, any
// other mode a negative ttl.
bool ttl_fits(CreateMode mode, std::int64_t ttl) {
  if (is_ttl(mode)) return ttl > 0 && ttl <= kMaxTtlMs;
  return ttl < 0;
}

// One create record (CreateRequest, or CreateTTLRequest for createTTL).
struct CreateRead {
  CreateRequest request;
  std::int32_t flags = 0;
  Nulls nulls;
  AclRead acl;
};

bool read_create(Reader& r, std::int32_t code, CreateRead& out) {
  std::optional<std::string> data;
  read_string(r, out.request.path, out.nulls.path);
  r.read_buffer(data);
  out.nulls.data = !data;
  out.request.data = data ? std::move(*data) : std::string();
  read_acl(r, out.acl);
  out.nulls.acl = out.acl.null_vector;
  out.request.acl = out.acl.acl;
  r.read_int(out.flags);
  if (code == static_cast<std::int32_t>(OpCode::CreateTtl)) r.read_long(out.request.ttl_ms);
  return !r.failed();
}

RequestDecode Decoder::acl_answer(const AclRead& acl) {
  // PrepRequestProcessor.fixupACL: an id without a scheme is an invalid
  // ACL; a null id throws a NullPointerException, a marshalling error.
  if (acl.null_scheme) return answer(Error::InvalidAcl, "null ACL scheme");
  return answer(Error::MarshallingError, "null ACL id");
}

// create, create2, createContainer, createTTL (pRequest2TxnCreate): the
// flag first, then the TTL, then the path.
RequestDecode Decoder::create(std::int32_t code) {
  CreateRead c;
  if (!read_create(r_, code, c)) return unreadable();
  nulls_ = c.nulls;
  CreateMode mode{};
  if (!create_mode_from_flag(c.flags, mode)) return answer(Error::BadArguments, "unknown create flag");
  const auto op = static_cast<OpCode>(code);
  const std::int64_t ttl = op == OpCode::CreateTtl ? c.request.ttl_ms : -1;
  if (!ttl_fits(mode, ttl)) return answer(Error::BadArguments, "ttl does not fit the create mode");
  // createTTL with a mode that is not TTL and a negative ttl passes
  // validateTTL, and then fails in EphemeralType.toEphemeralOwner while the
  // transaction is applied; not measured, refused here.
  if (op == OpCode::CreateTtl && !is_ttl(mode)) return answer(Error::BadArguments, "createTTL without a TTL mode");
  if (c.nulls.path) return answer(Error::MarshallingError, "null path");
  if (c.acl.null_scheme || c.acl.null_id) return acl_answer(c.acl);
  // The opcode decides the node: createContainer makes a container whatever
  // the (non-TTL) flag says, and create or create2 with the container flag
  // a persistent node (the transaction is a CreateTxn, which knows only
  // ephemeral or not).
  if (op == OpCode::CreateContainer) {
    mode = CreateMode::Container;
  } else if (mode == CreateMode::Container) {
    mode = CreateMode::Persistent;
  }
  c.request.mode = mode;
  if (!is_ttl(mode)) c.request.ttl_ms = -1;
  return frame(Request(std::move(c.request)));
}

// setWatches and setWatches2. A null list or a null path in one is a
// NullPointerException in DataTree.setWatches: a marshalling error.
RequestDecode Decoder::set_watches(bool persistent) {
  SetWatchesRequest s;
  bool null_vector = false;
  bool null_element = false;
  r_.read_long(s.relative_zxid);
  std::vector<std::string>* lists[] = {&s.data, &s.exist, &s.child, &s.persistent,
                                       &s.persistent_recursive};
  for (int i = 0; i < (persistent ? 5 : 3); ++i) {
    bool null_list = false;
    read_strings(r_, *lists[i], null_list, null_element);
    null_vector |= null_list;
  }
  if (r_.failed()) return unreadable();
  if (null_vector || null_element) return answer(Error::MarshallingError, "null watch list or path");
  return frame(Request(std::move(s)));
}

// multi (MultiOperationRecord.deserialize, then PrepRequestProcessor) and
// multiRead (the same record, then FinalRequestProcessor).
RequestDecode Decoder::multi(bool read) {
  MultiRequest writes;
  MultiReadRequest reads;
  std::vector<OpInfo> infos;
  bool any_read = false;
  bool any_write = false;
  // A failure that is not a KeeperException (a NullPointerException, a
  // ClassCastException) ends the whole request with a marshalling error.
  bool whole_fails = false;
  for (;;) {
    std::int32_t type = 0;
    std::int32_t err = 0;
    bool done = false;
    r_.read_int(type);
    r_.read_bool(done);
    if (!r_.read_int(err)) return unreadable();
    if (done) break;
    OpInfo info;
    info.code = static_cast<OpCode>(type);
    switch (static_cast<OpCode>(type)) {
      case OpCode::Create:
      case OpCode::Create2:
      case OpCode::CreateContainer:
      case OpCode::CreateTtl: {
        CreateRead c;
        if (!read_create(r_, type, c)) return unreadable();
        any_write = true;
        info.nulls = c.nulls;
        // Op.create picks the op's own type from the flag alone
        // (fromFlag(flags, PERSISTENT)); the op then goes through
        // pRequest2TxnCreate with the record as sent.
        CreateMode mode{};
        if (!create_mode_from_flag(c.flags, mode)) {
          info.error = Error::BadArguments;
          info.unknown_flags = c.flags;
        } else if (is_ttl(mode) && type != static_cast<std::int32_t>(OpCode::CreateTtl)) {
          whole_fails = true;  // a CreateRequest cast to CreateTTLRequest
        } else if (!ttl_fits(mode, is_ttl(mode) ? c.request.ttl_ms : -1)) {
          info.error = Error::BadArguments;
        } else if (c.nulls.path) {
          whole_fails = true;
        } else if (c.acl.null_scheme) {
          info.error = Error::InvalidAcl;
        } else if (c.acl.null_id) {
          whole_fails = true;
        }
        c.request.mode = mode;
        if (!is_ttl(mode)) c.request.ttl_ms = -1;
        writes.ops.emplace_back(std::move(c.request));
        break;
      }
      case OpCode::Delete: {
        DeleteRequest d;
        read_string(r_, d.path, info.nulls.path);
        if (!r_.read_int(d.version.value)) return unreadable();
        any_write = true;
        whole_fails |= info.nulls.path;  // getParentPathAndValidate(null)
        writes.ops.emplace_back(std::move(d));
        break;
      }
      case OpCode::SetData: {
        SetDataRequest s;
        std::optional<std::string> data;
        read_string(r_, s.path, info.nulls.path);
        r_.read_buffer(data);
        if (!r_.read_int(s.version.value)) return unreadable();
        any_write = true;
        info.nulls.data = !data;
        s.data = data ? std::move(*data) : std::string();
        if (info.nulls.path) info.error = Error::BadArguments;  // validatePath(null)
        writes.ops.emplace_back(std::move(s));
        break;
      }
      case OpCode::Check: {
        CheckRequest c;
        read_string(r_, c.path, info.nulls.path);
        if (!r_.read_int(c.version.value)) return unreadable();
        any_write = true;
        if (info.nulls.path) info.error = Error::BadArguments;
        writes.ops.emplace_back(std::move(c));
        break;
      }
      case OpCode::GetData: {
        GetDataRequest g;
        read_string(r_, g.path, info.nulls.path);
        if (!r_.read_bool(g.watch)) return unreadable();
        any_read = true;
        whole_fails |= info.nulls.path;  // DataTree.getNode(null)
        reads.ops.emplace_back(std::move(g));
        break;
      }
      case OpCode::GetChildren: {
        GetChildrenRequest g;
        read_string(r_, g.path, info.nulls.path);
        if (!r_.read_bool(g.watch)) return unreadable();
        any_read = true;
        whole_fails |= info.nulls.path;
        reads.ops.emplace_back(std::move(g));
        break;
      }
      default:
        return answer(Error::MarshallingError, "unknown op type in a multi");
    }
    infos.push_back(info);
  }
  // MultiOperationRecord refuses to mix reads and writes; a multi of reads
  // only, and a multiRead of writes only, are not executable either
  // (FinalRequestProcessor: "Invalid type of readOp").
  if (any_read && any_write) return answer(Error::MarshallingError, "reads and writes mixed");
  if (read ? any_write : any_read) return answer(Error::MarshallingError, "op kind does not fit the opcode");
  if (whole_fails) return answer(Error::MarshallingError, "multi op the server cannot prepare");
  RequestFrame f = read ? frame(Body(std::move(reads))) : frame(Request(std::move(writes)));
  f.ops = std::move(infos);
  return f;
}

// auth is read in ZooKeeperServer.processPacket: an unreadable packet is an
// IOException there, which closes the connection. Replies to auth carry
// zxid 0; a failure closes the connection after the reply.
RequestDecode Decoder::auth() {
  AuthRequest a;
  std::optional<std::string> scheme;
  std::optional<std::string> data;
  r_.read_int(a.type);
  r_.read_buffer(scheme);
  if (!r_.read_buffer(data)) return answer(Error::Ok, "unreadable auth packet", AnswerAction::Close);
  if (!scheme || !data) {
    // No provider for a null scheme; the digest provider throws on null
    // data, which processPacket turns into AuthFailed.
    Answer n = answer(Error::AuthFailed, "null auth scheme or data", AnswerAction::ReplyThenClose);
    n.zxid = 0;
    return n;
  }
  a.scheme = std::move(*scheme);
  a.auth = std::move(*data);
  return frame(Body(std::move(a)));
}

RequestDecode Decoder::run() {
  if (!r_.read_int(xid_) || !r_.read_int(type_)) {
    // RequestHeader unreadable: processPacket throws, the connection closes.
    return answer(Error::Ok, "unreadable request header", AnswerAction::Close);
  }
  switch (static_cast<OpCode>(type_)) {
    case OpCode::Create:
    case OpCode::Create2:
    case OpCode::CreateContainer:
    case OpCode::CreateTtl:
      return create(type_);
    case OpCode::Delete: {
      DeleteRequest d;
      path(d.path);
      if (!r_.read_int(d.version.value)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(d)));
    }
    case OpCode::Exists: {
      ExistsRequest e;
      path(e.path);
      if (!r_.read_bool(e.watch)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(e)));
    }
    case OpCode::GetData: {
      GetDataRequest g;
      path(g.path);
      if (!r_.read_bool(g.watch)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(g)));
    }
    case OpCode::SetData: {
      SetDataRequest s;
      std::optional<std::string> data;
      path(s.path);
      r_.read_buffer(data);
      if (!r_.read_int(s.version.value)) return unreadable();
      if (nulls_.path) return answer(Error::BadArguments, "null path");  // validatePath
      nulls_.data = !data;
      s.data = data ? std::move(*data) : std::string();
      return frame(Request(std::move(s)));
    }
    case OpCode::GetAcl: {
      GetAclRequest g;
      if (!path(g.path)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(g)));
    }
    case OpCode::SetAcl: {
      SetAclRequest s;
      AclRead acl;
      path(s.path);
      read_acl(r_, acl);
      if (!r_.read_int(s.version.value)) return unreadable();
      if (nulls_.path) return answer(Error::BadArguments, "null path");
      if (acl.null_scheme || acl.null_id) return acl_answer(acl);
      nulls_.acl = acl.null_vector;
      s.acl = std::move(acl.acl);
      return frame(Request(std::move(s)));
    }
    case OpCode::GetChildren:
    case OpCode::GetChildren2: {
      GetChildrenRequest g;
      path(g.path);
      if (!r_.read_bool(g.watch)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(g)));
    }
    case OpCode::Sync: {
      // A null path is echoed back as null, with no error.
      SyncRequest s;
      if (!path(s.path)) return unreadable();
      return frame(Request(std::move(s)));
    }
    case OpCode::Ping:
      return frame(Body(PingRequest{}));
    case OpCode::Check: {
      CheckRequest c;
      path(c.path);
      if (!r_.read_int(c.version.value)) return unreadable();
      if (nulls_.path) return answer(Error::BadArguments, "null path");
      return frame(Request(std::move(c)));
    }
    case OpCode::Multi:
      return multi(false);
    case OpCode::MultiRead:
      return multi(true);
    case OpCode::Reconfig:
      // Standalone, reconfigEnabled=false: refused before anything else.
      return answer(Error::ReconfigDisabled, "reconfig is disabled");
    case OpCode::CheckWatches:
    case OpCode::RemoveWatches: {
      std::string p;
      std::int32_t type = 0;
      path(p);
      if (!r_.read_int(type)) return unreadable();
      // WatcherType.fromInt throws a RuntimeException: marshalling error.
      if (type < 1 || type > 3) return answer(Error::MarshallingError, "unknown watcher type");
      // The watch tables are hash maps: a null path holds no watch.
      if (nulls_.path) return answer(Error::NoWatcher, "null path");
      const auto wt = static_cast<WatcherType>(type);
      if (static_cast<OpCode>(type_) == OpCode::CheckWatches) {
        return frame(Body(CheckWatchesRequest{std::move(p), wt}));
      }
      return frame(Request(RemoveWatchesRequest{std::move(p), wt}));
    }
    case OpCode::DeleteContainer:
      // Meant for the server's own ContainerManager: the path is read from
      // the whole packet, header included, so it is never a valid path.
      return answer(Error::BadArguments, "deleteContainer from a client");
    case OpCode::Auth:
      return auth();
    case OpCode::SetWatches:
      return set_watches(false);
    case OpCode::SetWatches2:
      return set_watches(true);
    case OpCode::Sasl: {
      // No SASL configured: an empty success with a null token, zxid 0.
      Answer a = answer(Error::Ok, "sasl without a SASL server");
      a.zxid = 0;
      Writer(a.body).write_null();
      return a;
    }
    case OpCode::GetEphemerals: {
      // A null prefix lists every ephemeral of the session, as "/" does.
      GetEphemeralsRequest g;
      if (!path(g.prefix)) return unreadable();
      if (nulls_.path) g.prefix.assign(1, '/');
      return frame(Request(std::move(g)));
    }
    case OpCode::GetAllChildrenNumber: {
      GetAllChildrenNumberRequest g;
      if (!path(g.path)) return unreadable();
      if (nulls_.path) return answer(Error::MarshallingError, "null path");
      return frame(Request(std::move(g)));
    }
    case OpCode::AddWatch: {
      AddWatchRequest a;
      std::int32_t mode = 0;
      path(a.path);
      if (!r_.read_int(mode)) return unreadable();
      // WatcherMode.fromZooDef throws IllegalArgumentException.
      if (mode != 0 && mode != 1) return answer(Error::MarshallingError, "unknown addWatch mode");
      if (nulls_.path) {
        // The watch goes on a null path, where nothing fires; the reply is
        // the usual success (ErrorResponse 0).
        Answer ok = answer(Error::Ok, "addWatch on a null path");
        Writer(ok.body).write_int(0);
        return ok;
      }
      a.mode = static_cast<AddWatchMode>(mode);
      return frame(Request(std::move(a)));
    }
    case OpCode::WhoAmI:
      return frame(Body(WhoAmIRequest{}));
    case OpCode::CloseSession:
      return frame(Body(CloseSessionRequest{}));
    case OpCode::CreateSession:
    case OpCode::Notification:
    case OpCode::Error:
      break;
  }
  // Not a request type (Request.isValid): UnimplementedRequestProcessor
  // replies with the request's zxid, still -1, and closes the connection.
  // createSession passes isValid but is the server's own; treated alike.
  Answer a = answer(Error::Unimplemented, "not a request type", AnswerAction::ReplyThenClose);
  a.error_txn = false;
  a.zxid = -1;
  return a;
}

}  // namespace

RequestDecode decode_request(ByteView body, std::int32_t max_buffer) {
  return Decoder(body, max_buffer).run();
}

Bytes encode_answer(const Answer& answer, std::int64_t last_zxid) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(answer.xid);
  w.write_long(answer.zxid ? *answer.zxid : last_zxid);
  w.write_int(static_cast<std::int32_t>(answer.error));
  out.insert(out.end(), answer.body.begin(), answer.body.end());
  w.end_frame(mark);
  return out;
}

}  // namespace zksim::wire
