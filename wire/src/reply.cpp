// Replies (FinalRequestProcessor's records, MultiResponse.serialize) and
// watch notifications (NIOServerCnxn.process).
#include "records.h"
#include "zksim/wire/reply.h"

#include <type_traits>

namespace zksim::wire {
namespace {

using detail::read_acl;
using detail::read_stat;
using detail::read_string;
using detail::read_strings;
using detail::write_acl;
using detail::write_stat;
using detail::write_strings;

constexpr std::int32_t kErrorResult = -1;
constexpr std::int32_t code_of(OpCode c) { return static_cast<std::int32_t>(c); }

// The wire types of a multi's results (FinalRequestProcessor, case multi):
// a create reports path and Stat (create2) for a container or TTL node,
// whose op type is createContainer or createTTL, and the path alone for
// the others.
std::int32_t result_type(const MultiOp& op) {
  switch (op.index()) {
    case 0: {
      const CreateMode m = std::get<CreateRequest>(op).mode;
      return m == CreateMode::Container || is_ttl(m) ? code_of(OpCode::Create2) : code_of(OpCode::Create);
    }
    case 1: return code_of(OpCode::Delete);
    case 2: return code_of(OpCode::SetData);
    default: return code_of(OpCode::Check);
  }
}

template <class T>
const T* as(const ReplyBody& body) {
  if constexpr (std::is_same_v<T, WhoAmIResponse> || std::is_same_v<T, MultiReadResponse>) {
    return std::get_if<T>(&body);
  } else {
    const Response* r = std::get_if<Response>(&body);
    return r ? std::get_if<T>(r) : nullptr;
  }
}

void write_string(Writer& w, const std::string& s, bool null) {
  if (null) {
    w.write_null();
  } else {
    w.write_buffer(std::string_view(s));
  }
}

bool write_multi(Writer& w, const ReplyFrame& reply, const MultiResponse& m) {
  if (reply.result_types.size() != m.results.size()) return false;
  for (std::size_t i = 0; i < m.results.size(); ++i) {
    const OpResult& r = m.results[i];
    const std::int32_t type = reply.result_types[i];
    w.write_int(type);
    w.write_bool(false);
    w.write_int(type == kErrorResult ? static_cast<std::int32_t>(r.error) : 0);
    const auto* create = std::get_if<CreateResponse>(&r.value);
    const auto* stat = std::get_if<StatResponse>(&r.value);
    switch (type) {
      case kErrorResult:
        w.write_int(static_cast<std::int32_t>(r.error));
        break;
      case code_of(OpCode::Create):
      case code_of(OpCode::Create2):
        if (!create) return false;
        w.write_buffer(std::string_view(create->path));
        if (type == code_of(OpCode::Create2)) write_stat(w, create->stat);
        break;
      case code_of(OpCode::SetData):
        if (!stat) return false;
        write_stat(w, stat->stat);
        break;
      case code_of(OpCode::Delete):
      case code_of(OpCode::Check):
        break;
      default:
        return false;
    }
  }
  w.write_int(-1);
  w.write_bool(true);
  w.write_int(-1);
  return true;
}

bool write_multi_read(Writer& w, const ReplyFrame& reply, const MultiReadResponse& m) {
  if (reply.result_types.size() != m.results.size()) return false;
  for (std::size_t i = 0; i < m.results.size(); ++i) {
    const ReadResult& r = m.results[i];
    const std::int32_t type = reply.result_types[i];
    w.write_int(type);
    w.write_bool(false);
    w.write_int(type == kErrorResult ? static_cast<std::int32_t>(r.error) : 0);
    if (type == kErrorResult) {
      w.write_int(static_cast<std::int32_t>(r.error));
    } else if (const auto* d = std::get_if<DataResponse>(&r.value); d && type == code_of(OpCode::GetData)) {
      write_string(w, d->data, r.null_data);
      write_stat(w, d->stat);
    } else if (const auto* c = std::get_if<ChildrenResponse>(&r.value);
               c && type == code_of(OpCode::GetChildren)) {
      write_strings(w, c->children);
    } else {
      return false;
    }
  }
  w.write_int(-1);
  w.write_bool(true);
  w.write_int(-1);
  return true;
}

// The body that follows a successful reply's header, by opcode.
bool write_body(Writer& w, const ReplyFrame& reply) {
  const ReplyBody& b = reply.body;
  switch (reply.code) {
    case OpCode::Create:
    case OpCode::Create2:
    case OpCode::CreateContainer:
    case OpCode::CreateTtl: {
      const auto* c = as<CreateResponse>(b);
      if (!c) return false;
      w.write_buffer(std::string_view(c->path));
      if (reply.code != OpCode::Create) write_stat(w, c->stat);
      return true;
    }
    case OpCode::Exists:
    case OpCode::SetData:
    case OpCode::SetAcl: {
      const auto* s = as<StatResponse>(b);
      if (!s) return false;
      write_stat(w, s->stat);
      return true;
    }
    case OpCode::GetData: {
      const auto* d = as<DataResponse>(b);
      if (!d) return false;
      write_string(w, d->data, reply.nulls.data);
      write_stat(w, d->stat);
      return true;
    }
    case OpCode::GetChildren:
    case OpCode::GetChildren2: {
      const auto* c = as<ChildrenResponse>(b);
      if (!c) return false;
      write_strings(w, c->children);
      if (reply.code == OpCode::GetChildren2) write_stat(w, c->stat);
      return true;
    }
    case OpCode::GetAcl: {
      const auto* a = as<AclResponse>(b);
      if (!a) return false;
      write_acl(w, a->acl);
      write_stat(w, a->stat);
      return true;
    }
    case OpCode::Sync: {
      const auto* s = as<SyncResponse>(b);
      if (!s) return false;
      write_string(w, s->path, reply.nulls.path);
      return true;
    }
    case OpCode::GetEphemerals: {
      const auto* p = as<PathsResponse>(b);
      if (!p) return false;
      write_strings(w, p->paths);
      return true;
    }
    case OpCode::GetAllChildrenNumber: {
      const auto* c = as<CountResponse>(b);
      if (!c) return false;
      w.write_int(c->count);
      return true;
    }
    case OpCode::AddWatch:
      w.write_int(0);  // ErrorResponse(0)
      return true;
    case OpCode::Multi: {
      const auto* m = as<MultiResponse>(b);
      return m && write_multi(w, reply, *m);
    }
    case OpCode::MultiRead: {
      const auto* m = as<MultiReadResponse>(b);
      return m && write_multi_read(w, reply, *m);
    }
    case OpCode::WhoAmI: {
      const auto* who = as<WhoAmIResponse>(b);
      if (!who) return false;
      w.write_int(static_cast<std::int32_t>(who->infos.size()));
      for (const ClientInfo& c : who->infos) {
        w.write_buffer(std::string_view(c.scheme));
        w.write_buffer(std::string_view(c.user));
      }
      return true;
    }
    default: {
      const Response* r = std::get_if<Response>(&b);
      return r && std::holds_alternative<std::monostate>(*r);
    }
  }
}

bool read_header(Reader& r, ReplyHeader& h) {
  r.read_int(h.xid);
  r.read_long(h.zxid);
  return r.read_int(h.err);
}

Error error_of(std::int32_t number) {
  Error e = Error::SystemError;
  error_from_number(number, e);
  return e;
}

Decoded<MultiResponse> read_multi(Reader& r, std::vector<std::int32_t>& types) {
  MultiResponse m;
  for (;;) {
    std::int32_t type = 0;
    bool done = false;
    std::int32_t err = 0;
    r.read_int(type);
    r.read_bool(done);
    if (!r.read_int(err)) return r.failure();
    if (done) return m;
    OpResult res;
    bool null_path = false;
    switch (type) {
      case kErrorResult: {
        std::int32_t e = 0;
        if (!r.read_int(e)) return r.failure();
        res.error = error_of(e);
        break;
      }
      case code_of(OpCode::Create):
      case code_of(OpCode::Create2): {
        CreateResponse c;
        read_string(r, c.path, null_path);
        if (type == code_of(OpCode::Create2)) read_stat(r, c.stat);
        res.value = std::move(c);
        break;
      }
      case code_of(OpCode::SetData): {
        StatResponse s;
        read_stat(r, s.stat);
        res.value = s;
        break;
      }
      case code_of(OpCode::Delete):
      case code_of(OpCode::Check):
        break;
      default:
        return DecodeError::BadValue;
    }
    if (r.failed()) return r.failure();
    types.push_back(type);
    m.results.push_back(std::move(res));
  }
}

Decoded<MultiReadResponse> read_multi_read(Reader& r, std::vector<std::int32_t>& types) {
  MultiReadResponse m;
  for (;;) {
    std::int32_t type = 0;
    bool done = false;
    std::int32_t err = 0;
    r.read_int(type);
    r.read_bool(done);
    if (!r.read_int(err)) return r.failure();
    if (done) return m;
    ReadResult res;
    switch (type) {
      case kErrorResult: {
        std::int32_t e = 0;
        if (!r.read_int(e)) return r.failure();
        res.error = error_of(e);
        break;
      }
      case code_of(OpCode::GetData): {
        DataResponse d;
        read_string(r, d.data, res.null_data);
        read_stat(r, d.stat);
        res.value = std::move(d);
        break;
      }
      case code_of(OpCode::GetChildren): {
        ChildrenResponse c;
        bool null_vector = false;
        bool null_element = false;
        read_strings(r, c.children, null_vector, null_element);
        res.value = std::move(c);
        break;
      }
      default:
        return DecodeError::BadValue;
    }
    if (r.failed()) return r.failure();
    types.push_back(type);
    m.results.push_back(std::move(res));
  }
}

}  // namespace

ReplyFrame make_reply(const RequestFrame& request, std::int64_t zxid, Error err, ReplyBody body) {
  ReplyFrame reply;
  reply.header = ReplyHeader{request.xid, zxid, static_cast<std::int32_t>(err)};
  reply.code = request.code;
  reply.body = std::move(body);
  if (request.code == OpCode::Sync) reply.nulls.path = request.nulls.path;
  const auto* multi = as<MultiResponse>(reply.body);
  const auto* ops = std::get_if<Request>(&request.body);
  const auto* writes = ops ? std::get_if<MultiRequest>(ops) : nullptr;
  if (multi && writes) {
    bool failed = false;
    for (const OpResult& r : multi->results) failed |= r.error != Error::Ok;
    for (std::size_t i = 0; i < multi->results.size(); ++i) {
      reply.result_types.push_back(failed || i >= writes->ops.size() ? kErrorResult : result_type(writes->ops[i]));
    }
  }
  if (const auto* reads = as<MultiReadResponse>(reply.body)) {
    for (const ReadResult& r : reads->results) {
      if (r.error != Error::Ok) {
        reply.result_types.push_back(kErrorResult);
      } else {
        const bool data = std::holds_alternative<DataResponse>(r.value);
        reply.result_types.push_back(code_of(data ? OpCode::GetData : OpCode::GetChildren));
      }
    }
  }
  return reply;
}

std::optional<Bytes> encode_reply(const ReplyFrame& reply) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(reply.header.xid);
  w.write_long(reply.header.zxid);
  w.write_int(reply.header.err);
  if (reply.header.err == 0 && !write_body(w, reply)) return std::nullopt;
  w.end_frame(mark);
  return out;
}

Decoded<ReplyHeader> decode_reply_header(ByteView body) {
  Reader r(body);
  ReplyHeader h;
  if (!read_header(r, h)) return r.failure();
  return h;
}

Decoded<ReplyFrame> decode_reply(ByteView body, OpCode code) {
  Reader r(body);
  ReplyFrame reply;
  reply.code = code;
  if (!read_header(r, reply.header)) return r.failure();
  if (reply.header.err != 0) return reply;
  auto response = [&](auto value) { reply.body = Response(std::move(value)); };
  switch (code) {
    case OpCode::Create:
    case OpCode::Create2:
    case OpCode::CreateContainer:
    case OpCode::CreateTtl: {
      CreateResponse c;
      read_string(r, c.path, reply.nulls.path);
      if (code != OpCode::Create) read_stat(r, c.stat);
      response(std::move(c));
      break;
    }
    case OpCode::Exists:
    case OpCode::SetData:
    case OpCode::SetAcl: {
      StatResponse s;
      read_stat(r, s.stat);
      response(s);
      break;
    }
    case OpCode::GetData: {
      DataResponse d;
      read_string(r, d.data, reply.nulls.data);
      read_stat(r, d.stat);
      response(std::move(d));
      break;
    }
    case OpCode::GetChildren:
    case OpCode::GetChildren2: {
      ChildrenResponse c;
      bool null_vector = false;
      bool null_element = false;
      read_strings(r, c.children, null_vector, null_element);
      if (code == OpCode::GetChildren2) read_stat(r, c.stat);
      response(std::move(c));
      break;
    }
    case OpCode::GetAcl: {
      detail::AclRead acl;
      AclResponse a;
      read_acl(r, acl);
      read_stat(r, a.stat);
      a.acl = std::move(acl.acl);
      response(std::move(a));
      break;
    }
    case OpCode::Sync: {
      SyncResponse s;
      read_string(r, s.path, reply.nulls.path);
      response(std::move(s));
      break;
    }
    case OpCode::GetEphemerals: {
      PathsResponse p;
      bool null_vector = false;
      bool null_element = false;
      read_strings(r, p.paths, null_vector, null_element);
      response(std::move(p));
      break;
    }
    case OpCode::GetAllChildrenNumber: {
      CountResponse c;
      r.read_int(c.count);
      response(c);
      break;
    }
    case OpCode::AddWatch: {
      std::int32_t zero = 0;
      r.read_int(zero);
      break;
    }
    case OpCode::Multi: {
      auto m = read_multi(r, reply.result_types);
      if (!m) return m.error();
      response(std::move(m).value());
      break;
    }
    case OpCode::MultiRead: {
      auto m = read_multi_read(r, reply.result_types);
      if (!m) return m.error();
      reply.body = std::move(m).value();
      break;
    }
    case OpCode::WhoAmI: {
      WhoAmIResponse who;
      std::optional<std::int32_t> n;
      r.read_vector_length(n);
      for (std::int32_t i = 0; n && i < *n && !r.failed(); ++i) {
        ClientInfo c;
        bool null_field = false;
        read_string(r, c.scheme, null_field);
        read_string(r, c.user, null_field);
        who.infos.push_back(std::move(c));
      }
      reply.body = std::move(who);
      break;
    }
    default:
      break;
  }
  if (r.failed()) return r.failure();
  return reply;
}

// The server sends node events only, in state SyncConnected (3); the other
// states are the client's own. Java's KeeperState numbers differ from the
// C client's for AuthFailed (4 on the wire).
Bytes encode_notification(const WatchedEvent& event) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(kNotificationXid);
  w.write_long(-1);
  w.write_int(0);
  w.write_int(static_cast<std::int32_t>(event.type));
  w.write_int(event.state == KeeperState::AuthFailed ? 4 : static_cast<std::int32_t>(event.state));
  w.write_buffer(std::string_view(event.path));
  w.end_frame(mark);
  return out;
}

Decoded<WatchedEvent> decode_notification(ByteView body) {
  Reader r(body);
  ReplyHeader h;
  std::int32_t type = 0;
  std::int32_t state = 0;
  WatchedEvent e;
  bool null_path = false;
  read_header(r, h);
  r.read_int(type);
  r.read_int(state);
  if (!read_string(r, e.path, null_path)) return r.failure();
  if (h.xid != kNotificationXid) return DecodeError::BadValue;
  switch (type) {
    case -1: case 1: case 2: case 3: case 4: e.type = static_cast<EventType>(type); break;
    default: return DecodeError::BadValue;
  }
  switch (state) {
    case 0: case 3: case -112: e.state = static_cast<KeeperState>(state); break;
    case 4: e.state = KeeperState::AuthFailed; break;
    default: return DecodeError::BadValue;
  }
  return e;
}

}  // namespace zksim::wire
