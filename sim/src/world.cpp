// The simulated world: its tasks, the network and the World API. The
// server side of connections is server_host.cpp, the client library
// client_library.cpp, the faults nemesis.cpp and server_faults.cpp.
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
      trace(cfg.keep_trace),
      net(loop, d, cfg.latency_ms, cfg.delay_choices,
          Network::Hooks{
              .at_server = [this](std::uint64_t conn, UpMsg& msg) { at_server(conn, msg); },
              .at_client = [this](std::uint64_t conn, DownMsg& msg) { at_client(conn, msg); },
              .actor = [](int handle) { return actor(handle, Actor::Messages); },
          }) {
  loop.call_at(cfg.container_check_ms, [this] { reap(); });
  start_timed_nemesis();
}

// --- events ---

bool World::Impl::step(TimeMs limit) {
  answers_in_step = 0;
  return loop.step(limit);
}

// --- network ---

void World::Impl::send_up(Handle& h, UpMsg msg) {
  if (!net.find(h.conn)) return;
  h.last_send = now();
  net.send_up(h.conn, std::move(msg));
}

void World::Impl::at_server(std::uint64_t conn, UpMsg& msg) {
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

void World::Impl::at_client(std::uint64_t conn, DownMsg& msg) {
  Handle& h = *handles[static_cast<std::size_t>(net.find(conn)->handle)];
  if (h.conn == conn) on_down(h, msg);
}

void World::Impl::server_close(std::uint64_t conn) {
  Conn* cp = net.find(conn);
  if (!cp || !cp->server_open) return;
  Conn& c = *cp;
  DownMsg closed;
  closed.kind = DownMsg::Closed;
  net.send_down(conn, std::move(closed));
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
  Conn* cp = net.find(id);
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
  net.free_if_done(id);
}

// --- tasks ---

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
  const Conn* c = h.conn ? impl_->net.find(h.conn) : nullptr;
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
