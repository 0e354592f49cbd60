// The lease locks' narrow interfaces (zksim/lease/clients.h) on real
// servers, so that the recipes of zksim/lease/locks.h run unchanged on
// Debian's redis-server and etcd (label lease-real):
// - Loop: a single-threaded real-time scheduler for Task<> coroutines;
// - RealProcess: a Process whose tasks run on a Loop, with the faults the
//   tests need (a stop-the-world pause, suspended helpers);
// - RealRedis: a RedisClient over hiredis (tests/redis/real_fixture.h);
// - RealSubscriber: a RedisSubscriber over a second hiredis connection in
//   subscribe mode, read by the Loop;
// - RealEtcd: an EtcdClient over etcd's gRPC gateway with libcurl
//   (tests/etcd/gateway.h).
// The clients also keep, on their process, what the checkers need to know
// of a run (checkers.h): when it last heard from a server, and its leases.
#pragma once

#include "zksim/lease/checkers.h"
#include "zksim/lease/clients.h"
#include "zksim/lease/world.h"  // LeaseSpan

#include "gateway.h"
#include "real_fixture.h"

#include <curl/curl.h>

#include <chrono>
#include <coroutine>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zksim::lease::test {

class RealProcess;

// Runs coroutines on the calling thread in real time: a timer queue on the
// steady clock, and HTTP streams (libcurl's multi interface) and sockets
// (a Redis subscriber's) polled while it waits for the next timer. Every
// resumption goes through the queue, so the loop knows which task it
// resumes and defers a task of a paused process. Server calls block the
// loop (the servers are local): only sleeps, streams and waits suspend.
class Loop {
 public:
  using Clock = std::chrono::steady_clock;

  Loop();
  // Destroys the tasks still suspended (helpers, or what a run's limit cut
  // short) and closes their streams.
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // True time for the checkers: ms of the steady clock since the loop was made.
  TimeMs now() const;
  // The loop time (rounded down) at which the system clock reads `wall_ms`.
  TimeMs at_wall_ms(TimeMs wall_ms) const;
  // Runs `task` as one of p's; a helper is one a run does not wait for.
  void spawn(RealProcess& p, Task<> task, bool helper);
  // Runs until every task that is not a helper finished (true), or
  // `limit_ms` of loop time passed (false).
  bool run(TimeMs limit_ms);

  // Suspends the calling task for `ms` (0: to the back of the queue).
  Task<> sleep(TimeMs ms);
  // POSTs `body` to `url` and feeds each line of the reply to `on_line`
  // until it returns false or the reply ends; suspends the calling task
  // meanwhile. True when `on_line` stopped it, false when the reply ended
  // (or failed) first.
  Task<bool> stream(std::string url, std::string body, std::function<bool(std::string_view)> on_line);

  // A socket the loop polls while it waits, and what reads it when it has
  // input; polled for as long as its owner keeps it.
  struct Input {
    int fd = -1;
    std::function<void()> on_input;
  };
  void poll(std::weak_ptr<Input> input);

  // A suspended task's coroutine; the awaiter clears it when destroyed, so
  // a timer that outlives the task finds nothing to resume.
  struct Waiter {
    std::coroutine_handle<> handle;
  };
  // A wait that ends at its timeout, or sooner by wake().
  struct Wakeup {
    std::shared_ptr<Waiter> waiter;  // while a task waits
    int task = -1;
  };
  // Suspends the calling task until wake(w), or `timeout_ms` passed.
  Task<> wait(Wakeup& w, TimeMs timeout_ms);
  // Resumes the task waiting on `w`, if any, as soon as its process lets it.
  void wake(Wakeup& w);

 private:
  struct Stream;
  struct Timer {
    Clock::time_point at;
    std::uint64_t seq;
    std::shared_ptr<Waiter> waiter;
    int task;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct Spawned {
    Task<> task;
    RealProcess* process;
    bool helper;
  };

  static std::size_t on_stream_data(char* data, std::size_t size, std::size_t n, void* stream);
  void wake_at(Clock::time_point at, std::shared_ptr<Waiter> waiter, int task);
  void fire(Timer t);
  // Moves the streams that ended to the timer queue.
  void reap_streams();
  // Waits until `timeout_ms` passed or a stream or an input has something
  // to read, and reads it.
  void poll_io(int timeout_ms);

  Clock::time_point start_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t next_seq_ = 0;
  std::vector<Spawned> tasks_;
  int current_ = -1;  // the task being resumed
  CURLM* multi_;
  std::map<CURL*, std::shared_ptr<Stream>> streams_;
  std::vector<std::weak_ptr<Input>> inputs_;
};

class RealProcess final : public Process {
 public:
  RealProcess(Loop& loop, std::string name) : loop_(loop), name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  // The system clock (ms since the epoch).
  TimeMs clock_ms() const override;
  Task<> sleep(TimeMs ms) override { return loop_.sleep(ms); }
  void note(std::string_view text) override;
  void spawn(Task<> task) override { loop_.spawn(*this, std::move(task), /*helper=*/true); }

  Loop& loop() { return loop_; }

  // Faults, from now on. A pause stops every task of the process (a GC
  // pause); suspend_helpers only its spawned helpers (a lease's keepalive
  // loop), while its own work goes on. Either takes hold at a task's next
  // suspension.
  void pause(TimeMs ms);
  void suspend_helpers(TimeMs ms);
  // Until when a task (a helper or not) of this process must wait.
  Loop::Clock::time_point held_until(bool helper) const {
    return helper ? std::max(paused_until_, helpers_until_) : paused_until_;
  }
  // The pauses so far, as [start, end) in loop time.
  const std::vector<std::pair<TimeMs, TimeMs>>& pauses() const { return pauses_; }
  // Whether a pause or a suspension of its helpers struck the process at
  // some time in [from, to] (LeaseHold.cut_off).
  bool cut_off(TimeMs from, TimeMs to) const;

  // For the checkers (LeaseHold.grounded, lease_end): the loop time of the
  // last reply or watch event the process received, -1 before any; its
  // leases in the order they began (lease_end: kNever while it lasts).
  TimeMs last_heard() const { return last_heard_; }
  void heard() { last_heard_ = loop_.now(); }
  std::vector<LeaseSpan>& leases() { return leases_; }
  // A Redis node's deadline for the process's lease, from a command sent at
  // `sent` that gave or extended it. Counted as the lease world counts it
  // (redis_host.cpp): the process holds a lease while `quorum` of its
  // nodes' deadlines lie ahead, until the quorum-th latest; the current
  // lease is extended while it runs, else a new one begins.
  void lease_until(int node, TimeMs sent, TimeMs deadline, int quorum);

  // The process's notes and calls, one line each, with the loop time.
  const std::vector<std::string>& trace() const { return trace_; }

 private:
  Loop& loop_;
  std::string name_;
  Loop::Clock::time_point paused_until_{};
  Loop::Clock::time_point helpers_until_{};
  std::vector<std::pair<TimeMs, TimeMs>> pauses_;
  std::vector<std::pair<TimeMs, TimeMs>> suspensions_;  // of the helpers
  TimeMs last_heard_ = -1;
  std::vector<LeaseSpan> leases_;
  std::vector<TimeMs> redis_deadlines_;  // per node
  std::vector<std::string> trace_;
};

// One hiredis connection to a redis-server (redis::Connection, whose
// timeout is 2 s). A command that failed in hiredis (no reply in time, a
// broken connection) yields nullopt and drops the connection; the next
// command opens a new one, as a client library would. The commands that
// give or extend a lease in the lease world (harness.cpp: a SET with PX
// answered OK, an RLock's tryLock answered nil, its renewal answered 1)
// set this node's deadline for the process's lease (RealProcess::
// lease_until). `node` of the lock's nodes, `quorum` of which make a lease
// (RedLock's majority; else 1).
class RealRedis final : public RedisClient {
 public:
  RealRedis(RealProcess& p, int port, int node = 0, int quorum = 1)
      : process_(p), port_(port), node_(node), quorum_(quorum) {}
  Task<std::optional<redis::Reply>> call(redis::Command command) override;

 private:
  // The deadline the server has just set for `key`, in loop time: from its
  // PEXPIRETIME, asked before any other command (Redis counts the key gone
  // once its clock passes that ms). The reply's time plus the lease would
  // be late by the reply's latency, and a waiter that retries at the
  // server's deadline (RLock's, at its PTTL) takes the lock within that
  // latency: belief-exclusion would not excuse the holder. `bound` (no
  // earlier than the server's) when the server did not say.
  TimeMs deadline_of(const std::string& key, TimeMs bound);

  RealProcess& process_;
  int port_;
  int node_;
  int quorum_;
  std::unique_ptr<redis::Connection> connection_;
};

// A second hiredis connection to a redis-server, in subscribe mode, opened
// at the first subscribe. SUBSCRIBE and UNSUBSCRIBE block the loop until
// the server confirms them (as a command does); between them the loop
// polls the connection and files each message under its channel, waking
// the task that waits for one (its process's pause permitting). A message
// does not count as hearing from the server (last_heard), as in the lease
// world's Redis, where only replies do. A connection that fails is
// dropped, with whatever it had not yet read; the next subscribe opens a
// new one.
class RealSubscriber final : public RedisSubscriber {
 public:
  RealSubscriber(RealProcess& p, int port) : process_(p), port_(port) {}
  ~RealSubscriber() override;
  RealSubscriber(const RealSubscriber&) = delete;
  RealSubscriber& operator=(const RealSubscriber&) = delete;

  Task<bool> subscribe(std::string channel) override;
  Task<> unsubscribe(std::string channel) override;
  Task<std::optional<std::string>> next_message(std::string channel, TimeMs timeout_ms) override;

 private:
  // Sends `command` and reads until the server confirms it with a reply of
  // `kind` for `channel`; false when the connection failed first.
  bool confirmed(const redis::Command& command, std::string_view kind, const std::string& channel);
  // Files a message; true when `reply` is the confirmation (kind, channel).
  bool take(void* reply, std::string_view kind, const std::string& channel);
  // Files the messages hiredis has read and not yet parsed.
  void take_buffered();
  // Reads what the socket has (the loop saw input).
  void on_input();
  void drop(std::string_view why);

  RealProcess& process_;
  int port_;
  redisContext* context_ = nullptr;
  std::shared_ptr<Loop::Input> input_;
  std::map<std::string, std::deque<std::string>> inbox_;
  std::map<std::string, Loop::Wakeup> waiting_;
};

// etcd 3.4 through its gRPC gateway at `endpoint` ("http://127.0.0.1:port").
// A unary call is etcd::test::Gateway::call (a new HTTP connection, a 10 s
// deadline); a reply that is neither a response nor one of etcd's errors
// (a curl error, an error the model does not know) is no answer. Every
// reply must read back, by the gateway's to_json, as exactly what the
// server sent (a test failure otherwise): the recipe sees all of it.
// wait_delete is a watch stream (POST /v3/watch) on the loop. The process's
// leases: a grant begins one; it ends at the deadline its last grant or
// keepalive gave it, once a keepalive finds it gone, or when revoked.
class RealEtcd final : public EtcdClient {
 public:
  RealEtcd(RealProcess& p, std::string endpoint) : process_(p), endpoint_(endpoint), gateway_(std::move(endpoint)) {}

  Task<Answer<etcd::RangeResponse>> range(etcd::RangeRequest request) override;
  Task<Answer<etcd::TxnResponse>> txn(etcd::TxnRequest request) override;
  Task<Answer<etcd::DeleteRangeResponse>> delete_range(etcd::DeleteRangeRequest request) override;
  Task<Answer<etcd::LeaseGrantResponse>> lease_grant(etcd::LeaseGrantRequest request) override;
  Task<Answer<etcd::LeaseRevokeResponse>> lease_revoke(etcd::LeaseId id) override;
  Task<std::optional<etcd::LeaseKeepAliveResponse>> lease_keep_alive(etcd::LeaseId id) override;
  Task<bool> wait_delete(std::string key, std::int64_t from_revision) override;

  // After a run, for the checkers: a lease whose end the process never
  // heard of (its keepalive loop stopped first) and that the server no
  // longer has (LeaseTimeToLive) ended at the last deadline it was given.
  void settle_leases();

 private:
  // The gateway's reply to `body` at `path`, noted; nullopt when it sent none.
  std::optional<etcd::test::json> ask(const std::string& path, const etcd::test::json& body);
  void lease_ended(etcd::LeaseId id, TimeMs at);

  struct Lease {
    std::size_t span;  // in process_.leases()
    TimeMs deadline;   // as of the last grant or keepalive
  };

  RealProcess& process_;
  std::string endpoint_;
  etcd::test::Gateway gateway_;
  std::map<etcd::LeaseId, Lease> leases_;
};

}  // namespace zksim::lease::test
