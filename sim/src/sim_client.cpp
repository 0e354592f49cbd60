// The client library side of the simulated world, after ZooKeeper's C
// client (3.8): request queues, watch tables and their activation rules,
// session events, disconnect and reconnect with setWatches, expiry.
#include "world_impl.h"

#include "zksim/client_rules.h"
#include "zksim/path.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>

namespace zksim {
namespace {

// Awaits one request; lives in the calling coroutine's frame, so the
// PendingOp's address is stable while it is registered with the handle.
struct OpAwaiter {
  World::Impl& w;
  Handle& h;
  PendingOp op;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> c) {
    op.waiter = c;
    return w.submit(h, op);
  }
  Outcome await_resume() { return std::move(*op.result); }
  OpAwaiter(World::Impl& world, Handle& handle) : w(world), h(handle) {}
  OpAwaiter(const OpAwaiter&) = delete;
  OpAwaiter& operator=(const OpAwaiter&) = delete;
  ~OpAwaiter() {
    if (op.deferred) w.loop.cancel(op.deferred);  // destroyed before its answer was delivered
    if (!op.result) w.forget(h, op);  // destroyed while waiting: a crash
  }
};

// A coroutine that waits on a Signal in a recipe's place and, once set()
// resumes it, lets its owner wake the recipe (World::Impl::wake): so a
// watcher's set() on one thread reaches a recipe on another as a step of
// its own. Its body only calls back; the recipe it should resume at once,
// if any, it resumes from its final suspension, so that the owner may then
// destroy it.
struct Relay {
  struct promise_type {
    std::coroutine_handle<> next = std::noop_coroutine();
    Relay get_return_object() { return Relay{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    struct Final {
      bool await_ready() const noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) const noexcept {
        return h.promise().next;
      }
      void await_resume() const noexcept {}
    };
    Final final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::abort(); }
  };
  explicit Relay(std::coroutine_handle<promise_type> handle) : h(handle) {}
  Relay(Relay&& o) noexcept : h(std::exchange(o.h, {})) {}
  Relay& operator=(Relay&&) = delete;
  ~Relay() {
    if (h) h.destroy();
  }
  std::coroutine_handle<promise_type> h;
};

template <class F>
Relay relay(F on_set) {
  on_set();
  co_return;
}

// Waits until `until` in the process's own time (-1: no limit), or for
// `signal` (if any) to be set, whichever comes first. A timer that comes
// due while the process is paused waits for the pause to end: a paused
// process runs nothing. A set signal wakes the waiter as World::Impl::wake
// says its flavour's threads do.
struct TimedWait {
  World::Impl& w;
  Handle& h;
  TimeMs until;
  Signal::Awaiter* signal = nullptr;
  std::uint64_t call = 0;  // the timer's, then the wake-up's
  bool timed_out = false;
  std::coroutine_handle<> c;
  std::optional<Relay> via;
  bool await_ready() const noexcept { return signal && signal->await_ready(); }
  void await_suspend(std::coroutine_handle<> waiter) {
    c = waiter;
    if (signal && h.rules->recipes_on_caller_thread) {
      via.emplace(relay([this] {
        if (call) w.loop.cancel(std::exchange(call, 0));
        via->h.promise().next = w.wake(h, c, call);
      }));
      signal->await_suspend(via->h);
    } else if (signal) {
      signal->await_suspend(waiter);
    }
    if (until < 0) return;
    w.loop.at_process(h, until, [this] {
      timed_out = true;
      if (signal) signal->detach();
      c.resume();
    }, &call);
  }
  // True when the signal came first.
  bool await_resume() const noexcept { return !timed_out; }
  ~TimedWait() {
    if (call) w.loop.cancel(call);
  }
};

// A preemption point: on a flavour whose recipes run on the caller's
// thread, the thread may be rescheduled here (World::Impl::wake).
struct Preemption {
  World::Impl& w;
  Handle& h;
  std::uint64_t call = 0;
  bool await_ready() const noexcept { return !h.rules->recipes_on_caller_thread; }
  bool await_suspend(std::coroutine_handle<> c) { return w.wake(h, c, call) != c; }
  void await_resume() const noexcept {}
  ~Preemption() {
    if (call) w.loop.cancel(call);
  }
};

}  // namespace

// --- Client interface ---

void SimClient::prepare(PendingOp& op, Request request, Watcher watcher, bool recursive) {
  op.kind = static_cast<std::int32_t>(request.index());
  op.request = std::move(request);
  op.path = path_of(op.request);
  op.watcher = std::move(watcher);
  op.recursive = recursive;
  op.view = id_;
  op.background = std::exchange(starting_background_, false);
}

Task<Result<CreateResponse>> SimClient::create(std::string path, std::string data,
                                               CreateMode mode, AclList acl,
                                               std::int64_t ttl_ms) {
  OpAwaiter a(w_, h_);
  prepare(a.op, CreateRequest{std::move(path), std::move(data), std::move(acl), mode, ttl_ms});
  Outcome o = co_await a;
  if (o.error != Error::Ok) co_return o.error;
  co_return std::get<CreateResponse>(std::move(o.response));
}

Task<Result<void>> SimClient::remove(std::string path, Version version) {
  OpAwaiter a(w_, h_);
  prepare(a.op, DeleteRequest{std::move(path), version});
  Outcome o = co_await a;
  co_return Result<void>(o.error);
}

Task<Result<Stat>> SimClient::exists(std::string path, Watcher watcher) {
  bool watch = static_cast<bool>(watcher);
  OpAwaiter a(w_, h_);
  prepare(a.op, ExistsRequest{std::move(path), watch}, std::move(watcher));
  Outcome o = co_await a;
  if (o.error != Error::Ok) co_return o.error;
  co_return std::get<StatResponse>(o.response).stat;
}

Task<Result<DataResponse>> SimClient::get_data(std::string path, Watcher watcher) {
  bool watch = static_cast<bool>(watcher);
  OpAwaiter a(w_, h_);
  prepare(a.op, GetDataRequest{std::move(path), watch}, std::move(watcher));
  Outcome o = co_await a;
  if (o.error != Error::Ok) co_return o.error;
  co_return std::get<DataResponse>(std::move(o.response));
}

Task<Result<Stat>> SimClient::set_data(std::string path, std::string data, Version version) {
  OpAwaiter a(w_, h_);
  prepare(a.op, SetDataRequest{std::move(path), std::move(data), version});
  Outcome o = co_await a;
  if (o.error != Error::Ok) co_return o.error;
  co_return std::get<StatResponse>(o.response).stat;
}

Task<Result<ChildrenResponse>> SimClient::get_children(std::string path, Watcher watcher) {
  bool watch = static_cast<bool>(watcher);
  OpAwaiter a(w_, h_);
  prepare(a.op, GetChildrenRequest{std::move(path), watch}, std::move(watcher));
  Outcome o = co_await a;
  if (o.error != Error::Ok) co_return o.error;
  co_return std::get<ChildrenResponse>(std::move(o.response));
}

Task<MultiResult> SimClient::multi(std::vector<MultiOp> ops) {
  OpAwaiter a(w_, h_);
  prepare(a.op, MultiRequest{std::move(ops)});
  Outcome o = co_await a;
  MultiResult r;
  r.error = o.error;
  if (auto* m = std::get_if<MultiResponse>(&o.response)) r.results = std::move(m->results);
  // The C client sends a multi's creates as plain creates, whose reply
  // carries the path but no Stat.
  for (OpResult& op : r.results) {
    if (auto* c = std::get_if<CreateResponse>(&op.value)) c->stat = Stat{};
  }
  co_return r;
}

Task<Result<void>> SimClient::sync(std::string path) {
  OpAwaiter a(w_, h_);
  prepare(a.op, SyncRequest{std::move(path)});
  Outcome o = co_await a;
  co_return Result<void>(o.error);
}

Task<Result<void>> SimClient::add_watch(std::string path, AddWatchMode mode, Watcher watcher) {
  OpAwaiter a(w_, h_);
  prepare(a.op, AddWatchRequest{std::move(path), mode}, std::move(watcher),
          mode == AddWatchMode::PersistentRecursive);
  Outcome o = co_await a;
  co_return Result<void>(o.error);
}

Task<Result<void>> SimClient::remove_all_watches(std::string path, WatcherType type) {
  OpAwaiter a(w_, h_);
  prepare(a.op, RemoveWatchesRequest{std::move(path), type});
  a.op.unwatch = type;
  Outcome o = co_await a;
  co_return Result<void>(o.error);
}

Task<Result<void>> SimClient::close() {
  if (h_.state == SessionState::Closed || h_.state == SessionState::Expired) {
    co_return Result<void>();
  }
  if (h_.state == SessionState::Connecting) {
    // Nothing to tell the server: the session lingers until it times out.
    w_.client_close(h_);
    w_.set_state(h_, SessionState::Closed);
    w_.fail_all(h_, Error::Closing);
    co_return Result<void>();
  }
  OpAwaiter a(w_, h_);
  a.op.close = true;
  a.op.view = id_;
  Outcome o = co_await a;
  co_return Result<void>(o.error == Error::SessionExpired ? Error::Ok : o.error);
}

Task<void> SimClient::sleep(TimeMs ms) {
  TimedWait timer{w_, h_, w_.now() + std::max<TimeMs>(ms, 0)};
  co_await timer;
}

Task<bool> SimClient::wait_for(Signal s, TimeMs timeout_ms) {
  Signal::Awaiter on_signal = s.wait();
  TimedWait waiting{w_, h_, timeout_ms < 0 ? -1 : w_.now() + timeout_ms, &on_signal};
  bool set = co_await waiting;
  co_return set;
}

Task<void> SimClient::preemption_point() {
  Preemption p{w_, h_};
  co_await p;
}

void SimClient::post(Task<> task) {
  const std::uint32_t lag = w_.caller_lag(h_, World::Impl::Actor::Tasks);
  w_.loop.at_process(h_, w_.now() + static_cast<TimeMs>(lag), w_.add_root(h_.process, std::move(task)));
}

void SimClient::background(Task<> call) {
  const std::function<void()> start = w_.add_root(h_.process, std::move(call));
  starting_background_ = true;
  start();
  starting_background_ = false;
}

std::string SimClient::unique_id() {
  // The handle's number, not the session id: that is 0 until connected.
  std::string id = std::to_string(h_.index);
  id += '-';
  id += std::to_string(h_.next_unique++);
  return id;
}

void SimClient::annotate(std::string text) {
  w_.record(TraceKind::Annotation, id_, h_.session, 0, 0, 0, 0, {}, text);
}

// --- the library ---

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
    if (Conn* c = find_conn(h.conn); c && c->server_open) {
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
  std::uint64_t id = next_conn++;
  conns.push_back(std::make_unique<Conn>());
  Conn& c = *conns.back();
  c.handle = h.index;
  c.server = h.servers[h.next_server++ % h.servers.size()];
  h.conn = id;
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
