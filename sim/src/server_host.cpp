// World::Impl's server side: connections served by the ensemble's servers
// (the leader's clients at once, a follower's in turn, ensemble.h), watch
// events sent to their sessions, lazy pings and expiry, the container reaper.
#include "world_impl.h"

#include <algorithm>

namespace zksim {
namespace {

// What a leader orders as a transaction; the rest a server answers itself.
bool is_write(const Request& r) {
  return std::holds_alternative<CreateRequest>(r) || std::holds_alternative<DeleteRequest>(r) ||
         std::holds_alternative<SetDataRequest>(r) || std::holds_alternative<SetAclRequest>(r) ||
         std::holds_alternative<CheckRequest>(r) || std::holds_alternative<MultiRequest>(r);
}

// getChildren order from the decisions: decision 0 everywhere keeps the
// server's byte order.
class DecidedOrder final : public ChildOrder {
 public:
  explicit DecidedOrder(DecisionSource& d) : d_(d) {}
  void arrange(std::vector<std::string>& names) override {
    const auto n = static_cast<std::uint32_t>(names.size());
    for (std::uint32_t i = 0; i + 1 < n; ++i) std::swap(names[i], names[i + d_.pick(n - i)]);
  }

 private:
  DecisionSource& d_;
};

}  // namespace

void World::Impl::serve_connect(std::uint64_t conn, const UpMsg& msg) {
  Conn& c = *net.find(conn);
  Server& here = ensemble.server(c.server);
  if (!ensemble.serving(c.server, now())) {
    // A crashed server takes no connection; one looking for a leader
    // closes it at once (NIOServerCnxn: "ZooKeeperServer not running").
    record(TraceKind::Server, -1, msg.session, here.last_zxid().value,
           static_cast<int>(ServerAction::ConnectionRefused), 0, 0, {},
           fmt::format("server {}, {}", c.server,
                       !ensemble.up(c.server)     ? "down"
                       : ensemble.looking(c.server) ? "cut off from the leader"
                                                    : "no leader yet"));
    server_close(conn);
    return;
  }
  if (msg.last_zxid > here.last_zxid().value) {
    // ZooKeeperServer.processConnectRequest: "Refusing session request ...
    // as it has seen zxid ..."; the connection closes without an answer.
    record(TraceKind::Server, -1, msg.session, here.last_zxid().value,
           static_cast<int>(ServerAction::ConnectionRefused), 0, 0, {},
           fmt::format("server {}, client has seen zxid {}", c.server, msg.last_zxid));
    server_close(conn);
    return;
  }
  if (ensemble.cut(c.server)) {
    // A new session is the leader's transaction, a moved one the leader
    // validates (Learner.validateSession): either waits for the link.
    hold(c, conn, msg);
    return;
  }
  if (msg.session == SessionId{}) {
    SessionGrant g = ensemble.open_session(msg.timeout_ms, now(), Waiter{c.server, conn, 0});
    session_owner[g.id] = c.server;
    record(TraceKind::Server, -1, g.id, g.zxid.value, static_cast<int>(ServerAction::SessionOpened));
    // A follower answers once it has applied the createSession.
    if (ensemble.is_leader(c.server)) connected(conn, g.id);
    else ++c.waiting;
  } else if (leader().session_alive(msg.session)) {
    // The leader validates a session that moves (Learner.validateSession)
    // and makes this server its owner (LearnerHandler, REVALIDATE).
    leader().touch(msg.session, now());
    session_owner[msg.session] = c.server;
    auto old = session_conn.find(msg.session);
    if (old != session_conn.end() && old->second != conn) server_close(old->second);
    if (here.session_alive(msg.session)) {
      connected(conn, msg.session);
    } else {
      // A lagging follower: its replica learns of the session in turn.
      ++c.waiting;
      ensemble.defer(c.server, Pending{.waiter = Waiter{c.server, conn, 0}, .session = msg.session, .connect = true}, now());
    }
  } else {
    DownMsg reply;
    reply.kind = DownMsg::ConnectExpired;
    net.send_down(conn, std::move(reply));
    server_close(conn);
  }
}

void World::Impl::connected(std::uint64_t conn, SessionId session) {
  Conn& c = *net.find(conn);
  Handle& h = *handles[static_cast<std::size_t>(c.handle)];
  DownMsg reply;
  reply.kind = DownMsg::ConnectOk;
  reply.session = session;
  reply.timeout_ms = ensemble.server(c.server).session_timeout_ms(session);
  c.session = session;
  session_conn[session] = conn;
  handle_of_session[session] = h.index;
  go_healthy(h);
  net.send_down(conn, std::move(reply));
}

void World::Impl::serve_request(std::uint64_t conn, UpMsg& msg) {
  Conn& c = *net.find(conn);
  SessionId session = c.session;
  Handle& h = *handles[static_cast<std::size_t>(c.handle)];
  const bool on_leader = ensemble.is_leader(c.server);
  if (msg.kind == UpMsg::Close) {
    if (!on_leader && ensemble.cut(c.server)) {
      hold(c, conn, msg);
      return;
    }
    Outcome out = forward_close(c.server, conn, session, msg.xid);
    if (!on_leader) {
      // Its server answers once it has applied the closeSession. A close
      // the leader refused (the session had expired) gets no answer: the
      // server applies the expiry first, which closes the connection.
      ++c.waiting;
      return;
    }
    net.send_down(conn, DownMsg{DownMsg::Reply, msg.xid, std::move(out)});
    session_conn.erase(session);
    session_owner.erase(session);
    c.server_open = false;
    return;
  }
  const std::optional<Strike> strike = fault_for(h, msg);
  auto is = [&](FaultKind k) { return strike && strike->kind == k; };
  // An op-chain step says so after what it did (readers of the trace match
  // the start of a drop's detail).
  auto told = [&](std::string what) {
    return strike->chain ? fmt::format("{}; {}", what, chain_label(*strike)) : what;
  };
  if (is(FaultKind::DropBeforeApply)) {
    record(TraceKind::Fault, msg.view, session, leader().last_zxid().value,
           static_cast<int>(strike->kind), 0, msg.xid, path_of(*msg.request), told("request lost"));
    server_close(conn);
    if (strike->chain) follow_chain(h, *strike);
    return;
  }
  // Only while a crash keeps the quorum: else the write is served, and the
  // window's end tries again.
  // A write held by a cut follower is not in flight at the leader.
  if (leader_crash_armed && is_write(*msg.request) && ensemble.can_crash(ensemble.leader_index()) &&
      (on_leader || !ensemble.cut(c.server))) {
    crash_leader_with(conn, msg);
    return;
  }
  if (session_move_armed && !on_leader && is_write(*msg.request) && !ensemble.cut(c.server)) {
    move_session_with(conn, msg);
    return;
  }
  if (on_leader) {
    DecidedOrder order(decisions);
    Outcome out = ensemble.apply(session, *msg.request, now(), &order, Waiter{});
    if (out.connection_dropped) {
      server_close(conn);
      return;
    }
    if (is(FaultKind::DropAfterApply)) {
      record(TraceKind::Fault, msg.view, session, out.zxid.value, static_cast<int>(strike->kind), 0,
             msg.xid, path_of(*msg.request), told(fmt::format("applied {}, reply lost", out.error)));
      std::erase_if(out.notifications, [&](const Notification& n) { return n.session == session; });
      publish(out, out.zxid.value);
      server_close(conn);
      if (strike->chain) follow_chain(h, *strike);
      return;
    }
    publish(out, out.zxid.value);
    net.send_down(conn, DownMsg{DownMsg::Reply, msg.xid, std::move(out)});
  } else {
    serve_on_follower(c, conn, msg);
    if (is(FaultKind::DropAfterApply)) {
      // Its server took the request on (a write is with the leader), and
      // the connection breaks before the answer.
      record(TraceKind::Fault, msg.view, session, leader().last_zxid().value,
             static_cast<int>(strike->kind), 0, msg.xid, path_of(*msg.request), told("reply lost"));
      server_close(conn);
      if (strike->chain) follow_chain(h, *strike);
      return;
    }
  }
  if (!strike) return;
  Handle* victim = &h;
  if (strike->random && strike->kind != FaultKind::Delay) {
    // The nemesis may strike any client, not just the one whose request
    // arrived: a holder that sends nothing can still pause, crash or
    // expire. Decision 0 keeps the requester.
    const auto n = static_cast<std::uint32_t>(handles.size());
    victim = handles[(static_cast<std::uint32_t>(h.index) + decisions.pick(n)) % n].get();
    if (!victim->alive()) return;
  }
  apply_fault(strike->kind, *victim, is(FaultKind::Pause) ? cfg.nemesis.pause_ms : cfg.nemesis.delay_ms);
}

Outcome World::Impl::forward_close(int server, std::uint64_t conn, SessionId session, std::uint32_t xid) {
  Outcome out = ensemble.close_session(session, now(), Waiter{server, conn, xid});
  record(TraceKind::Server, -1, session, out.zxid.value, static_cast<int>(ServerAction::SessionClosed));
  publish(out, out.zxid.value);
  return out;
}

void World::Impl::hold(Conn& c, std::uint64_t conn, const UpMsg& msg) {
  UpMsg copy;
  copy.kind = msg.kind;
  copy.xid = msg.xid;
  copy.view = msg.view;
  copy.session = msg.session;
  copy.timeout_ms = msg.timeout_ms;
  copy.last_zxid = msg.last_zxid;
  if (msg.request) {
    copy.own = std::make_unique<Request>(*msg.request);
    copy.request = copy.own.get();
  }
  ++c.waiting;
  held[c.server].push_back(Held{conn, c.session, std::move(copy)});
}

void World::Impl::release_held(int f) {
  auto it = held.find(f);
  if (it == held.end()) return;
  std::vector<Held> items = std::move(it->second);
  held.erase(it);
  for (Held& m : items) {
    Conn* c = net.find(m.conn);
    if (c && c->server_open) {
      --c->waiting;
      switch (m.msg.kind) {
        case UpMsg::Connect:
          serve_connect(m.conn, m.msg);
          break;
        case UpMsg::Close:
          forward_close(f, m.conn, m.session, m.msg.xid);
          ++c->waiting;  // answered once the follower has applied it
          break;
        case UpMsg::Req:
          serve_on_follower(*c, m.conn, m.msg);
          break;
      }
      continue;
    }
    // Its connection broke meanwhile: a write or a close still reaches the
    // leader, and answers nobody; the rest was for that connection only.
    if (m.msg.kind == UpMsg::Close) {
      forward_close(f, m.conn, m.session, m.msg.xid);
    } else if (m.msg.kind == UpMsg::Req && is_write(*m.msg.request)) {
      if (auto owner = session_owner.find(m.session); owner != session_owner.end() && owner->second != f) {
        // The session moved on while the write was held: refused, applied
        // nowhere (closes are not checked: PrepRequestProcessor).
        record(TraceKind::Server, -1, m.session, leader().last_zxid().value,
               static_cast<int>(ServerAction::WriteRefused), f, m.msg.xid, path_of(*m.msg.request),
               fmt::format("session moved to server {}", owner->second));
        continue;
      }
      Outcome out = ensemble.apply(m.session, *m.msg.request, now(), nullptr, Waiter{f, m.conn, m.msg.xid});
      publish(out, out.zxid.value);
    }
  }
}

bool World::Impl::owed_on_follower(const Conn& c) const {
  if (c.waiting > 0 || ensemble.owes(c.server, c.session)) return true;
  auto cut = held.find(c.server);
  return cut != held.end() &&
         std::any_of(cut->second.begin(), cut->second.end(), [&](const Held& m) { return m.session == c.session; });
}

void World::Impl::serve_on_follower(Conn& c, std::uint64_t conn, UpMsg& msg) {
  const Request& r = *msg.request;
  const Waiter w{c.server, conn, msg.xid};
  // CommitProcessor keeps a session's requests in order, whichever of its
  // connections sent them: a read waits behind what its session is owed.
  // (A write goes to the leader whatever is owed: no need to look.)
  const bool owed = !is_write(r) && owed_on_follower(c);
  if (ensemble.cut(c.server) && (is_write(r) || std::holds_alternative<SyncRequest>(r) || owed)) {
    // Cut off: a write or sync waits for the link to the leader, and a
    // read of a session with an answer owed waits behind it.
    hold(c, conn, msg);
    return;
  }
  if (is_write(r)) {
    const Zxid before = leader().last_zxid();
    Outcome out = ensemble.apply(c.session, r, now(), nullptr, w);
    if (out.connection_dropped) {
      server_close(conn);
      return;
    }
    publish(out, out.zxid.value);
    ++c.waiting;
    // A write that made no transaction is answered in turn all the same.
    if (leader().last_zxid() == before) {
      ensemble.defer(c.server, Pending{.waiter = w, .session = c.session, .outcome = std::move(out)}, now());
    }
    return;
  }
  if (std::holds_alternative<SyncRequest>(r) || owed) {
    // Learner.sync: the leader's SYNC reaches the follower behind every
    // COMMIT sent before it. A read waits behind its session's pending
    // answers (CommitProcessor keeps a session's requests in order).
    ++c.waiting;
    ensemble.defer(c.server, Pending{.waiter = w, .session = c.session, .request = std::make_shared<const Request>(r)}, now());
    return;
  }
  DecidedOrder order(decisions);
  Outcome out = ensemble.server(c.server).apply(c.session, r, now(), &order);
  if (out.connection_dropped) {
    server_close(conn);
    return;
  }
  publish(out, out.zxid.value);
  net.send_down(conn, DownMsg{DownMsg::Reply, msg.xid, std::move(out)});
}

Conn* World::Impl::still_served(const Waiter& w) {
  Conn* c = net.find(w.conn);
  return c && c->server_open ? c : nullptr;
}

void World::Impl::follower_applied(int server, const Txn& txn, std::vector<Outcome>& outs) {
  for (Outcome& out : outs) publish(out, out.zxid.value);
  if (txn.kind == Txn::Kind::Expire) close_expired(txn.session, server);
  if (txn.waiter.server != server) return;
  Conn* c = still_served(txn.waiter);
  if (!c) return;
  --c->waiting;
  switch (txn.kind) {
    case Txn::Kind::OpenSession:
      connected(txn.waiter.conn, txn.session);
      return;
    case Txn::Kind::CloseSession:
      net.send_down(txn.waiter.conn, DownMsg{DownMsg::Reply, txn.waiter.xid, std::move(outs.front())});
      session_conn.erase(txn.session);
      session_owner.erase(txn.session);
      c->server_open = false;
      return;
    case Txn::Kind::Write:
      net.send_down(txn.waiter.conn, DownMsg{DownMsg::Reply, txn.waiter.xid, std::move(outs.front())});
      return;
    case Txn::Kind::Expire:
    case Txn::Kind::Reap:
    case Txn::Kind::SetCversion:
      return;  // nobody waits for these
  }
}

void World::Impl::follower_reached(int server, Pending& p) {
  Conn* c = still_served(p.waiter);
  if (!c) return;
  --c->waiting;
  if (p.connect) {
    // Alive here: an expiry the leader commits later comes after this, and
    // closes the connection when this server applies it.
    connected(p.waiter.conn, p.session);
    return;
  }
  Outcome out;
  if (p.outcome) {
    out = std::move(*p.outcome);
  } else {
    DecidedOrder order(decisions);
    out = ensemble.server(server).apply(p.session, *p.request, now(), &order);
    if (out.connection_dropped) {
      server_close(p.waiter.conn);
      return;
    }
    publish(out, out.zxid.value);
  }
  net.send_down(p.waiter.conn, DownMsg{DownMsg::Reply, p.waiter.xid, std::move(out)});
}

void World::Impl::publish(Outcome& out, std::int64_t zxid) {
  for (Notification& n : out.notifications) {
    auto it = session_conn.find(n.session);
    if (it == session_conn.end()) continue;  // not connected: setWatches will tell
    DownMsg msg;
    msg.kind = DownMsg::Event;
    msg.event = std::move(n.event);
    msg.zxid = zxid;
    net.send_down(it->second, std::move(msg));
  }
  out.notifications.clear();
}

// Pings are not simulated one by one: while a connected client runs, its
// session cannot expire. When it falls silent (pause, crash, a broken
// connection) the server is told of the last ping that would have arrived,
// and from then on the session's real deadline counts.
void World::Impl::go_silent(Handle& h, TimeMs since) {
  SessionId s = h.session;
  if (s == SessionId{} || !leader().session_alive(s) || silent_deadline.contains(s)) return;
  // The server last heard the client at its last send or at the last ping
  // after it (one each interval of quiet). A follower passes what it heard
  // on to the leader (LearnerSessionTracker), so this holds for a read
  // only the follower saw as well.
  const TimeMs interval = std::max(1, h.timeout_ms / 3);
  const TimeMs limit = paused(h) ? std::min(since, h.pause_start) : since;
  const TimeMs k = limit > h.last_send ? (limit - h.last_send) / interval : 0;
  leader().touch(s, h.last_send + k * interval + cfg.latency_ms);
  // The server's expiry may come late (a tick, a leader election giving
  // every session a new timeout). That matters where the client may open a
  // new session meanwhile: the old one's ephemerals are still there.
  TimeMs lag = 0;
  if (h.rules->new_session_after_expiry) {
    lag = static_cast<TimeMs>(decisions.pick(kExpiryLagChoices)) * h.timeout_ms / 4;
  }
  mark_silent(s, *leader().deadline(s) + lag);
  schedule_expiry();
}

void World::Impl::mark_silent(SessionId s, TimeMs deadline) {
  silent.emplace(deadline, s);
  silent_deadline[s] = deadline;
}

void World::Impl::unmark_silent(SessionId s) {
  auto it = silent_deadline.find(s);
  if (it == silent_deadline.end()) return;
  silent.erase({it->second, s});
  silent_deadline.erase(it);
}

void World::Impl::go_healthy(Handle& h) {
  if (h.crashed || paused(h) || h.session == SessionId{}) return;
  auto s = session_conn.find(h.session);
  if (s == session_conn.end()) return;
  // A follower cut off from the leader forwards no session touches
  // (Learner's ping carries them): the leader hears of it only once healed.
  if (ensemble.cut(net.find(s->second)->server)) return;
  unmark_silent(h.session);
  h.last_send = now();
}

void World::Impl::schedule_expiry() {
  if (expiry_call) loop.cancel(*expiry_call);
  expiry_call.reset();
  // Without a leader nobody expires sessions; end_election schedules anew.
  if (silent.empty() || ensemble.electing(now())) return;
  expiry_call = loop.call_at(silent.begin()->first, [this] {
    expiry_call.reset();
    check_expiry();
  });
}

void World::Impl::check_expiry() {
  if (ensemble.electing(now())) return;  // end_election schedules anew
  while (!silent.empty() && silent.begin()->first <= now()) {
    SessionId s = silent.begin()->second;
    unmark_silent(s);
    std::optional<TimeMs> d = leader().deadline(s);
    if (!d) continue;
    if (*d > now()) {
      mark_silent(s, *d);  // heard from since it fell silent
      continue;
    }
    expire_session(s);
  }
  schedule_expiry();
}

void World::Impl::expire_session(SessionId s) {
  if (ensemble.electing(now())) return;  // no leader to expire it
  unmark_silent(s);
  Outcome out = ensemble.expire(s, now());
  if (out.error != Error::Ok) return;
  record(TraceKind::Server, -1, s, out.zxid.value, static_cast<int>(ServerAction::SessionExpired));
  publish(out, out.zxid.value);
  close_expired(s, ensemble.leader_index());
}

void World::Impl::close_expired(SessionId s, int server) {
  auto conn = session_conn.find(s);
  if (conn != session_conn.end() && net.find(conn->second)->server == server) server_close(conn->second);
}

void World::Impl::reap() {
  if (!ensemble.electing(now())) {  // no leader, no reaper
    for (Outcome& out : ensemble.reap(now())) {
      record(TraceKind::Server, -1, SessionId{}, out.zxid.value,
             static_cast<int>(ServerAction::Reaped), static_cast<int>(out.error));
      publish(out, out.zxid.value);
    }
  }
  loop.call_at(now() + cfg.container_check_ms, [this] { reap(); });
}

}  // namespace zksim
