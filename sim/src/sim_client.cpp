// The Client a recipe holds in the simulated world (SimClient): each call
// made into a PendingOp and awaited; the library behind it is
// client_library.cpp.
#include "world_impl.h"

#include <algorithm>
#include <cstdlib>
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

}  // namespace zksim
