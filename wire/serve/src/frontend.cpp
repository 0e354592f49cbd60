#include "zksim/wire/frontend.h"

#include "frontend_impl.h"
#include "zksim/wire/connect.h"
#include "zksim/wire/frame.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace zksim::wire {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Bytes header_only(std::int32_t xid, std::int64_t zxid, Error err) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(xid);
  w.write_long(zxid);
  w.write_int(static_cast<std::int32_t>(err));
  w.end_frame(mark);
  return out;
}

// Does the session hold a watch of this kind on this path (checkWatches)?
// Persistent watches count for both kinds, as they sit in both of the
// server's watch tables.
bool holds_watch(const std::vector<std::string>& lines, const std::string& path, WatcherType type) {
  auto has = [&](const char* kind) {
    return std::find(lines.begin(), lines.end(), std::string(kind) + " " + path) != lines.end();
  };
  const bool persistent = has("persistent") || has("recursive");
  const bool data = has("data") || persistent;
  const bool child = has("child") || persistent;
  switch (type) {
    case WatcherType::Data: return data;
    case WatcherType::Children: return child;
    case WatcherType::Any: return data || child;
  }
  return false;
}

// A multi whose ops the decoder marked failed (OpInfo::error): each such op
// is swapped for one the server fails with that error at that place, so the
// ops before it still decide first, as in PrepRequestProcessor's loop. A
// check of an empty path is BadArguments (validatePath); a create with no
// ACL is InvalidAcl (fixupACL), before anything the tree holds.
Request with_failing_ops(const Request& request, const std::vector<OpInfo>& ops) {
  const auto* multi = std::get_if<MultiRequest>(&request);
  if (!multi) return request;
  MultiRequest m = *multi;
  for (std::size_t i = 0; i < ops.size() && i < m.ops.size(); ++i) {
    if (ops[i].error == Error::BadArguments) {
      m.ops[i] = CheckRequest{"", kAnyVersion};
    } else if (ops[i].error == Error::InvalidAcl) {
      m.ops[i] = CreateRequest{.path = "/", .acl = {}};
    }
  }
  return m;
}

}  // namespace

std::string session_password(SessionId session) {
  std::uint64_t state = static_cast<std::uint64_t>(session.value);
  std::string out;
  for (int word = 0; word < 2; ++word) {
    const std::uint64_t v = splitmix64(state);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out;
}

const char* last_op_name(OpCode code) {
  switch (code) {
    case OpCode::Ping: return "PING";
    case OpCode::CreateSession: return "SESS";
    case OpCode::Multi: return "MULT";
    case OpCode::MultiRead: return "MLTR";
    case OpCode::Create:
    case OpCode::Create2:
    case OpCode::CreateContainer:
    case OpCode::CreateTtl: return "CREA";
    case OpCode::Delete:
    case OpCode::DeleteContainer: return "DELE";
    case OpCode::SetData: return "SETD";
    case OpCode::Reconfig: return "RECO";
    case OpCode::SetAcl: return "SETA";
    case OpCode::CloseSession: return "CLOS";
    case OpCode::Sync: return "SYNC";
    case OpCode::Check: return "CHEC";
    case OpCode::Exists: return "EXIS";
    case OpCode::GetData: return "GETD";
    case OpCode::SetWatches: return "SETW";
    case OpCode::SetWatches2: return "STW2";
    case OpCode::AddWatch: return "ADDW";
    case OpCode::GetAcl: return "GETA";
    case OpCode::GetChildren:
    case OpCode::GetChildren2: return "GETC";
    case OpCode::GetAllChildrenNumber: return "GETACN";
    case OpCode::CheckWatches: return "CHKW";
    case OpCode::RemoveWatches: return "REMW";
    case OpCode::WhoAmI: return "HOMI";
    case OpCode::GetEphemerals: return "GETE";
    default: return "NA";
  }
}

void Frontend::Impl::send(ConnectionId id, Bytes bytes, std::vector<Delivery>& out, bool response) {
  ++counters.sent;
  if (auto it = connections.find(id); it != connections.end()) ++it->second.stats.sent;
  if (response) {
    const auto size = static_cast<std::int64_t>(bytes.size()) - 4;
    counters.last_response_size = size;
    if (counters.min_response_size < 0 || size < counters.min_response_size) counters.min_response_size = size;
    counters.max_response_size = std::max(counters.max_response_size, size);
  }
  out.push_back(Delivery{id, std::move(bytes), false});
}

void Frontend::Impl::close(ConnectionId id, std::vector<Delivery>& out, Bytes last) {
  Connection& c = connections.at(id);
  if (!last.empty()) {
    ++counters.sent;
    ++c.stats.sent;
  }
  out.push_back(Delivery{id, std::move(last), true});
  detach(id, c);
}

void Frontend::Impl::detach(ConnectionId id, Connection& c) {
  c.closed = true;
  c.inbox.clear();
  auto it = connection_of.find(c.session);
  if (it != connection_of.end() && it->second == id) {
    connection_of.erase(it);
    if (server.session_alive(c.session)) server.connection_closed(c.session);
  }
}

void Frontend::Impl::notify(const Outcome& o, std::vector<Delivery>& out) {
  for (const Notification& n : o.notifications) {
    auto it = connection_of.find(n.session);
    if (it == connection_of.end()) continue;
    record(TraceKind::Watch, n.session, o.zxid.value, static_cast<std::int32_t>(n.event.type), 0, 0, n.event.path);
    send(it->second, encode_notification(n.event), out);
  }
}

void Frontend::Impl::record(TraceKind kind, SessionId session, std::int64_t zxid, std::int32_t code,
                            std::int32_t code2, std::int32_t xid, std::string_view path, std::string_view detail) {
  if (options.trace_limit == 0) return;
  if (trace.size() == options.trace_limit) {
    trace.pop_front();
    ++trace_dropped;
  }
  trace.push_back(TraceEvent{.time = now - options.origin,
                             .kind = kind,
                             .client = lane(session),
                             .session = session,
                             .zxid = zxid,
                             .code = code,
                             .code2 = code2,
                             .xid = static_cast<std::uint32_t>(xid),
                             .path = std::string(path),
                             .detail = std::string(detail)});
}

void Frontend::Impl::answered(Connection& c, OpCode code, std::int32_t xid, TimeMs now) {
  if (xid >= 0) c.stats.last_cxid = xid;  // not the special xids
  c.stats.last_op = last_op_name(code);
  c.stats.last_zxid = server.last_zxid().value;
  c.stats.last_response = now;
}

void Frontend::Impl::expire(TimeMs now, std::vector<Delivery>& out) {
  if (const auto due = server.next_expiry(); due && *due <= now) {
    // expire_due does not say whose sessions went: those due, no longer alive.
    std::vector<SessionId> due_now;
    for (SessionId s : server.sessions()) {
      if (const auto d = server.deadline(s); d && *d <= now) due_now.push_back(s);
    }
    for (const Outcome& o : server.expire_due(now)) notify(o, out);
    for (SessionId s : due_now) {
      if (!server.session_alive(s)) record(TraceKind::Server, s, server.last_zxid().value,
                                           static_cast<std::int32_t>(ServerAction::SessionExpired));
    }
    close_dead(out);
  }
  // NIOServerCnxnFactory's connection expiry: a connection without a
  // session that has sent nothing for sessionlessCnxnTimeout.
  if (now >= next_sessionless) {
    next_sessionless = kNever;
    std::vector<ConnectionId> silent;
    for (const auto& [id, c] : connections) {
      if (c.closed || c.connected) continue;
      const TimeMs due = c.last_heard + options.sessionless_timeout_ms;
      if (due <= now) {
        silent.push_back(id);
      } else {
        next_sessionless = std::min(next_sessionless, due);
      }
    }
    for (ConnectionId id : silent) close(id, out);
  }
  if (now >= next_reap) {
    for (const Outcome& o : server.reap(now)) {
      record(TraceKind::Server, SessionId{}, o.zxid.value, static_cast<std::int32_t>(ServerAction::Reaped),
             static_cast<std::int32_t>(o.error));
      notify(o, out);
    }
    next_reap = now + options.reap_interval_ms;
  }
}

void Frontend::Impl::close_dead(std::vector<Delivery>& out) {
  std::vector<ConnectionId> dead;
  for (const auto& [session, id] : connection_of) {
    if (!server.session_alive(session)) dead.push_back(id);
  }
  for (ConnectionId id : dead) close(id, out);
  std::erase_if(drops, [&](const auto& d) { return !server.session_alive(d.first); });
  std::erase_if(had_ephemerals, [&](SessionId s) { return !server.session_alive(s); });
}

// ZooKeeperServer.processConnectRequest: a client that has seen a later
// zxid than ours is refused; session 0 opens a session; another session id
// reattaches if it is alive and the password fits, its previous connection
// closed; otherwise the answer is session 0, timeout 0 and the connection
// closes (finishSessionInit with valid = false).
void Frontend::Impl::handshake(ConnectionId id, Connection& c, ByteView body, TimeMs now,
                               std::vector<Delivery>& out) {
  const auto req = decode_connect_request(body);
  if (!req || req->last_zxid_seen > server.last_zxid().value) {
    close(id, out);
    return;
  }
  ConnectResponse rsp;
  if (req->read_only) rsp.read_only = false;
  if (req->session_id == 0) {
    const SessionGrant g = server.open_session(req->timeout_ms, now, c.ip);
    rsp.timeout_ms = g.timeout_ms;
    rsp.session_id = g.id.value;
    rsp.password = session_password(g.id);
    c.session = g.id;
    answered(c, OpCode::CreateSession, 0, now);  // FinalRequestProcessor's createSession: "SESS", cxid 0
    lane_of.emplace(g.id, static_cast<int>(lane_of.size()));
    record(TraceKind::Server, g.id, g.zxid.value, static_cast<std::int32_t>(ServerAction::SessionOpened), 0, 0, {},
           c.address());
  } else {
    const SessionId s{req->session_id};
    if (!server.session_alive(s) || req->password != session_password(s)) {
      rsp.password = std::string(16, '\0');
      close(id, out, encode_connect_response(rsp));
      return;
    }
    if (auto old = connection_of.find(s); old != connection_of.end()) close(old->second, out);
    server.touch(s, now);
    record(TraceKind::Annotation, s, server.last_zxid().value, 0, 0, 0, {}, "reconnected from " + c.address());
    rsp.timeout_ms = server.session_timeout_ms(s);
    rsp.session_id = s.value;
    rsp.password = session_password(s);
    c.session = s;
  }
  c.connected = true;
  connection_of[c.session] = id;
  send(id, encode_connect_response(rsp), out, /*response=*/false);
}

void Frontend::Impl::request(ConnectionId id, Connection& c, ByteView body, TimeMs now,
                             std::vector<Delivery>& out) {
  RequestDecode d = decode_request(body, static_cast<std::int32_t>(server.config().max_request_bytes));
  if (const Answer* a = std::get_if<Answer>(&d)) {
    // A write the real server refuses still logs an error transaction with
    // a zxid of its own; the simulated server has no such transaction, so
    // the reply carries the last zxid (docs/wire.md).
    server.touch(c.session, now);
    if (a->action != AnswerAction::Close) answered(c, static_cast<OpCode>(a->type), a->xid, now);
    if (a->action == AnswerAction::Close) {
      close(id, out);
    } else if (a->action == AnswerAction::ReplyThenClose) {
      close(id, out, encode_answer(*a, server.last_zxid().value));
    } else {
      send(id, encode_answer(*a, server.last_zxid().value), out);
    }
    return;
  }
  execute(id, c, std::get<RequestFrame>(d), now, out);
}

void Frontend::Impl::execute(ConnectionId id, Connection& c, const RequestFrame& f, TimeMs now,
                             std::vector<Delivery>& out) {
  const SessionId s = c.session;
  const std::int64_t last = server.last_zxid().value;
  if (const auto* r = std::get_if<Request>(&f.body)) {
    const auto kind = static_cast<std::int32_t>(r->index());
    const std::string_view path = path_of(*r);
    record(TraceKind::Request, s, 0, kind, 0, f.xid, path);
    const std::optional<FaultKind> drop = take_drop(s, *r);
    if (drop == FaultKind::DropBeforeApply) {
      record(TraceKind::Fault, s, last, static_cast<std::int32_t>(*drop), 0, f.xid, path, "request lost");
      close(id, out);
      return;
    }
    Outcome o = server.apply(s, with_failing_ops(*r, f.ops), now);
    if (o.connection_dropped) {
      close(id, out);
      return;
    }
    if (drop == FaultKind::DropAfterApply) {
      // The reply goes with the connection, and so do the session's own watch events.
      record(TraceKind::Fault, s, o.zxid.value, static_cast<std::int32_t>(*drop), 0, f.xid, path,
             fmt::format("applied {}, reply lost", o.error));
      std::erase_if(o.notifications, [&](const Notification& n) { return n.session == s; });
      notify(o, out);
      remember_nulls(f, o);
      note_ephemerals(s, *r, o);
      close(id, out);
      return;
    }
    notify(o, out);
    remember_nulls(f, o);
    note_ephemerals(s, *r, o);
    answered(c, f.code, f.xid, now);
    record(TraceKind::Response, s, o.zxid.value, static_cast<std::int32_t>(o.error), kind, f.xid, path);
    // A lone check that succeeds gets no reply from the 3.8 server (its
    // SetDataResponse of a null Stat fails to serialize); copied.
    if (f.code == OpCode::Check && o.error == Error::Ok) return;
    // A multi's header says 0; the errors are in its results.
    const bool multi = std::holds_alternative<MultiResponse>(o.response);
    ReplyFrame reply = make_reply(f, o.zxid.value, multi ? Error::Ok : o.error, Response(o.response));
    if (const auto* g = std::get_if<GetDataRequest>(r); g && o.error == Error::Ok) {
      reply.nulls.data = null_data.count(g->path) > 0;
    }
    if (auto bytes = encode_reply(reply)) {
      send(id, std::move(*bytes), out);
    } else {
      // The server's response does not fit the opcode: a bug on our side;
      // the client gets an error instead of a malformed body.
      send(id, header_only(f.xid, o.zxid.value, Error::SystemError), out);
    }
    return;
  }
  if (std::holds_alternative<PingRequest>(f.body)) {
    server.touch(s, now);
    answered(c, f.code, f.xid, now);
    send(id, header_only(f.xid, last, Error::Ok), out);
  } else if (std::holds_alternative<CloseSessionRequest>(f.body)) {
    record(TraceKind::Request, s, 0, -1, 0, f.xid);
    const Outcome o = server.close_session(s, now);
    record(TraceKind::Server, s, o.zxid.value, static_cast<std::int32_t>(ServerAction::SessionClosed));
    connection_of.erase(s);  // the session is gone: nothing to detach
    auth_ids.erase(s);
    drops.erase(s);
    had_ephemerals.erase(s);
    notify(o, out);
    close(id, out, header_only(f.xid, o.zxid.value, o.error));
  } else if (const auto* a = std::get_if<AuthRequest>(&f.body)) {
    // processPacket: zxid 0; a failure closes the connection.
    server.touch(s, now);
    const Error e = server.add_auth(s, a->scheme, a->auth);
    if (e != Error::Ok) {
      ++counters.auth_failed;
      close(id, out, header_only(f.xid, 0, Error::AuthFailed));
      return;
    }
    const ClientInfo who{a->scheme, a->auth.substr(0, a->auth.find(':'))};
    auto& ids = auth_ids[s];
    if (std::find(ids.begin(), ids.end(), who) == ids.end()) ids.push_back(who);
    send(id, header_only(f.xid, 0, Error::Ok), out);
  } else if (const auto* cw = std::get_if<CheckWatchesRequest>(&f.body)) {
    server.touch(s, now);
    const bool held = holds_watch(server.watches_of(s), cw->path, cw->type);
    answered(c, f.code, f.xid, now);
    send(id, header_only(f.xid, last, held ? Error::Ok : Error::NoWatcher), out);
  } else if (std::holds_alternative<WhoAmIRequest>(f.body)) {
    server.touch(s, now);
    WhoAmIResponse who{{ClientInfo{"ip", c.ip}}};
    for (const ClientInfo& i : auth_ids[s]) who.infos.push_back(i);
    answered(c, f.code, f.xid, now);
    send(id, *encode_reply(make_reply(f, last, Error::Ok, std::move(who))), out);
  } else if (const auto* m = std::get_if<MultiReadRequest>(&f.body)) {
    // Each op answered on its own; their watch flags are ignored.
    MultiReadResponse results;
    for (const ReadOp& op : m->ops) {
      const Request read = std::visit(
          [](const auto& g) -> Request {
            auto copy = g;
            copy.watch = false;
            return copy;
          },
          op);
      const Outcome o = server.apply(s, read, now);
      ReadResult r;
      r.error = o.error;
      if (const auto* data = std::get_if<DataResponse>(&o.response)) {
        r.value = *data;
        r.null_data = null_data.count(std::get<GetDataRequest>(read).path) > 0;
      }
      if (const auto* kids = std::get_if<ChildrenResponse>(&o.response)) r.value = *kids;
      results.results.push_back(std::move(r));
    }
    answered(c, f.code, f.xid, now);
    send(id, *encode_reply(make_reply(f, server.last_zxid().value, Error::Ok, std::move(results))), out);
  }
}

void Frontend::Impl::remember_nulls(const RequestFrame& f, const Outcome& o) {
  const auto* r = std::get_if<Request>(&f.body);
  auto note = [&](const std::string& path, bool null) {
    if (null) {
      null_data.insert(path);
    } else {
      null_data.erase(path);
    }
  };
  if (o.error != Error::Ok || !r) return;
  if (const auto* c = std::get_if<CreateResponse>(&o.response)) {
    note(c->path, f.nulls.data);
  } else if (const auto* s = std::get_if<SetDataRequest>(r)) {
    note(s->path, f.nulls.data);
  } else if (const auto* m = std::get_if<MultiRequest>(r)) {
    const auto* results = std::get_if<MultiResponse>(&o.response);
    for (std::size_t i = 0; results && i < m->ops.size() && i < results->results.size(); ++i) {
      const bool null = i < f.ops.size() && f.ops[i].nulls.data;
      if (const auto* c = std::get_if<CreateResponse>(&results->results[i].value)) note(c->path, null);
      if (const auto* s = std::get_if<SetDataRequest>(&m->ops[i])) note(s->path, null);
    }
  }
}

void Frontend::Impl::note_ephemerals(SessionId s, const Request& r, const Outcome& o) {
  if (o.error != Error::Ok) return;
  auto ephemeral = [](const CreateRequest& c) {
    return c.mode == CreateMode::Ephemeral || c.mode == CreateMode::EphemeralSequential;
  };
  if (const auto* c = std::get_if<CreateRequest>(&r); c && ephemeral(*c)) had_ephemerals.insert(s);
  if (const auto* m = std::get_if<MultiRequest>(&r)) {
    for (const auto& op : m->ops) {
      if (const auto* c = std::get_if<CreateRequest>(&op); c && ephemeral(*c)) had_ephemerals.insert(s);
    }
  }
}

Frontend::Frontend(Server& server, FrontendOptions options)
    : impl_(std::make_unique<Impl>(server, options)) {}
Frontend::~Frontend() = default;

ConnectionId Frontend::open(std::string client_ip, int client_port, TimeMs now) {
  const ConnectionId id = impl_->next_id++;
  Impl::Connection& c = impl_->connections[id];
  c.ip = std::move(client_ip);
  c.port = client_port;
  c.opened = now;
  impl_->heard(c, now);
  return id;
}

std::vector<Delivery> Frontend::receive(ConnectionId id, ByteView bytes, TimeMs now) {
  std::vector<Delivery> out;
  Impl& m = *impl_;
  m.now = now;
  m.release(now, out);
  auto it = m.connections.find(id);
  if (it == m.connections.end() || it->second.closed) {
    m.expire(now, out);
    m.hold(out);
    return out;
  }
  Impl::Connection& c = it->second;
  m.heard(c, now);  // before expire: these bytes are not silence
  m.expire(now, out);
  if (c.closed) {  // its session expired just now
    m.hold(out);
    return out;
  }
  c.inbox.insert(c.inbox.end(), bytes.begin(), bytes.end());
  // NIOServerCnxn.readLength: before the handshake, a length that spells a
  // four-letter word is that command; its answer is sent and the
  // connection closed.
  if (!c.connected && c.inbox.size() >= 4) {
    if (auto reply = m.four_letter(c, ByteView(c.inbox).first(4), now)) {
      m.close(id, out, Bytes(reply->begin(), reply->end()));
      m.hold(out);
      return out;
    }
  }
  std::size_t used = 0;
  while (!c.closed) {
    const FrameScan scan = scan_frame(ByteView(c.inbox).subspan(used),
                                      static_cast<std::int32_t>(m.server.config().max_request_bytes));
    if (scan.status == FrameStatus::Incomplete) break;
    if (scan.status == FrameStatus::BadLength) {
      m.close(id, out);
      break;
    }
    ++m.counters.received;
    ++c.stats.received;
    if (c.connected) {
      m.request(id, c, scan.body, now, out);
    } else {
      m.handshake(id, c, scan.body, now, out);
    }
    used += scan.consumed;
  }
  if (!c.closed) c.inbox.erase(c.inbox.begin(), c.inbox.begin() + static_cast<std::ptrdiff_t>(used));
  m.hold(out);
  return out;
}

void Frontend::lost(ConnectionId id) {
  auto it = impl_->connections.find(id);
  if (it == impl_->connections.end()) return;
  if (!it->second.closed) impl_->detach(id, it->second);
  impl_->connections.erase(it);
  impl_->pauses.erase(id);
}

std::vector<Delivery> Frontend::advance(TimeMs now) {
  std::vector<Delivery> out;
  impl_->now = now;
  impl_->release(now, out);
  impl_->expire(now, out);
  impl_->hold(out);
  return out;
}

std::optional<TimeMs> Frontend::next_deadline() const {
  TimeMs next = std::min(impl_->next_reap, impl_->next_sessionless);
  for (const auto& [id, until] : impl_->pauses) next = std::min(next, until);
  if (const std::optional<TimeMs> expiry = impl_->server.next_expiry()) next = std::min(next, *expiry);
  return next;
}

SessionId Frontend::session_of(ConnectionId id) const {
  auto it = impl_->connections.find(id);
  return it == impl_->connections.end() ? SessionId{} : it->second.session;
}

std::vector<ConnectionInfo> Frontend::connections() const {
  std::vector<ConnectionInfo> out;
  for (const auto& [id, c] : impl_->connections) {
    if (c.closed) continue;
    out.push_back(ConnectionInfo{id, c.address(), c.session, impl_->lane(c.session),
                                 c.connected ? impl_->server.session_timeout_ms(c.session) : 0});
  }
  return out;
}

}  // namespace zksim::wire
