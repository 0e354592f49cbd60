// The simulated world: event loop, network, faults, and the World API. The
// server side of connections is server_host.cpp.
#include "world_impl.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace zksim {
namespace {

// A spawned task's owner: destroys itself when the task finishes.
struct RootTask {
  struct promise_type {
    World::Impl* world = nullptr;
    std::uint64_t id = 0;
    RootTask get_return_object() {
      return RootTask{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    struct Final {
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<promise_type> h) const noexcept {
        h.promise().world->roots.erase(h.promise().id);
        h.destroy();
      }
      void await_resume() const noexcept {}
    };
    Final final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::abort(); }
  };
  std::coroutine_handle<promise_type> h;
};

RootTask run_root(Task<> task) { co_await std::move(task); }

}  // namespace

World::Impl::Impl(WorldConfig c, DecisionSource& d)
    : cfg(std::move(c)),
      decisions(d),
      ensemble(cfg.servers, cfg.server, d, cfg.follower_lag_ms,
               Ensemble::Hooks{
                   .at = [this](TimeMs t, std::function<void()> fn) { loop.call_at(t, std::move(fn)); },
                   .applied = [this](int server, const Txn& txn,
                                     std::vector<Outcome>& outs) { follower_applied(server, txn, outs); },
                   .reached = [this](int server, Pending& p) { follower_reached(server, p); },
               }),
      trace(cfg.keep_trace) {
  up_channel = loop.add_channel([](void* w, std::uint64_t c) { static_cast<Impl*>(w)->deliver_up(c); }, this);
  down_channel = loop.add_channel([](void* w, std::uint64_t c) { static_cast<Impl*>(w)->deliver_down(c); }, this);
  loop.call_at(cfg.container_check_ms, [this] { reap(); });
  start_timed_nemesis();
}

// --- events ---

bool World::Impl::step(TimeMs limit) {
  answers_in_step = 0;
  return loop.step(limit);
}

// --- network ---

TimeMs World::Impl::message_delay(int handle) {
  return cfg.latency_ms + static_cast<TimeMs>(decisions.pick_for(cfg.delay_choices, actor(handle, Actor::Messages))) * cfg.latency_ms;
}

void World::Impl::send_up(Handle& h, UpMsg msg) {
  Conn* cp = find_conn(h.conn);
  if (!cp) return;
  Conn& c = *cp;
  TimeMs t = std::max(now() + message_delay(h.index), c.up_last);
  c.up_last = t;
  c.up.push_back(std::move(msg));
  h.last_send = now();
  loop.post(t, up_channel, h.conn);
}

void World::Impl::send_down(std::uint64_t conn, DownMsg msg) {
  Conn* cp = find_conn(conn);
  if (!cp) return;
  Conn& c = *cp;
  if (!c.server_open && msg.kind != DownMsg::Closed) return;
  TimeMs t = std::max(now() + message_delay(c.handle) + c.extra_delay_next, c.down_last);
  c.extra_delay_next = 0;
  c.down_last = t;
  c.down.push_back(std::move(msg));
  loop.post(t, down_channel, conn);
}

void World::Impl::deliver_up(std::uint64_t conn) {
  Conn* c = find_conn(conn);
  if (!c) return;
  // Served in place: the server never sends on an up channel, so the front
  // stays put until it is popped.
  UpMsg& msg = c->up.front();
  if (c->server_open) {
    switch (msg.kind) {
      case UpMsg::Connect:
        serve_connect(conn, msg);
        break;
      case UpMsg::Req:
      case UpMsg::Close:
        serve_request(conn, msg);
        break;
    }
  }
  c->up.pop_front();
  if (!c->client_open && c->up.empty() && c->down.empty()) conns[conn].reset();
}

void World::Impl::deliver_down(std::uint64_t conn) {
  Conn* c = find_conn(conn);
  if (!c) return;
  // Handled in place: the client never sends on a down channel, and a
  // connection with a message in it is never freed, so `c` stays valid.
  DownMsg& msg = c->down.front();
  Handle& h = *handles[static_cast<std::size_t>(c->handle)];
  if (c->client_open && h.conn == conn) on_down(h, msg);
  c->down.pop_front();
  if (!c->client_open && c->up.empty() && c->down.empty()) conns[conn].reset();
}

void World::Impl::server_close(std::uint64_t conn) {
  Conn* cp = find_conn(conn);
  if (!cp || !cp->server_open) return;
  Conn& c = *cp;
  DownMsg closed;
  closed.kind = DownMsg::Closed;
  send_down(conn, std::move(closed));
  c.server_open = false;
  Handle& h = *handles[static_cast<std::size_t>(c.handle)];
  if (c.session != SessionId{}) {
    auto s = session_conn.find(c.session);
    // Watches belong to the connection that set them (the session's
    // current one); an older connection has none left.
    if (s != session_conn.end() && s->second == conn) {
      session_conn.erase(s);
      ensemble.server(c.server).connection_closed(c.session);
    }
    go_silent(h, now());
  }
}

void World::Impl::client_close(Handle& h) {
  if (h.conn == 0) return;
  std::uint64_t id = h.conn;
  Conn* cp = find_conn(id);
  h.conn = 0;
  if (!cp) return;
  Conn& c = *cp;
  c.client_open = false;
  if (c.server_open) {
    // The server sees the socket close; the session itself lingers.
    c.server_open = false;
    auto s = session_conn.find(c.session);
    if (s != session_conn.end() && s->second == id) {
      session_conn.erase(s);
      ensemble.server(c.server).connection_closed(c.session);
    }
    go_silent(h, now());
  }
  if (c.up.empty() && c.down.empty()) conns[static_cast<std::size_t>(id)].reset();
}

// --- faults ---

std::optional<World::Impl::Strike> World::Impl::fault_for(Handle& h, const UpMsg& msg) {
  for (Armed& a : armed) {
    if (a.done || !a.fault.on || a.fault.client != msg.view) continue;
    const RequestMatch& m = *a.fault.on;
    if (m.kind >= 0 && m.kind != static_cast<std::int32_t>(msg.request->index())) continue;
    if (!path_of(*msg.request).starts_with(m.path_prefix)) continue;
    if (++a.seen < a.fault.nth) continue;
    a.done = true;
    return Strike{a.fault.kind};
  }
  if (!cfg.nemesis.per_request()) return std::nullopt;
  Handle::Storm& storm = h.storm;
  const auto kind = static_cast<std::int32_t>(msg.request->index());
  // The rest of a chain struck already draws nothing: the second drop of
  // reply-lost-twice takes the client's next request (not the library's
  // setWatches), calm or not.
  if (h.drop_next && kind != request_kind<SetWatchesRequest>) {
    h.drop_next = false;
    if (++storm.struck == kNemesisStorm) storm = Handle::Storm{.calm = kNemesisStorm};
    return Strike{FaultKind::DropAfterApply, false, OpChain::ReplyLostTwice, -1};
  }
  if (storm.calm > 0) {
    --storm.calm;
    return std::nullopt;
  }
  if (h.aimed && h.aimed->kind == kind) return fire_chain(h, *std::exchange(h.aimed, std::nullopt));
  // One decision per request; 0 (and every low value) means no fault.
  if (const std::optional<std::int32_t> k = cfg.nemesis.strike(decisions.pick(kNemesisChoices))) {
    if (*k == kOpChain) {
      // Aimed at a drawn kind: this request if it is one, else the next.
      Handle::Aimed a;
      a.kind = kOpChainKinds[decisions.pick(static_cast<std::uint32_t>(kOpChainKinds.size()))];
      a.chain = static_cast<OpChain>(decisions.pick(kOpChains));
      if (a.kind == kind) {
        h.aimed.reset();
        return fire_chain(h, a);
      }
      h.aimed = a;
      storm.struck = 0;
      return std::nullopt;
    }
    ++struck[static_cast<std::size_t>(*k)];
    if (++storm.struck == kNemesisStorm) storm = Handle::Storm{.calm = kNemesisStorm};
    return Strike{static_cast<FaultKind>(*k), true};
  }
  storm.struck = 0;
  return std::nullopt;
}

World::Impl::Strike World::Impl::fire_chain(Handle& h, Handle::Aimed a) {
  ++struck[static_cast<std::size_t>(kOpChain)];
  if (++h.storm.struck == kNemesisStorm) h.storm = Handle::Storm{.calm = kNemesisStorm};
  const FaultKind first =
      a.chain == OpChain::RequestLostPause ? FaultKind::DropBeforeApply : FaultKind::DropAfterApply;
  return Strike{first, false, a.chain, a.kind};
}

std::string World::Impl::chain_label(const Strike& s) {
  const std::string_view chain = op_chain_name(static_cast<std::int32_t>(*s.chain));
  if (s.aimed_kind < 0) return fmt::format("op-chain {}, its second drop", chain);
  return fmt::format("op-chain {} on {}", chain, request_kind_name(s.aimed_kind));
}

void World::Impl::follow_chain(Handle& h, const Strike& s) {
  const std::string label = chain_label(s);
  switch (*s.chain) {
    case OpChain::ReplyLost:
      return;
    case OpChain::ReplyLostTwice:
      if (s.aimed_kind >= 0) h.drop_next = true;
      return;
    case OpChain::RequestLostPause:
      apply_fault(FaultKind::Pause, h, cfg.nemesis.pause_ms, label);
      return;
    case OpChain::ReplyLostExpiry:
      apply_fault(FaultKind::ExpireSession, h, 0, label);
      return;
    case OpChain::ReplyLostOutage: {
      // Past the session timeout: the server expires the session (unless
      // its expiry comes late) before the client can reach it again.
      const auto timeout = static_cast<std::uint32_t>(std::max(h.timeout_ms, 1));
      cut_off(h, now() + h.timeout_ms + 1 + decisions.pick(timeout), label);
      return;
    }
  }
}

void World::Impl::apply_fault(FaultKind kind, Handle& h, TimeMs duration_ms, std::string_view cause) {
  if (kind == FaultKind::DropBeforeApply || kind == FaultKind::DropAfterApply) {
    record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
           static_cast<int>(kind), 0, 0, {},
           cause.empty() ? std::string("connection broken") : fmt::format("{}: connection broken", cause));
    if (h.conn) server_close(h.conn);
    return;
  }
  // A pause's detail starts with its length: readers of the trace parse it.
  std::string detail = duration_ms ? fmt::format("{} ms", duration_ms) : std::string();
  if (!cause.empty()) detail = detail.empty() ? std::string(cause) : fmt::format("{}, {}", detail, cause);
  record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
         static_cast<int>(kind), 0, 0, {}, detail);
  switch (kind) {
    case FaultKind::ExpireSession:
      if (h.session != SessionId{}) expire_session(h.session);
      break;
    case FaultKind::Pause:
      pause(h, duration_ms);
      break;
    case FaultKind::Crash:
      crash(h.process);
      break;
    case FaultKind::Delay:
      if (Conn* c = find_conn(h.conn)) c->extra_delay_next = duration_ms;
      break;
    default:
      break;
  }
}

void World::Impl::start_timed_nemesis() {
  if (timed_running || !cfg.nemesis.timed()) return;
  timed_running = true;
  loop.call_at(now() + std::max<TimeMs>(cfg.nemesis.first_window_ms, 0), [this] { timed_window(); });
}

TimeMs World::Impl::timed_window_ms() const {
  return cfg.nemesis.window_ms > 0 ? cfg.nemesis.window_ms : kTimedWindowMs;
}

void World::Impl::timed_window() {
  if (!cfg.nemesis.timed()) {
    timed_running = false;
    return;
  }
  const TimeMs window_ms = timed_window_ms();
  loop.call_at(now() + window_ms, [this] { timed_window(); });
  // One decision a window; 0 (and every low value) means no fault, as for
  // the request-triggered classes.
  const std::optional<TimedFault> fault = cfg.nemesis.strike_timed(decisions.pick(kNemesisChoices));
  if (!fault) return;
  loop.call_at(now() + decisions.pick(static_cast<std::uint32_t>(window_ms)), [this, f = *fault] {
    if (cfg.nemesis.per_mille[static_cast<int>(f)]) strike_timed(f);
  });
}

void World::Impl::strike_timed(TimedFault fault) {
  const auto n = static_cast<std::uint32_t>(handles.size());
  if (n == 0) return;
  switch (fault) {
    case TimedFault::AnyTime: {
      Handle& h = *handles[decisions.pick(n)];
      if (!h.alive()) return;
      ++struck[static_cast<std::size_t>(fault)];
      // The mildest first: decision 0 drops the connection.
      constexpr FaultKind kinds[] = {FaultKind::DropBeforeApply, FaultKind::ExpireSession, FaultKind::Pause,
                                     FaultKind::Crash};
      apply_fault(kinds[decisions.pick(4)], h, cfg.nemesis.pause_ms);
      return;
    }
    case TimedFault::BlipAll: {
      // Decision 0: every client; otherwise each client is in with a decision.
      const bool everyone = decisions.pick(2) == 0;
      const TimeMs until = now() + drawn_outage_ms();
      bool hit = false;
      for (auto& hp : handles) {
        if (!everyone && decisions.pick(2) == 0) continue;
        if (!hp->alive()) continue;
        cut_off(*hp, until, "blip");
        hit = true;
      }
      if (hit) ++struck[static_cast<std::size_t>(fault)];
      return;
    }
    case TimedFault::LagBurst:
    case TimedFault::ServerCrash:
    case TimedFault::LeaderCrash:
    case TimedFault::Partition:
    case TimedFault::SessionMoved:
      strike_ensemble(fault);
      return;
    case TimedFault::Burst: {
      Handle* h = handles[decisions.pick(n)].get();
      if (!h->alive()) return;
      ++struck[static_cast<std::size_t>(fault)];
      // Two or three drops, each a few ms after the last: the first breaks
      // the connection, a later one the reconnection or the retry after it.
      const int drops = 2 + static_cast<int>(decisions.pick(2));
      TimeMs at = now();
      for (int i = 0; i < drops; ++i) {
        loop.call_at(at, [this, h] {
          if (h->alive()) cut_off(*h, now(), "burst");
        });
        at += 1 + decisions.pick(20);
      }
      return;
    }
  }
}

TimeMs World::Impl::drawn_outage_ms() {
  return 1 + decisions.pick(static_cast<std::uint32_t>(std::max<TimeMs>(cfg.nemesis.pause_ms, 1)));
}

void World::Impl::cut_off(Handle& h, TimeMs until, std::string_view why) {
  h.cut_until = std::max(h.cut_until, until);
  record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
         static_cast<int>(FaultKind::DropBeforeApply), 0, 0, {},
         until > now() ? fmt::format("{}: connection broken, none for {} ms", why, until - now())
                     : fmt::format("{}: connection broken", why));
  if (h.conn) server_close(h.conn);
}

void World::Impl::crash(int process) {
  for (auto& hp : handles) {
    Handle& h = *hp;
    if (h.process != process || h.crashed) continue;
    client_close(h);
    h.crashed = true;
    set_state(h, SessionState::Closed);
    h.watches = {};
    h.held.clear();
  }
  // The process's coroutines vanish where they stand.
  std::vector<std::coroutine_handle<>> doomed;
  for (auto it = roots.begin(); it != roots.end();) {
    if (it->second.process == process) {
      doomed.push_back(it->second.h);
      it = roots.erase(it);
    } else {
      ++it;
    }
  }
  for (auto h : doomed) h.destroy();
}

std::function<void()> World::Impl::add_root(int process, Task<> task) {
  RootTask root = run_root(std::move(task));
  const std::uint64_t id = next_root++;
  root.h.promise().world = this;
  root.h.promise().id = id;
  roots.emplace(id, Root{process, root.h});
  return [this, id] {
    auto it = roots.find(id);
    if (it != roots.end()) it->second.h.resume();
  };
}

Handle& World::Impl::handle_of_client(int id) { return clients.at(static_cast<std::size_t>(id))->handle(); }

// --- World ---

World::World(WorldConfig config, DecisionSource& decisions)
    : impl_(std::make_unique<Impl>(std::move(config), decisions)) {}

World::~World() {
  // Tasks first: their frames unregister the requests they wait on.
  while (!impl_->roots.empty()) {
    auto h = impl_->roots.begin()->second.h;
    impl_->roots.erase(impl_->roots.begin());
    h.destroy();
  }
}

Client& World::open(std::string name, int session_timeout_ms, int process, Flavour flavour,
                    std::vector<int> servers) {
  Impl& m = *impl_;
  auto h = std::make_unique<Handle>();
  if (servers.empty()) {
    for (int i = 0; i < m.ensemble.size(); ++i) servers.push_back(i);
  }
  // zookeeper_init shuffles the resolved addresses once (addrvec_shuffle);
  // decision 0 everywhere keeps the given order.
  const auto n = static_cast<std::uint32_t>(servers.size());
  for (std::uint32_t i = 0; i + 1 < n; ++i) std::swap(servers[i], servers[i + m.decisions.pick(n - i)]);
  h->servers = std::move(servers);
  h->rules = &rules_of(flavour);
  h->index = static_cast<int>(m.handles.size());
  h->process = process >= 0 ? process : 1000000 + h->index;
  h->requested_timeout_ms = session_timeout_ms;
  h->timeout_ms = session_timeout_ms;
  int id = static_cast<int>(m.clients.size());
  h->views.push_back(id);
  m.clients.push_back(std::make_unique<SimClient>(m, *h, id, std::move(name)));
  Handle& ref = *h;
  m.handles.push_back(std::move(h));
  m.connect(ref);
  return *m.clients.back();
}

Client& World::share(Client& client, std::string name) {
  Impl& m = *impl_;
  Handle& h = static_cast<SimClient&>(client).handle();
  int id = static_cast<int>(m.clients.size());
  h.views.push_back(id);
  m.clients.push_back(std::make_unique<SimClient>(m, h, id, std::move(name)));
  return *m.clients.back();
}

int World::id(const Client& client) const { return static_cast<const SimClient&>(client).id(); }
int World::client_count() const { return static_cast<int>(impl_->clients.size()); }
Client& World::client(int id) { return *impl_->clients.at(static_cast<std::size_t>(id)); }

void World::spawn(Client& owner, Task<> task) {
  Impl& m = *impl_;
  m.loop.call_at(m.now(), m.add_root(static_cast<SimClient&>(owner).handle().process, std::move(task)));
}

int World::running_tasks() const { return static_cast<int>(impl_->roots.size()); }

void World::run_until(TimeMs t) {
  while (impl_->step(t)) {
  }
  if (!impl_->loop.stopped()) impl_->loop.advance_to(t);
}

bool World::run_until_done(TimeMs limit) { return run_until_done(limit, UINT64_MAX); }

bool World::run_until_done(TimeMs limit, std::uint64_t until_steps) {
  while (!impl_->roots.empty() && impl_->loop.steps() < until_steps && impl_->step(limit)) {
  }
  return impl_->roots.empty();
}

std::uint64_t World::steps() const { return impl_->loop.steps(); }
void World::set_step_limit(std::uint64_t limit) { impl_->loop.set_step_limit(limit); }
bool World::step_limit_reached() const { return impl_->loop.stopped(); }
int World::struck(int fault_class) const {
  return fault_class >= 0 && fault_class < kFaultClasses ? impl_->struck[static_cast<std::size_t>(fault_class)] : 0;
}

TimeMs World::now() const { return impl_->now(); }
Server& World::server() { return impl_->leader(); }
Server& World::server(int index) { return impl_->ensemble.server(index); }
bool World::crash_server(int index) { return impl_->crash_server(index, "crashed"); }
void World::restart_server(int index) { impl_->restart_server(index); }
void World::lag_burst(int index, TimeMs duration_ms) { impl_->lag_burst(index, impl_->now() + duration_ms); }
bool World::partition_server(int index, TimeMs duration_ms) { return impl_->partition_server(index, duration_ms); }
int World::server_count() const { return impl_->ensemble.size(); }
int World::server_of(const Client& client) const {
  const Handle& h = static_cast<const SimClient&>(client).handle();
  const Conn* c = h.conn ? impl_->find_conn(h.conn) : nullptr;
  return c && h.state == SessionState::Connected ? c->server : -1;
}
const Trace& World::trace() const { return impl_->trace; }
Trace& World::trace() { return impl_->trace; }
DecisionSource& World::decisions() { return impl_->decisions; }

void World::schedule(const ScriptedFault& fault) {
  Impl& m = *impl_;
  if (fault.at) {
    m.loop.call_at(*fault.at, [&m, fault] {
      if (fault.client == kAllClients) {
        // Correlated: every live client at the same instant, in handle order.
        for (auto& hp : m.handles) {
          if (hp->alive()) m.apply_fault(fault.kind, *hp, fault.duration_ms);
        }
        return;
      }
      m.apply_fault(fault.kind, m.handle_of_client(fault.client), fault.duration_ms);
    });
  } else {
    m.armed.push_back(Impl::Armed{fault});
  }
}

void World::inject(FaultKind kind, int client, TimeMs duration_ms) {
  Impl& m = *impl_;
  m.apply_fault(kind, m.handle_of_client(client), duration_ms);
}

void World::partition(int client, TimeMs duration_ms) {
  Impl& m = *impl_;
  Handle& h = m.handle_of_client(client);
  if (h.alive()) m.cut_off(h, m.now() + std::max<TimeMs>(duration_ms, 0), "partition");
}

void World::set_nemesis(const NemesisRates& rates) {
  impl_->cfg.nemesis = rates;
  impl_->start_timed_nemesis();
}

Error World::preset_node(const std::string& path, std::int32_t value) {
  if (!impl_->clients.empty()) return Error::BadArguments;
  return impl_->ensemble.preset_node(path, value);
}

Error World::set_sequence_counter(const std::string& path, std::int32_t value) {
  return impl_->ensemble.force_cversion(path, value);
}

}  // namespace zksim
