// Background calls (Client::in_background; FlavourRules::completions;
// docs/flavours.md): where each client library runs the completion of an
// asynchronous call, and in what order with its watchers. Every lag is a
// decision, so one decision list replays one interleaving.
#include "world_fixture.h"

#include "zksim/flavour.h"

#include <string>
#include <utility>
#include <vector>

namespace zksim::test {
namespace {

// What ran, in order, and when.
struct Log {
  std::vector<std::pair<std::string, TimeMs>> entries;
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, t] : entries) out.push_back(name);
    return out;
  }
  TimeMs time_of(const std::string& name) const {
    for (const auto& [n, t] : entries) {
      if (n == name) return t;
    }
    return -1;
  }
};

// The time of the last trace event of `kind` on `path`.
TimeMs last_of(const World& w, TraceKind kind, const std::string& path) {
  TimeMs t = -1;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == kind && e.path == path) t = e.time;
  }
  return t;
}

// Creates /a and /b, each with an exists watch that logs "watch /a" or
// "watch /b" when it runs.
Task<> watch_two(Client& zk, Log& log) {
  const std::vector<std::string> paths{"/a", "/b"};
  for (const std::string& p : paths) {
    co_await zk.create(p, "", CreateMode::Persistent);
    Watcher note = [&log, &zk, p](const WatchedEvent&) { log.entries.emplace_back("watch " + p, zk.now()); };
    co_await zk.exists(p, std::move(note));
  }
}

// Deletes /a and /b in the background. Each delete's watch event reaches
// the client before its reply, so the client receives, in this order:
// the event of /a, the reply to "remove /a", the event of /b, the reply to
// "remove /b".
Task<> remove_two_in_background(Client& zk, Log& log, bool& returned_first) {
  const std::vector<std::string> paths{"/a", "/b"};
  for (const std::string& p : paths) {
    zk.in_background(zk.remove(p), [&log, &zk, p](Result<void> r) {
      EXPECT_TRUE(r) << error_name(r.error());
      log.entries.emplace_back("removed " + p, zk.now());
    });
  }
  returned_first = log.entries.empty();
  co_return;
}

// Sets up watch_two, then runs remove_two_in_background with the threads'
// lags `lags` (in arrival order: the steps of the event of /a, the reply
// to /a, the event of /b, the reply to /b, for the flavours that draw them).
Log arrivals_with_lags(Flavour f, std::deque<std::uint32_t> lags, TimeMs* reply = nullptr,
                       std::size_t* lags_left = nullptr) {
  ThreadLags d;
  Rig r(f, d);
  Log log;
  run(r.world, r.zk, watch_two(r.zk, log));
  d.lags = std::move(lags);
  bool returned_first = false;
  run(r.world, r.zk, remove_two_in_background(r.zk, log, returned_first));
  r.world.run_until(r.world.now() + 10);
  EXPECT_TRUE(returned_first) << flavour_name(f) << ": a completion ran before in_background returned";
  if (reply) *reply = last_of(r.world, TraceKind::Response, "/a");
  if (lags_left) *lags_left = d.lags.size();
  return log;
}

// ClientCnxn.finishPacket queues a packet with a callback on the
// EventThread's one queue (queuePacket), where the SendThread also queues
// each watch event as it reads it (queueEvent); Curator calls the
// inBackground callback from that ZooKeeper callback
// (CuratorFrameworkImpl.processBackgroundOperation).
TEST(BackgroundCalls, ACuratorCallbackRunsOnTheEventThreadAfterAnEarlierWatchEventAndBeforeALaterOne) {
  TimeMs reply = -1;
  // The event of /a waits 2 ms; the others would run at once.
  const Log log = arrivals_with_lags(Flavour::Curator, {2, 0, 0, 0}, &reply);
  EXPECT_EQ(log.names(), (std::vector<std::string>{"watch /a", "removed /a", "watch /b", "removed /b"}));
  EXPECT_EQ(log.time_of("removed /a"), reply + 2);
}

// The SendThread wakes a caller blocked in a synchronous call itself
// (finishPacket, p.cb == null: notifyAll), while the callback of an
// earlier background call may still wait on the EventThread.
TEST(BackgroundCalls, ACuratorCallbackCanRunAfterTheCallerHasMovedOn) {
  ThreadLags d;
  Rig r(Flavour::Curator, d);
  run(r.world, r.zk, [](Client& zk) -> Task<> { co_await zk.exists("/"); }(r.zk));
  d.lags = {2, 0};  // the create's callback 2 ms late; the caller at once
  Log log;
  run(r.world, r.zk, [](Client& zk, Log& log) -> Task<> {
    zk.in_background(zk.create("/n", "", CreateMode::Persistent),
                     [&log, &zk](Result<CreateResponse> made) { log.entries.emplace_back(made ? made->path : "failed", zk.now()); });
    auto st = co_await zk.exists("/n");  // sent after the create, answered after it
    EXPECT_TRUE(st);
    log.entries.emplace_back("caller saw /n", zk.now());
  }(r.zk, log));
  EXPECT_EQ(log.names(), (std::vector<std::string>{"caller saw /n", "/n"}));
  EXPECT_EQ(log.time_of("/n"), last_of(r.world, TraceKind::Response, "/n") + 2);
}

// kazoo's SequentialThreadingHandler has two workers: AsyncResult.set puts
// the rawlink callbacks on completion_queue (_do_callbacks), watch events
// go on callback_queue (dispatch_callback). Each runs its queue in order;
// between the two there is no order.
TEST(BackgroundCalls, AKazooCompletionRunsOnItsOwnWorkerInNoOrderWithTheWatchCallbacks) {
  TimeMs reply = -1;
  // The watch callback of /a waits 2 ms: the completions, on their own
  // worker, do not wait for it.
  const Log first = arrivals_with_lags(Flavour::Kazoo, {2, 0, 0, 0}, &reply);
  EXPECT_EQ(first.names(), (std::vector<std::string>{"removed /a", "removed /b", "watch /a", "watch /b"}));
  EXPECT_EQ(first.time_of("removed /a"), reply);
  // The completion of /a waits 2 ms: the callback of /b, which arrived
  // after it, runs first.
  const Log second = arrivals_with_lags(Flavour::Kazoo, {0, 2, 0, 0});
  EXPECT_EQ(second.names(), (std::vector<std::string>{"watch /a", "watch /b", "removed /a", "removed /b"}));
}

// Curator's EventThread and kazoo's completion worker each take their
// queue in order: a completion never overtakes an earlier one.
TEST(BackgroundCalls, CompletionsRunInReplyOrder) {
  for (Flavour f : {Flavour::Curator, Flavour::Kazoo}) {
    ThreadLags d;
    Rig r(f, d);
    run(r.world, r.zk, [](Client& zk) -> Task<> { co_await zk.exists("/"); }(r.zk));
    d.lags = {2, 0};
    Log log;
    run(r.world, r.zk, [](Client& zk, Log& log) -> Task<> {
      const std::vector<std::string> paths{"/x", "/y"};
      for (const std::string& p : paths) {
        zk.in_background(zk.create(p, "", CreateMode::Persistent),
                         [&log, &zk](Result<CreateResponse> made) { log.entries.emplace_back(made->path, zk.now()); });
      }
      co_return;
    }(r.zk, log));
    const TimeMs reply = last_of(r.world, TraceKind::Response, "/x");
    EXPECT_EQ(log.entries, (std::vector<std::pair<std::string, TimeMs>>{{"/x", reply + 2}, {"/y", reply + 2}}))
        << flavour_name(f);
  }
}

// The C client's completion thread runs completions and watcher events in
// the order they arrived (mt_adaptor.c do_completion), and the simulated C
// recipe is that thread: nothing is drawn.
TEST(BackgroundCalls, TheCClientsCompletionRunsAtItsReplyInArrivalOrderAndDrawsNothing) {
  TimeMs reply = -1;
  std::size_t left = 0;
  const Log log = arrivals_with_lags(Flavour::C, {2, 2, 2, 2}, &reply, &left);
  EXPECT_EQ(log.names(), (std::vector<std::string>{"watch /a", "removed /a", "watch /b", "removed /b"}));
  EXPECT_EQ(log.time_of("removed /a"), reply);
  EXPECT_EQ(left, 4u);
}

// zoo_acreate refuses a bad path with its return value and never calls the
// completion; Java's EventThread and kazoo's completion worker get even a
// call answered without the server (ClientCnxn.queuePacket → conLossPacket
// on a closed handle; KazooClient._call → set_exception).
TEST(BackgroundCalls, ARefusedCallCompletesAtOnceOnTheCClientAndOnItsThreadOnTheOthers) {
  for (Flavour f : {Flavour::C, Flavour::Curator, Flavour::Kazoo}) {
    ThreadLags d;
    Rig r(f, d);
    run(r.world, r.zk, [](Client& zk) -> Task<> { co_await zk.exists("/"); }(r.zk));
    d.lags = {2};
    Log log;
    bool at_once = false;
    const TimeMs called = r.world.now();
    r.zk.in_background(r.zk.create("bad", "", CreateMode::Persistent), [&log, &r](Result<CreateResponse> made) {
      log.entries.emplace_back(std::string(error_name(made.error())), r.zk.now());
    });
    at_once = !log.entries.empty();
    r.world.run_until(r.world.now() + 10);
    EXPECT_EQ(at_once, f == Flavour::C) << flavour_name(f);
    const TimeMs expected = f == Flavour::C ? called : called + 2;
    EXPECT_EQ(log.entries, (std::vector<std::pair<std::string, TimeMs>>{{"ZBADARGUMENTS", expected}}))
        << flavour_name(f);
  }
}

// A dropped connection: cleanAndNotifyState fails the calls (cleanup,
// CONNECTIONLOSS) before it queues Disconnected. Expiry: onConnected and
// ZooKeeperTestable.injectSessionExpiration (Curator's own LOST) queue
// Expired before cleanup fails the calls left with SESSIONEXPIRED.
TEST(BackgroundCalls, ACuratorCallFailsBeforeTheDisconnectedEventAndAfterTheExpiredEvent) {
  ThreadLags d;
  Rig r(Flavour::Curator, d);
  Log log;
  run(r.world, r.zk, [](Client& zk) -> Task<> { co_await zk.exists("/"); }(r.zk));
  r.zk.set_default_watcher([&log, &r](const WatchedEvent& e) {
    log.entries.emplace_back(std::string(keeper_state_name(e.state)), r.zk.now());
  });
  auto note = [&log, &r](std::string what) {
    return [&log, &r, what](Result<Stat> st) {
      log.entries.emplace_back(what + " " + std::string(error_name(st.error())), r.zk.now());
    };
  };
  r.zk.in_background(r.zk.exists("/"), note("in flight"));
  r.world.partition(r.world.id(r.zk), 5000);
  r.world.run_until(r.world.now() + 50);
  r.zk.in_background(r.zk.exists("/"), note("queued"));
  r.world.run_until(r.world.now() + 3000);  // Curator declares the session lost after 2 s
  EXPECT_EQ(log.names(), (std::vector<std::string>{"in flight ZCONNECTIONLOSS", "Disconnected", "Expired",
                                                   "queued ZSESSIONEXPIRED"}));
}

// A crashed process runs nothing more: its pending completions vanish with it.
TEST(BackgroundCalls, ACompletionEndsWithItsProcess) {
  for (Flavour f : {Flavour::C, Flavour::Curator, Flavour::Kazoo}) {
    ThreadLags d;
    Rig r(f, d);
    run(r.world, r.zk, [](Client& zk) -> Task<> { co_await zk.exists("/"); }(r.zk));
    bool ran = false;
    r.zk.in_background(r.zk.exists("/"), [&ran](Result<Stat>) { ran = true; });
    EXPECT_EQ(r.world.running_tasks(), 1) << flavour_name(f);
    r.world.inject(FaultKind::Crash, 0);
    r.world.run_until(r.world.now() + 100);
    EXPECT_FALSE(ran) << flavour_name(f);
    EXPECT_EQ(r.world.running_tasks(), 0) << flavour_name(f);
  }
}

}  // namespace
}  // namespace zksim::test
