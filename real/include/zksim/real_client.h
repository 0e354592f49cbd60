// The real backend: zksim::Client over ZooKeeper's C client (libzookeeper-mt,
// 3.8), so recipes and conformance cases run against a real server.
//
// Threads: the C client runs its own I/O and completion threads. Its
// completions and watcher callbacks only post closures to a RealLoop; every
// coroutine, watcher and session listener runs on the thread that drives the
// loop (the one calling RealLoop::run_*), never on a C client thread.
//
//   zksim::RealLoop loop;
//   auto zk = zksim::RealClient::open(loop, "127.0.0.1:2181", 4000);
//   loop.spawn(my_recipe(*zk));
//   loop.run_until_done(10'000);          // wall-clock ms
//
// Semantics are the C client's, as the simulator models them: paths checked
// before sending (BadArguments); ConnectionLoss for requests in flight when
// the connection drops; InvalidState after expiry or close; session events
// reach the default watcher, then the session listeners, then every
// registered watcher. add_watch returns Unimplemented: Debian's 3.8 C client
// has no addWatch call. Times are real (std::chrono::steady_clock) and
// nothing here is deterministic.
#pragma once

#include "zksim/client.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace zksim {

// A single-threaded event loop: a queue of closures that other threads may
// post to, timers, and spawned tasks.
class RealLoop {
 public:
  RealLoop();
  // Destroys unfinished tasks where they are suspended. REQUIRES: every
  // RealClient opened on this loop is destroyed first.
  ~RealLoop();
  RealLoop(const RealLoop&) = delete;
  RealLoop& operator=(const RealLoop&) = delete;

  // Thread-safe: `fn` runs on the loop thread, after closures posted earlier.
  void post(std::function<void()> fn);
  // Milliseconds since the loop was made (steady clock).
  TimeMs now() const;
  // Loop thread only: runs `fn` once now() >= t; the id cancels it.
  std::uint64_t call_at(TimeMs t, std::function<void()> fn);
  void cancel_call(std::uint64_t id);

  // Loop thread only: starts `task` at the next turn of the loop.
  void spawn(Task<> task);
  // Loop thread only: starts `task` now; it runs until it first waits
  // before start returns, and the loop owns it from then on.
  void start(Task<> task);
  int running_tasks() const;
  // Drives the loop on the calling thread until every spawned task finished
  // (true) or `timeout_ms` passed (false).
  bool run_until_done(TimeMs timeout_ms);
  // Drives the loop on the calling thread for `ms`.
  void run_for(TimeMs ms);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

class RealClient final : public Client {
 public:
  // A handle that starts connecting to `hosts` ("127.0.0.1:2181") now.
  // Returns null if the C client refuses the arguments.
  static std::unique_ptr<RealClient> open(RealLoop& loop, std::string hosts,
                                          int session_timeout_ms = 4000);
  // Closes the session if it is still open (blocks for the close reply).
  ~RealClient() override;

  Task<Result<CreateResponse>> create(std::string path, std::string data, CreateMode mode,
                                      AclList acl = open_acl(),
                                      std::int64_t ttl_ms = -1) override;
  Task<Result<void>> remove(std::string path, Version version = kAnyVersion) override;
  Task<Result<Stat>> exists(std::string path, Watcher watcher = {}) override;
  Task<Result<DataResponse>> get_data(std::string path, Watcher watcher = {}) override;
  Task<Result<Stat>> set_data(std::string path, std::string data,
                              Version version = kAnyVersion) override;
  Task<Result<ChildrenResponse>> get_children(std::string path, Watcher watcher = {}) override;
  Task<MultiResult> multi(std::vector<MultiOp> ops) override;
  Task<Result<void>> sync(std::string path) override;
  // Always Unimplemented: the C client of Debian 12 (3.8.0) has no addWatch.
  Task<Result<void>> add_watch(std::string path, AddWatchMode mode, Watcher watcher) override;
  Task<Result<void>> remove_all_watches(std::string path, WatcherType type) override;
  Task<Result<void>> close() override;

  SessionState state() const override;
  SessionId session_id() const override;
  void set_default_watcher(Watcher watcher) override;
  std::uint64_t add_session_listener(Watcher listener) override;
  void remove_session_listener(std::uint64_t id) override;
  std::string unique_id() override;
  TimeMs now() const override;
  Task<void> sleep(TimeMs ms) override;
  Task<bool> wait_for(Signal s, TimeMs timeout_ms) override;
  // Lets the loop run what other threads posted before it resumes.
  Task<void> preemption_point() override;
  // Spawned on the loop.
  void post(Task<> task) override;
  // Appended to the loop's log (RealClient::log()).
  void annotate(std::string text) override;

  // Expires this handle's session from outside, as another process holding
  // its id and password could: a second handle attaches to the session (the
  // server then drops this handle's connection) and closes it. This handle
  // learns Disconnected, then Expired when it reconnects. For tests.
  // `server_hosts` is where the second handle connects. REQUIRES: this
  // handle cannot reach the server until this returns (it would re-attach
  // to the session before the close); tests route it through a TcpGate.
  Task<Result<void>> expire_from_outside(std::string server_hosts);
  // The annotations made so far.
  const std::vector<std::string>& log() const;

  struct Core;

 private:
  // Started on the loop at once: the request goes out now, and its
  // completion is the C client's, posted to the loop like the others.
  void background(Task<> call) override;
  explicit RealClient(std::shared_ptr<Core> core);
  std::shared_ptr<Core> core_;
};

}  // namespace zksim
