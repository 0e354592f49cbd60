// RealClient's session side: opening and closing the zhandle, session and
// watch events, completions, timers.
#include "real_impl.h"

#include <fmt/format.h>

#include <cstring>
#include <random>

namespace zksim {

// --- conversions ---

Error to_error(int rc) {
  Error e;
  return error_from_number(rc, e) ? e : Error::SystemError;
}

Stat to_stat(const ::Stat& s) {
  return Stat{s.czxid,   s.mzxid,    s.ctime,          s.mtime,      s.version, s.cversion,
              s.aversion, s.ephemeralOwner, s.dataLength, s.numChildren, s.pzxid};
}

CAcl::CAcl(const AclList& acl) {
  strings.reserve(acl.size() * 2);
  for (const Acl& a : acl) {
    strings.push_back(a.id.scheme);
    strings.push_back(a.id.id);
  }
  for (std::size_t i = 0; i < acl.size(); ++i) {
    ::ACL e{};
    e.perms = acl[i].perms;
    e.id.scheme = strings[2 * i].data();
    e.id.id = strings[2 * i + 1].data();
    entries.push_back(e);
  }
  vec.count = static_cast<std::int32_t>(entries.size());
  vec.data = entries.data();
}

std::shared_ptr<OpState> new_op(RealLoop& loop) {
  auto st = std::make_shared<OpState>();
  st->loop = &loop;
  return st;
}

// --- completions (C client threads) ---
namespace {

std::shared_ptr<OpState> take(const void* data) {
  auto* box = static_cast<std::shared_ptr<OpState>*>(const_cast<void*>(data));
  std::shared_ptr<OpState> st = std::move(*box);
  delete box;
  return st;
}

void finish(std::shared_ptr<OpState> st, int rc) {
  st->rc = rc;
  RealLoop* loop = st->loop;
  loop->post([st = std::move(st)] {
    if (auto w = std::exchange(st->waiter, {})) w.resume();
  });
}

}  // namespace

void void_done(int rc, const void* data) { finish(take(data), rc); }

void stat_done(int rc, const ::Stat* stat, const void* data) {
  auto st = take(data);
  if (stat) st->stat = to_stat(*stat);
  finish(std::move(st), rc);
}

void data_done(int rc, const char* value, int value_len, const ::Stat* stat,
               const void* data) {
  auto st = take(data);
  if (value && value_len > 0) st->text.assign(value, static_cast<std::size_t>(value_len));
  if (stat) st->stat = to_stat(*stat);
  finish(std::move(st), rc);
}

void string_done(int rc, const char* value, const void* data) {
  auto st = take(data);
  if (value) st->text = value;
  finish(std::move(st), rc);
}

void string_stat_done(int rc, const char* value, const ::Stat* stat, const void* data) {
  auto st = take(data);
  if (value) st->text = value;
  if (stat) st->stat = to_stat(*stat);
  finish(std::move(st), rc);
}

void strings_stat_done(int rc, const ::String_vector* strings, const ::Stat* stat,
                       const void* data) {
  auto st = take(data);
  if (strings) {
    for (std::int32_t i = 0; i < strings->count; ++i) st->children.emplace_back(strings->data[i]);
  }
  if (stat) st->stat = to_stat(*stat);
  finish(std::move(st), rc);
}

// --- watchers (C client threads) ---
namespace {

KeeperState to_keeper_state(int s) {
  if (s == ZOO_CONNECTED_STATE) return KeeperState::SyncConnected;
  if (s == ZOO_EXPIRED_SESSION_STATE) return KeeperState::Expired;
  if (s == ZOO_AUTH_FAILED_STATE) return KeeperState::AuthFailed;
  return KeeperState::Disconnected;  // ZOO_CONNECTING_STATE: the connection dropped
}

WatchedEvent to_event(int type, int state, const char* path) {
  WatchedEvent e;
  e.type = type == ZOO_SESSION_EVENT ? EventType::None : static_cast<EventType>(type);
  e.state = to_keeper_state(state);
  if (e.type != EventType::None && path) e.path = path;
  return e;
}

RealClient::Core* core_of(zhandle_t* zh) {
  return static_cast<RealClient::Core*>(const_cast<void*>(zoo_get_context(zh)));
}

}  // namespace

void default_watcher_fn(zhandle_t* zh, int type, int state, const char*, void*) {
  if (type != ZOO_SESSION_EVENT) return;  // only watch flags set one, and none is used
  RealClient::Core* core = core_of(zh);
  std::weak_ptr<RealClient::Core> weak = core->weak_from_this();
  core->loop.post([weak, state] {
    if (auto c = weak.lock()) c->on_session_event(state);
  });
}

void watch_fn(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  RealClient::Core* core = core_of(zh);
  std::weak_ptr<RealClient::Core> weak = core->weak_from_this();
  auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ctx));
  WatchedEvent e = to_event(type, state, path);
  core->loop.post([weak, id, e] {
    if (auto c = weak.lock()) c->on_watch_event(id, e);
  });
}

// --- Core (loop thread) ---

void RealClient::Core::on_session_event(int c_state) {
  if (state == SessionState::Closed || state == SessionState::Expired) return;
  KeeperState ks = to_keeper_state(c_state);
  if (ks == KeeperState::SyncConnected) {
    state = SessionState::Connected;
    session = SessionId{zoo_client_id(zh)->client_id};
  } else if (ks == KeeperState::Expired) {
    state = SessionState::Expired;
  } else if (ks == KeeperState::Disconnected) {
    state = SessionState::Connecting;
  }
  WatchedEvent e{EventType::None, ks, ""};
  // Copies: a watcher may add or remove listeners.
  std::vector<Watcher> all;
  if (default_watcher) all.push_back(default_watcher);
  for (const auto& [id, l] : listeners) all.push_back(l);
  for (Watcher& w : all) w(e);
}

void RealClient::Core::on_watch_event(std::uint64_t id, const WatchedEvent& e) {
  if (state == SessionState::Closed) return;
  auto it = watchers.find(id);
  if (it == watchers.end()) return;
  if (e.type == EventType::None) {
    Watcher w = it->second.fn;  // session events leave it registered
    w(e);
    return;
  }
  Watcher w = std::move(it->second.fn);
  watchers.erase(it);
  w(e);
}

std::uint64_t RealClient::Core::add_watcher(Watcher w, const std::string& path,
                                            WatcherType kind) {
  if (!w) return 0;
  std::uint64_t id = next_watch++;
  watchers.emplace(id, Registered{std::move(w), path, kind});
  return id;
}

void RealClient::Core::drop_watchers(const std::string& path, WatcherType type) {
  std::erase_if(watchers, [&](const auto& entry) {
    const Registered& r = entry.second;
    return r.path == path && (type == WatcherType::Any || r.kind == type);
  });
}

// --- RealClient ---

RealClient::RealClient(std::shared_ptr<Core> core) : core_(std::move(core)) {}

std::unique_ptr<RealClient> RealClient::open(RealLoop& loop, std::string hosts,
                                             int session_timeout_ms) {
  auto core = std::make_shared<Core>(loop, std::move(hosts), session_timeout_ms);
  core->zh = zookeeper_init(core->hosts.c_str(), default_watcher_fn, session_timeout_ms,
                            nullptr, core.get(), 0);
  if (!core->zh) return nullptr;
  return std::unique_ptr<RealClient>(new RealClient(std::move(core)));
}

RealClient::~RealClient() {
  if (core_->zh) zookeeper_close(core_->zh);
  core_->zh = nullptr;
}

SessionState RealClient::state() const { return core_->state; }
SessionId RealClient::session_id() const { return core_->session; }
void RealClient::set_default_watcher(Watcher watcher) { core_->default_watcher = std::move(watcher); }

std::uint64_t RealClient::add_session_listener(Watcher listener) {
  core_->listeners.emplace(core_->next_listener, std::move(listener));
  return core_->next_listener++;
}

void RealClient::remove_session_listener(std::uint64_t id) { core_->listeners.erase(id); }

std::string RealClient::unique_id() {
  // Not the session id: that is 0 until connected, and recipes name their
  // first node before. A random tag per handle (the real backend need not
  // be deterministic) and a counter.
  if (core_->unique_tag.empty()) {
    std::random_device rd;
    core_->unique_tag = fmt::format("{:08x}{:08x}", rd(), rd());
  }
  return fmt::format("{}-{}", core_->unique_tag, core_->next_unique++);
}

TimeMs RealClient::now() const { return core_->loop.now(); }
void RealClient::annotate(std::string text) { core_->log.push_back(std::move(text)); }
const std::vector<std::string>& RealClient::log() const { return core_->log; }

namespace {

// Resumes at the loop's next turn, after what is already posted.
struct Yield {
  RealLoop& loop;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { loop.post([h] { h.resume(); }); }
  void await_resume() const noexcept {}
};

// Resumes at loop time `until`.
struct TimerAwaiter {
  RealLoop& loop;
  TimeMs until;
  std::uint64_t call = 0;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    call = loop.call_at(until, [this, h] {
      call = 0;
      h.resume();
    });
  }
  void await_resume() const noexcept {}
  ~TimerAwaiter() {
    if (call) loop.cancel_call(call);
  }
};

// Resumes when the signal is set (true) or at loop time `until` (false).
struct SignalOrTimer {
  RealLoop& loop;
  Signal::Awaiter on_signal;
  TimeMs until;
  std::uint64_t call = 0;
  bool timed_out = false;
  bool await_ready() const noexcept { return on_signal.await_ready(); }
  void await_suspend(std::coroutine_handle<> h) {
    on_signal.await_suspend(h);
    call = loop.call_at(until, [this, h] {
      call = 0;
      timed_out = true;
      on_signal.detach();
      h.resume();
    });
  }
  bool await_resume() noexcept {
    if (call) loop.cancel_call(std::exchange(call, 0));
    return !timed_out;
  }
  ~SignalOrTimer() {
    if (call) loop.cancel_call(call);
  }
};

}  // namespace

Task<Result<void>> RealClient::close() {
  if (core_->state == SessionState::Closed || core_->state == SessionState::Expired) {
    co_return Result<void>();
  }
  core_->state = SessionState::Closed;
  int rc = zookeeper_close(core_->zh);
  core_->zh = nullptr;
  // The requests the close failed complete first, as in the simulator.
  Yield y{core_->loop};
  co_await y;
  co_return Result<void>(rc == ZOK ? Error::Ok : to_error(rc));
}

Task<void> RealClient::sleep(TimeMs ms) {
  TimerAwaiter t{core_->loop, core_->loop.now() + std::max<TimeMs>(ms, 0)};
  co_await t;
}

Task<bool> RealClient::wait_for(Signal s, TimeMs timeout_ms) {
  if (timeout_ms < 0) {
    co_await s.wait();
    co_return true;
  }
  SignalOrTimer t{core_->loop, s.wait(), core_->loop.now() + timeout_ms};
  bool set = co_await t;
  co_return set;
}

Task<void> RealClient::preemption_point() {
  TimerAwaiter t{core_->loop, core_->loop.now()};
  co_await t;
}

void RealClient::post(Task<> task) { core_->loop.spawn(std::move(task)); }

void RealClient::background(Task<> call) { core_->loop.start(std::move(call)); }

namespace {

// The second handle of expire_from_outside: its default watcher posts its
// session state to the loop.
struct Intruder {
  RealLoop* loop;
  std::shared_ptr<int> state = std::make_shared<int>(0);
  Signal changed;
};

void intruder_fn(zhandle_t* zh, int type, int state, const char*, void*) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* in = static_cast<Intruder*>(const_cast<void*>(zoo_get_context(zh)));
  auto seen = in->state;
  Signal changed = in->changed;
  in->loop->post([seen, changed, state]() mutable {
    *seen = state;
    changed.set();
  });
}

}  // namespace

Task<Result<void>> RealClient::expire_from_outside(std::string server_hosts) {
  if (!core_->zh || core_->state != SessionState::Connected) co_return Error::InvalidState;
  clientid_t id = *zoo_client_id(core_->zh);
  Intruder in{&core_->loop};
  zhandle_t* other =
      zookeeper_init(server_hosts.c_str(), intruder_fn, core_->timeout_ms, &id, &in, 0);
  if (!other) co_return Error::SystemError;
  SignalOrTimer t{core_->loop, in.changed.wait(), core_->loop.now() + 10'000};
  bool connected = co_await t;
  connected = connected && *in.state == ZOO_CONNECTED_STATE;
  // Closing the attached handle ends the session on the server.
  zookeeper_close(other);
  co_return connected ? Result<void>() : Result<void>(Error::SystemError);
}

}  // namespace zksim
