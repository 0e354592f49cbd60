// The client library side of the simulated world, after ZooKeeper's C
// client (3.8): request queues, watch tables and their activation rules,
// session events, disconnect and reconnect with setWatches, expiry.
#include "world_impl.h"

#include "zksim/client_rules.h"
#include "zksim/path.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

namespace zksim {

bool World::Impl::submit(Handle& h, PendingOp& op) {
  // A stopped world answers nothing: the caller waits until the world ends.
  if (loop.stopped()) return true;
  if (!h.alive()) return answer_locally(h, op, Outcome{.error = Error::InvalidState});
  if (Error e = op.close ? Error::Ok : c_client_refusal(op.request); e != Error::Ok) {
    return answer_locally(h, op, Outcome{.error = e});
  }
  op.xid = h.next_xid++;
  if (h.state == SessionState::Connected && h.conn != 0) {
    h.in_flight.push_back(&op);
    UpMsg msg{op.close ? UpMsg::Close : UpMsg::Req, op.xid, op.view, &op.request};
    record(TraceKind::Request, op.view, h.session, 0, op.close ? -1 : op.kind, 0, op.xid, op.path);
    send_up(h, std::move(msg));
  } else {
    op.queued = true;
    h.queued.push_back(&op);
  }
  return true;
}

bool World::Impl::answer_at_once(PendingOp& op, Outcome out) {
  loop.count_step();
  op.result = std::move(out);
  if (++answers_in_step <= kAnswersAtOnce) return false;
  PendingOp* p = &op;
  op.deferred = loop.call_at(now(), [p] {
    p->deferred = 0;
    p->waiter.resume();
  });
  return true;
}

bool World::Impl::answer_locally(Handle& h, PendingOp& op, Outcome out) {
  if (!op.background || h.rules->completions == FlavourRules::Completions::AtReply) {
    return answer_at_once(op, std::move(out));
  }
  op.result = std::move(out);
  run_completion(h, op);
  return true;
}

void World::Impl::forget(Handle& h, PendingOp& op) {
  if (op.queued) {
    auto it = std::find(h.queued.begin(), h.queued.end(), &op);
    if (it != h.queued.end()) h.queued.erase(it);
  } else {
    auto it = std::find(h.in_flight.begin(), h.in_flight.end(), &op);
    if (it != h.in_flight.end()) h.in_flight.erase(it);
    // A message still to be served keeps the request alive on its own.
    if (Conn* c = net.find(h.conn); c && c->server_open) {
      c->up.for_each([&](UpMsg& m) {
        if (m.request != &op.request) return;
        m.own = std::make_unique<Request>(std::move(op.request));
        m.request = m.own.get();
      });
    }
  }
}

void World::Impl::complete(Handle& h, PendingOp& op, Outcome&& out) {
  record(TraceKind::Response, op.view, h.session, out.zxid.value, static_cast<int>(out.error),
         op.close ? -1 : op.kind, op.xid, op.path);
  if (op.watcher) {
    // activateWatcher: exists registers either way; getData and getChildren
    // only on success. The op's path and watcher are not needed after this.
    Handle::WatchTable* table = nullptr;
    if (op.kind == request_kind<ExistsRequest> && out.error == Error::Ok) table = &h.watches.node;
    if (op.kind == request_kind<ExistsRequest> && out.error == Error::NoNode) table = &h.watches.exist;
    if (op.kind == request_kind<GetDataRequest> && out.error == Error::Ok) table = &h.watches.node;
    if (op.kind == request_kind<GetChildrenRequest> && out.error == Error::Ok) table = &h.watches.child;
    if (op.kind == request_kind<AddWatchRequest> && out.error == Error::Ok) {
      table = op.recursive ? &h.watches.recursive : &h.watches.persistent;
    }
    if (table) {
      watch_nodes.find_or_add(*table, op.path)->second.push_back(std::move(op.watcher));
    }
  }
  // deactivateWatcher: only once the server removed its watch.
  if (op.kind == request_kind<RemoveWatchesRequest> && out.error == Error::Ok) {
    drop_watchers(h, op.path, op.unwatch);
  }
  op.result = std::move(out);
  if (op.background) {
    run_completion(h, op);  // may destroy op
    return;
  }
  wake(h, op.waiter, op.deferred).resume();  // may destroy op
}

void World::Impl::drop_watchers(Handle& h, std::string_view path, WatcherType type) {
  auto drop = [this, path](Handle::WatchTable& table) {
    auto it = table.find(path);
    if (it != table.end()) watch_nodes.erase(table, it);
  };
  if (type != WatcherType::Data) drop(h.watches.child);
  if (type != WatcherType::Children) {
    drop(h.watches.node);
    drop(h.watches.exist);
  }
  if (type == WatcherType::Any) {
    drop(h.watches.persistent);
    drop(h.watches.recursive);
  }
}

void World::Impl::fail_all(Handle& h, Error e) {
  // Only what was pending now: calls made by the continuations resumed
  // here wait for the next connection.
  const std::uint32_t limit = h.next_xid;
  while (!h.in_flight.empty() && h.in_flight.front()->xid < limit) {
    PendingOp* op = h.in_flight.front();
    h.in_flight.pop_front();
    complete(h, *op, Outcome{.error = e, .zxid = Zxid{h.last_zxid}});
  }
  while (!h.queued.empty() && h.queued.front()->xid < limit) {
    PendingOp* op = h.queued.front();
    h.queued.pop_front();
    op->queued = false;
    complete(h, *op, Outcome{.error = e, .zxid = Zxid{h.last_zxid}});
  }
}

void World::Impl::set_state(Handle& h, SessionState s) {
  if (h.state == s) return;
  h.state = s;
  record(TraceKind::State, h.views.front(), h.session, h.last_zxid, static_cast<int>(s));
}

void World::Impl::connect(Handle& h) {
  if (!h.alive()) return;
  if (now() < h.cut_until) {
    // Cut off: every attempt fails until the network heals.
    reconnect_at(h, h.cut_until);
    return;
  }
  h.conn = net.open(h.index, h.servers[h.next_server++ % h.servers.size()]);
  UpMsg msg{UpMsg::Connect, 0, h.views.front(), nullptr, nullptr, h.session, h.requested_timeout_ms,
            h.last_zxid};
  send_up(h, std::move(msg));
}

void World::Impl::disconnected(Handle& h) {
  if (h.conn) client_close(h);
  if (h.state != SessionState::Connected && h.state != SessionState::Connecting) return;
  bool was_connected = h.state == SessionState::Connected;
  set_state(h, SessionState::Connecting);
  fail_all(h, Error::ConnectionLoss);
  if (was_connected) {
    if (h.rules->lost_after_suspended_timeout) lose_at(h, now() + h.timeout_ms);
    if (h.rules->set_watches_on_reconnect) {
      session_event(h, KeeperState::Disconnected, h.watches);
    } else {
      const Handle::Watches gone = std::exchange(h.watches, {});
      session_event(h, KeeperState::Disconnected, gone);
    }
  }
  reconnect_at(h, now() + cfg.reconnect_delay_ms);
}

void World::Impl::lose_at(Handle& h, TimeMs t) {
  Handle* hp = &h;
  loop.at_process(h, t, [this, hp] {
    if (hp->state == SessionState::Connecting) session_expired(*hp);
  }, &h.lost_call);
}

void World::Impl::session_expired(Handle& h) {
  client_close(h);
  if (h.lost_call) loop.cancel(std::exchange(h.lost_call, 0));
  set_state(h, SessionState::Expired);
  const Handle::Watches gone = std::exchange(h.watches, {});
  if (h.rules->new_session_after_expiry) {
    // At once, as Curator's reset() and kazoo's connect loop do.
    h.session = SessionId{};
    set_state(h, SessionState::Connecting);
    reconnect_at(h, now());
  }
  // The Java client queues Expired for the event thread before it fails
  // the calls still waiting with SESSIONEXPIRED (ClientCnxn.onConnected and
  // ZooKeeperTestable.injectSessionExpiration, then cleanup): where the
  // background calls complete on that thread, the event goes first.
  h.hold_completions = h.rules->completions == FlavourRules::Completions::OnEventThread;
  fail_all(h, Error::SessionExpired);
  h.hold_completions = false;
  session_event(h, KeeperState::Expired, gone);
  for (PendingOp* op : std::exchange(h.held_completions, {})) run_completion(h, *op);
}

void World::Impl::reconnect_at(Handle& h, TimeMs t) {
  Handle* hp = &h;
  loop.call_at(t, [this, hp] {
    if (hp->conn == 0 && hp->state == SessionState::Connecting) connect(*hp);
  });
}

void World::Impl::on_down(Handle& h, DownMsg& msg) {
  if (h.crashed) return;
  if (paused(h)) {
    h.held.emplace_back(h.conn, std::move(msg));
    return;
  }
  switch (msg.kind) {
    case DownMsg::ConnectOk: {
      if (h.lost_call) loop.cancel(std::exchange(h.lost_call, 0));
      h.session = msg.session;
      h.timeout_ms = msg.timeout_ms;
      handle_of_session[h.session] = h.index;
      set_state(h, SessionState::Connected);
      // finalize_session_establishment: setWatches goes first, then what
      // was queued while connecting, then the SyncConnected event. (A
      // flavour without setWatches has no watchers left to send.)
      SetWatchesRequest sw{.relative_zxid = h.last_zxid};
      for (const auto& [p, ws] : h.watches.node) sw.data.push_back(p);
      for (const auto& [p, ws] : h.watches.exist) sw.exist.push_back(p);
      for (const auto& [p, ws] : h.watches.child) sw.child.push_back(p);
      for (const auto& [p, ws] : h.watches.persistent) sw.persistent.push_back(p);
      for (const auto& [p, ws] : h.watches.recursive) sw.persistent_recursive.push_back(p);
      if (!h.watches.empty()) {
        record(TraceKind::Request, h.views.front(), h.session, 0, request_kind<SetWatchesRequest>, 0, 0, {});
        UpMsg msg{UpMsg::Req, 0, h.views.front()};
        msg.own = std::make_unique<Request>(std::move(sw));
        msg.request = msg.own.get();
        send_up(h, std::move(msg));
      }
      std::deque<PendingOp*> queued;
      queued.swap(h.queued);
      for (PendingOp* op : queued) {
        op->queued = false;
        h.in_flight.push_back(op);
        record(TraceKind::Request, op->view, h.session, 0, op->close ? -1 : op->kind, 0, op->xid,
               op->path);
        send_up(h, UpMsg{op->close ? UpMsg::Close : UpMsg::Req, op->xid, op->view, &op->request});
      }
      session_event(h, KeeperState::SyncConnected, h.watches);
      return;
    }
    case DownMsg::ConnectExpired:
      session_expired(h);
      return;
    case DownMsg::Reply: {
      h.last_zxid = std::max(h.last_zxid, msg.outcome.zxid.value);
      // setWatches (xid 0), or a caller that went away: nobody waits.
      if (h.in_flight.empty() || h.in_flight.front()->xid != msg.xid) return;
      PendingOp* op = h.in_flight.front();
      h.in_flight.pop_front();
      if (op->close) {
        // The handle is gone before the closer resumes.
        client_close(h);
        set_state(h, SessionState::Closed);
        fail_all(h, Error::Closing);
      }
      complete(h, *op, std::move(msg.outcome));
      return;
    }
    case DownMsg::Event:
      watch_event(h, msg.event, msg.zxid);
      return;
    case DownMsg::Closed:
      disconnected(h);
      return;
  }
}

void World::Impl::session_event(Handle& h, KeeperState state, const Handle::Watches& watchers) {
  const WatchedEvent e{EventType::None, state, ""};
  const bool own_thread = h.rules->listeners_on_own_thread;
  if (own_thread) tell_listeners(h, state);
  // Each view's default watcher, then its listeners (unless they have a
  // thread of their own); then, as collectWatchers does for
  // ZOO_SESSION_EVENT, every watcher registered with the handle, none
  // removed. What is called is fixed before the first call.
  struct ViewCalls {
    int view;
    Watcher default_watcher;
    std::vector<std::uint64_t> listeners;
  };
  std::vector<ViewCalls> views;
  for (int v : h.views) views.push_back({v, clients[v]->default_watcher, own_thread ? std::vector<std::uint64_t>{} : listener_ids(v)});
  std::vector<Watcher> registered;
  for (auto* table : {&watchers.node, &watchers.exist, &watchers.child, &watchers.persistent,
                      &watchers.recursive}) {
    for (const auto& [path, ws] : *table) registered.insert(registered.end(), ws.begin(), ws.end());
  }
  if (!h.rules->watchers_on_event_thread) {
    for (ViewCalls& v : views) {
      if (v.default_watcher) v.default_watcher(e);
      call_listeners(v.view, v.listeners, e);
    }
    for (Watcher& w : registered) w(e);
    return;
  }
  // The I/O thread calls the listeners (kazoo's connection thread does);
  // the watchers, the default ones first, hear it on the event thread.
  std::vector<Watcher> queued;
  for (ViewCalls& v : views) {
    call_listeners(v.view, v.listeners, e);
    if (v.default_watcher) queued.push_back(std::move(v.default_watcher));
  }
  queued.insert(queued.end(), std::make_move_iterator(registered.begin()), std::make_move_iterator(registered.end()));
  call_watchers(h, std::move(queued), e);
}

std::vector<std::uint64_t> World::Impl::listener_ids(int view) const {
  std::vector<std::uint64_t> ids;
  for (const auto& [id, l] : clients[view]->listeners) ids.push_back(id);
  return ids;
}

void World::Impl::call_listeners(int view, const std::vector<std::uint64_t>& ids, const WatchedEvent& e) {
  // Looked up as they are called: an earlier listener may have removed a later one.
  for (std::uint64_t id : ids) {
    auto& listeners = clients[view]->listeners;
    auto it = listeners.find(id);
    if (it == listeners.end()) continue;
    Watcher l = it->second;  // it may remove itself
    l(e);
  }
}

void World::Impl::tell_listeners(Handle& h, KeeperState state) {
  Handle* hp = &h;
  on_thread(h, h.threads.listener, Actor::Listener, [this, hp, state] { listener_step(*hp, state); });
}

void World::Impl::listener_step(Handle& h, KeeperState state) {
  record(TraceKind::Listener, h.views.front(), h.session, h.last_zxid, static_cast<int>(state));
  const WatchedEvent e{EventType::None, state, ""};
  std::vector<std::pair<int, std::vector<std::uint64_t>>> views;
  for (int v : h.views) views.emplace_back(v, listener_ids(v));
  for (const auto& [v, ids] : views) call_listeners(v, ids, e);
}

void World::Impl::watch_event(Handle& h, const WatchedEvent& e, std::int64_t zxid) {
  record(TraceKind::Watch, h.views.front(), h.session, zxid, static_cast<int>(e.type), 0, 0, e.path);
  std::vector<Watcher> fire;
  auto take = [&](Handle::WatchTable& table) {
    auto it = table.find(e.path);
    if (it == table.end()) return;
    for (Watcher& w : it->second) fire.push_back(std::move(w));
    watch_nodes.erase(table, it);
  };
  auto keep = [&](const Handle::WatchTable& table, std::string_view p) {
    auto it = table.find(p);
    if (it != table.end()) fire.insert(fire.end(), it->second.begin(), it->second.end());
  };
  switch (e.type) {
    case EventType::NodeCreated:
    case EventType::NodeDataChanged:
      take(h.watches.node);
      take(h.watches.exist);
      break;
    case EventType::NodeChildrenChanged:
      take(h.watches.child);
      break;
    case EventType::NodeDeleted:
      take(h.watches.node);
      take(h.watches.exist);
      take(h.watches.child);
      break;
    case EventType::None:
      break;
  }
  keep(h.watches.persistent, e.path);
  if (e.type != EventType::NodeChildrenChanged && !h.watches.recursive.empty()) {
    for (std::string_view p = e.path;; p = parent_of(p)) {
      keep(h.watches.recursive, p);
      if (p == "/") break;
    }
  }
  call_watchers(h, std::move(fire), e);
}

void World::Impl::call_watchers(Handle& h, std::vector<Watcher> watchers, const WatchedEvent& e) {
  if (watchers.empty()) return;
  if (!h.rules->watchers_on_event_thread) {
    for (Watcher& w : watchers) w(e);
    return;
  }
  on_thread(h, h.threads.event, Actor::Event, [watchers = std::move(watchers), e] {
    for (const Watcher& w : watchers) w(e);
  });
}

void World::Impl::pause(Handle& h, TimeMs duration_ms) {
  if (h.crashed) return;
  if (!paused(h)) h.pause_start = now();
  h.paused_until = std::max(h.paused_until, now() + duration_ms);
  go_silent(h, now());
  Handle* hp = &h;
  loop.call_at(h.paused_until, [this, hp] { resume(*hp); });
}

void World::Impl::resume(Handle& h) {
  if (h.crashed || paused(h)) return;
  std::deque<std::pair<std::uint64_t, DownMsg>> held;
  held.swap(h.held);
  // The I/O thread wakes up and checks its read timeout before reading:
  // silence longer than 2/3 of the session timeout means a dead connection.
  if (h.state == SessionState::Connected && now() - h.pause_start > h.timeout_ms * 2 / 3) {
    disconnected(h);
    return;
  }
  if (h.state == SessionState::Connected) go_healthy(h);
  for (auto& [conn, msg] : held) {
    if (conn == h.conn) on_down(h, msg);
  }
}

void World::Impl::record(TraceKind kind, int client, SessionId s, std::int64_t zxid,
                         std::int32_t code, std::int32_t code2, std::uint32_t xid,
                         std::string_view path, std::string_view detail) {
  trace.add(now(), kind, client, s, zxid, code, code2, xid, path, detail);
}

}  // namespace zksim
