// Bugs of Curator's recipes (apache/curator, and Netflix/curator before
// it), ported with the Curator flavour: recipe code on the caller's
// thread, watchers on the event thread, listeners on their own, a new
// session after expiry. The framework around each call is curator.h's.
#include "curator.h"

#include <algorithm>
#include <optional>

namespace bank {

namespace {

using zksim::scenarios::Flaw;
using zksim::scenarios::HandleContext;
using zksim::scenarios::Recipe;
using zksim::scenarios::RecipeFamily;

Flaw curator_flaw(std::string property, std::int32_t fault = 0, std::uint32_t per_mille = 0, TimeMs hold_ms = 5,
                  bool varied = false) {
  Flaw f;
  f.property = std::move(property);
  f.fault_class = fault;
  f.per_mille = per_mille;
  f.hold_ms = hold_ms;
  f.flavour = zksim::Flavour::Curator;
  f.varied = varied;
  return f;
}

// ---------------------------------------------------------------------------
// bank/curator-276-rw-downgrade: CURATOR-276, "Downgrade pattern doesn't
//   work with Shared Reentrant Read Write Lock"
//   (https://issues.apache.org/jira/browse/CURATOR-276, reported on 2.9.0;
//   fixed as CURATOR-621 in 5.5.0, https://github.com/apache/curator/pull/445).
//   InterProcessReadWriteLock is two InterProcessMutexes on one path,
//   "__WRIT__" nodes taken when first of all, "__READ__" nodes when no
//   writer's node is before them, or at once when the same thread holds
//   the write lock (the downgrade). A downgrading holder's read node comes
//   after the writer queued behind it; when it releases the write lock,
//   that writer is first among the nodes before its own and takes the write
//   lock while the reader holds. zksim should report read-write-exclusion,
//   with no fault, once downgrades are in the mix (varied workloads).
// ---------------------------------------------------------------------------
constexpr const char* kReadName = "__READ__";
constexpr const char* kWriteName = "__WRIT__";

class CuratorReadWriteLock {
 public:
  CuratorReadWriteLock(Client& zk, const std::string& dir)
      : write_(zk, dir, kWriteName, curator::standard_driver),
        read_(zk, dir, kReadName, [this](const std::vector<std::string>& sorted, const std::string& ours) {
          return read_predicate(sorted, ours);
        }) {}
  CuratorReadWriteLock(const CuratorReadWriteLock&) = delete;
  CuratorReadWriteLock& operator=(const CuratorReadWriteLock&) = delete;

  Task<Result<Grant>> acquire_read(TimeMs t) { return acquire(read_, read_held_, t); }
  Task<Result<Grant>> acquire_write(TimeMs t) { return acquire(write_, write_held_, t); }
  Task<Result<void>> release_read() { return release(read_, read_held_); }
  Task<Result<void>> release_write() { return release(write_, write_held_); }
  bool holds_read() const { return read_held_.count > 0; }
  bool holds_write() const { return write_held_.count > 0; }

 private:
  struct Held {
    Grant grant;
    int count = 0;
  };

  // readLockPredicate: held at once under our own write lock; else held
  // when no writer's node is before ours, watching the first writer's.
  Result<curator::Predicate> read_predicate(const std::vector<std::string>& sorted, const std::string& ours) const {
    if (write_held_.count > 0) return curator::Predicate{true, ""};
    std::size_t first_write = sorted.size();
    std::size_t our_index = sorted.size();
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i].find(kWriteName) != std::string::npos) {
        first_write = std::min(first_write, i);
      } else if (sorted[i] == ours) {
        our_index = i;
        break;
      }
    }
    if (our_index == sorted.size()) return Error::NoNode;
    if (our_index < first_write) return curator::Predicate{true, ""};
    return curator::Predicate{false, sorted[first_write]};
  }

  // InterProcessMutex.internalLock: re-entering counts.
  static Task<Result<Grant>> acquire(curator::LockInternals& internals, Held& held, TimeMs timeout_ms) {
    if (held.count > 0) {
      ++held.count;
      co_return held.grant;
    }
    auto made = co_await internals.attempt_lock(timeout_ms);
    if (!made) co_return made.error();
    held.grant = Grant{made->path, made->czxid};
    held.count = 1;
    co_return held.grant;
  }

  static Task<Result<void>> release(curator::LockInternals& internals, Held& held) {
    if (held.count == 0) co_return Error::BadArguments;
    if (--held.count > 0) co_return Result<void>();
    co_await internals.release_lock(held.grant.node);
    co_return Result<void>();
  }

  curator::LockInternals write_;
  curator::LockInternals read_;
  Held write_held_;
  Held read_held_;
};

// ---------------------------------------------------------------------------
// bank/curator-115-latch-deleted-is-leader: Netflix/curator issue #115,
//   "Wrong behaviour in LeaderLatch when a candidate lose connection"
//   (https://github.com/Netflix/curator/issues/115), in LeaderLatch from
//   its first version (Netflix Curator 1.0.10, May 2012) to 1.1.15; fixed
//   in 1.1.16 by 14431d0b. A candidate watches the node before its own with exists; when
//   that node is deleted it takes the leadership, without looking again
//   at who is first. When a waiting candidate in the middle leaves (its
//   client closes the latch, crashes or loses its session), the one behind
//   it becomes leader while the first still leads. The latch also counts
//   leadership only while the connection state is CONNECTED, and after
//   LOST then CONNECTED (a new session) starts over with a new node.
//   zksim should report one-leader once a waiting candidate leaves: a
//   client crash (its session expires and its node goes).
//   campaign = new latch, start(), await(timeout) (close() when it times
//   out); resign = close().
// ---------------------------------------------------------------------------
class NetflixLeaderLatch {
 public:
  NetflixLeaderLatch(Client& zk, std::string dir, std::string id) : zk_(zk), dir_(std::move(dir)), id_(std::move(id)) {}
  ~NetflixLeaderLatch() {
    if (latch_) zk_.remove_session_listener(latch_->listener);
  }

  Task<Result<Grant>> campaign(TimeMs timeout_ms) {
    if (latch_) zk_.remove_session_listener(latch_->listener);
    latch_ = std::make_shared<Latch>();
    auto l = latch_;
    Client* zk = &zk_;
    // start(): the listener, the path, internalStart().
    l->listener = zk_.add_session_listener([zk, l, dir = dir_, id = id_](const WatchedEvent& e) {
      std::string state = e.state == zksim::KeeperState::Disconnected  ? "SUSPENDED"
                          : e.state == zksim::KeeperState::Expired     ? "LOST"
                          : e.state == zksim::KeeperState::SyncConnected ? "CONNECTED"
                                                                        : "";
      if (state.empty()) return;
      const std::string previous = std::exchange(l->connection, state);
      l->monitor.notify_all();
      if (previous == "LOST" && state == "CONNECTED" && l->started) zk->post(restart(*zk, l, dir, id));
    });
    l->started = true;
    auto there = co_await ensure_path(zk_, dir_);
    if (!there) co_return there.error();
    auto started = co_await internal_start(zk_, l, dir_, id_);
    if (!started) {
      co_await close();
      co_return started.error();
    }
    // await(timeout): until leader or the time is up.
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    while (!has_leadership(*l)) {
      Signal changed = l->monitor.next();
      const TimeMs left = deadline < 0 ? -1 : deadline - zk_.now();
      if (deadline >= 0 && left <= 0) break;
      co_await zk_.wait_for(changed, left);
    }
    if (!has_leadership(*l)) {
      co_await close();
      co_return Error::OperationTimeout;
    }
    auto st = co_await zk_.exists(l->our_path);
    co_return Grant{l->our_path, st ? st->czxid : 0};
  }

  Task<Result<void>> resign() {
    co_await close();
    co_return Result<void>();
  }

  bool is_leader() const { return latch_ && has_leadership(*latch_); }

  // getLeader(): the first participant's id.
  Task<Result<std::string>> leader() {
    auto kids = co_await curator::children(zk_, dir_);
    if (!kids) co_return kids.error();
    const std::vector<std::string> sorted = by_sequence(std::move(*kids));
    for (const std::string& name : sorted) {
      auto data = co_await zk_.get_data(join(dir_, name));
      if (data) co_return data->data;
      if (data.error() != Error::NoNode) co_return data.error();
    }
    co_return std::string();
  }

 private:
  struct Latch {
    bool started = false;
    bool leadership = false;
    std::string connection = "CONNECTED";
    std::string our_path;
    std::uint64_t listener = 0;
    Monitor monitor;  // setLeadership's notifyAll
  };

  static bool has_leadership(const Latch& l) { return l.started && l.leadership && l.connection == "CONNECTED"; }

  static void set_leadership(Latch& l, bool value) {
    l.leadership = value;
    l.monitor.notify_all();
  }

  static Task<Result<void>> internal_start(Client& zk, std::shared_ptr<Latch> l, std::string dir, std::string id) {
    l->leadership = false;
    if (!l->our_path.empty()) zk.post(delete_in_background(zk, l->our_path));
    // The id as the node's data (LeaderSelector.getIdBytes).
    auto made = co_await curator::create_protected(zk, dir, "latch-", CreateMode::EphemeralSequential, id);
    if (!made) co_return made.error();
    l->our_path = made->path;
    auto kids = co_await curator::children(zk, dir);
    if (!kids) co_return kids.error();
    const std::vector<std::string> sorted = by_sequence(std::move(*kids));
    auto me = std::find(sorted.begin(), sorted.end(), std::string(name_of(l->our_path)));
    if (me == sorted.end()) co_return Error::NoNode;
    if (me == sorted.begin()) {
      set_leadership(*l, true);
      co_return Result<void>();
    }
    const std::string when_watched = l->our_path;
    Watcher watcher = [l, when_watched](const WatchedEvent& e) {
      // The flaw: the predecessor's deletion is taken for the leadership.
      if (e.type == zksim::EventType::NodeDeleted && l->our_path == when_watched) set_leadership(*l, true);
    };
    const std::string watch_path = join(dir, *(me - 1));
    auto st = co_await zk.exists(watch_path, watcher);
    if (!st && st.error() == Error::NoNode) set_leadership(*l, true);
    co_return Result<void>();
  }

  // handleStateChange: LOST, then CONNECTED: internalStart() again.
  static Task<> restart(Client& zk, std::shared_ptr<Latch> l, std::string dir, std::string id) {
    auto r = co_await internal_start(zk, l, std::move(dir), std::move(id));
    if (!r) {
      l->connection = "LOST";
      set_leadership(*l, false);
    }
  }

  static Task<> delete_in_background(Client& zk, std::string path) { co_await curator::delete_guaranteed(zk, path); }

  Task<void> close() {
    auto l = latch_;
    if (!l || !l->started) co_return;
    l->started = false;
    zk_.remove_session_listener(l->listener);
    if (!l->our_path.empty()) zk_.post(delete_in_background(zk_, l->our_path));
    set_leadership(*l, false);
  }

  Client& zk_;
  std::string dir_;
  std::string id_;
  std::shared_ptr<Latch> latch_;
};

// ---------------------------------------------------------------------------
// bank/curator-18-latch-close-race: CURATOR-18, "LeaderLatch: race between
//   creating a node and deleting it"
//   (https://issues.apache.org/jira/browse/CURATOR-18, fixed in 2.0.1 by
//   38f28b5c), in Netflix Curator 2.4.0 (112b5d92, "Issue 216") to Apache
//   Curator 2.0.0-incubating, whose LeaderLatch works in the background: reset() creates a protected ephemeral-sequential node
//   asynchronously, its callback sets ourPath and reads the children;
//   close() deletes ourPath, if set. A latch closed while its create is in
//   flight deletes nothing; the callback then records the node and carries
//   on, and the node stays for the session's life: once first, it is a
//   leader nobody is, and every other candidate waits behind it. zksim
//   should report liveness once candidates give up (varied workloads draw
//   campaign timeouts, 0 and 1 ms among them).
//   campaign = new latch, start(), await(timeout) (close() when it times
//   out); resign = close(). Leadership: started and hasLeadership.
// bank/curator-652-latch-double-leader: CURATOR-652, "double-leader"
//   (https://issues.apache.org/jira/browse/CURATOR-652,
//   https://github.com/apache/curator/issues/1168), ported as 5.3.0 writes
//   LeaderLatch (the same background design, with the CURATOR-18 fix and
//   getData for the watch). On RECONNECTED a latch resets: setNode(null)
//   deletes its node in the background and a new one is created; a create
//   still being retried from before completes too, and its setNode deletes
//   the node the latch was leading with. checkLeadership then finds the
//   latch no longer first and watches its predecessor, but never gives
//   up the leadership it had, while the next candidate, seeing the
//   leader's node gone, leads as well. Fixed in 5.7.0 by 1027c2cd
//   (CURATOR-696): a latch that is not first gives its leadership up, and
//   one that is first checks that the node is its session's. (The same
//   code also resets whenever the node it watches is gone, the livelock of
//   CURATOR-645.) zksim should report one-leader once connections blip.
// ---------------------------------------------------------------------------
enum class LatchVersion { Curator200, Curator530 };

class CuratorLatch {
 public:
  CuratorLatch(Client& zk, std::string dir, std::string id, LatchVersion v)
      : zk_(zk), dir_(std::move(dir)), id_(std::move(id)), version_(v) {}
  ~CuratorLatch() {
    if (latch_ && latch_->started) zk_.remove_session_listener(latch_->listener);
  }

  Task<Result<Grant>> campaign(TimeMs timeout_ms) {
    latch_ = std::make_shared<Latch>(zk_, dir_, id_);
    latch_->version = version_;
    auto l = latch_;
    l->started = true;
    l->listener = zk_.add_session_listener([l](const WatchedEvent& e) {
      // handleStateChange: RECONNECTED: reset(); SUSPENDED, LOST: not leader.
      if (e.state == zksim::KeeperState::SyncConnected && l->suspended) {
        l->suspended = false;
        reset(l);
      } else if (e.state == zksim::KeeperState::Disconnected || e.state == zksim::KeeperState::Expired) {
        l->suspended = true;
        set_leadership(*l, false);
      }
    });
    reset(l);
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    while (!leads(*l)) {
      Signal changed = l->monitor.next();
      const TimeMs left = deadline < 0 ? -1 : deadline - zk_.now();
      if (deadline >= 0 && left <= 0) break;
      co_await zk_.wait_for(changed, left);
    }
    if (!leads(*l)) {
      close();
      co_return Error::OperationTimeout;
    }
    auto st = co_await zk_.exists(l->our_path);
    co_return Grant{l->our_path, st ? st->czxid : 0};
  }

  Task<Result<void>> resign() {
    close();
    co_return Result<void>();
  }

  bool is_leader() const { return latch_ && leads(*latch_); }

 private:
  struct Latch {
    Latch(Client& z, std::string d, std::string i) : zk(z), dir(std::move(d)), id(std::move(i)) {}
    Client& zk;
    std::string dir;
    std::string id;
    LatchVersion version = LatchVersion::Curator200;
    bool started = false;
    bool suspended = false;
    bool leadership = false;
    std::string our_path;
    std::uint64_t listener = 0;
    Monitor monitor;
  };

  static bool leads(const Latch& l) { return l.started && l.leadership; }

  static void set_leadership(Latch& l, bool value) {
    l.leadership = value;
    l.monitor.notify_all();
  }

  // setNode: the old node deleted (guaranteed, in the background).
  static void set_node(Latch& l, std::string path) {
    const std::string old = std::exchange(l.our_path, std::move(path));
    if (!old.empty()) l.zk.post(delete_in_background(l.zk, old));
  }

  static Task<> delete_in_background(Client& zk, std::string path) { co_await curator::delete_guaranteed(zk, path); }

  static void reset(std::shared_ptr<Latch> l) {
    set_leadership(*l, false);
    set_node(*l, "");
    l->zk.post(create_in_background(l));
  }

  static Task<> create_in_background(std::shared_ptr<Latch> l) {
    auto made = co_await curator::create_protected(l->zk, l->dir, "latch-", CreateMode::EphemeralSequential, l->id);
    if (!made) co_return;
    set_node(*l, made->path);
    // 2.0.0's flaw: the node is kept whether or not the latch was closed
    // meanwhile (CURATOR-18); from 2.0.1 a closed latch deletes it.
    if (l->version == LatchVersion::Curator530 && !l->started) {
      set_node(*l, "");
      co_return;
    }
    co_await get_children(l);
  }

  static Task<> get_children(std::shared_ptr<Latch> l) {
    auto kids = co_await l->zk.get_children(l->dir);
    if (!kids) co_return;
    co_await check_leadership(l, std::move(kids->children));
  }

  static Task<> check_leadership(std::shared_ptr<Latch> l, std::vector<std::string> children) {
    const std::string local = l->our_path;
    const std::vector<std::string> sorted = by_sequence(std::move(children));
    auto me = local.empty() ? sorted.end() : std::find(sorted.begin(), sorted.end(), std::string(name_of(local)));
    if (me == sorted.end()) {
      reset(l);
      co_return;
    }
    if (me == sorted.begin()) {
      set_leadership(*l, true);
      co_return;
    }
    Watcher watcher = [l, local](const WatchedEvent& e) {
      if (l->started && e.type == zksim::EventType::NodeDeleted && !local.empty()) l->zk.post(get_children(l));
    };
    const std::string watch_path = join(l->dir, *(me - 1));
    // 2.0.0 watches with exists, 5.3.0 with getData; either way a gone
    // predecessor resets the latch: a new node at the end (CURATOR-645).
    // Not first: the leadership it had is kept (CURATOR-652).
    bool gone = false;
    if (l->version == LatchVersion::Curator530) {
      auto data = co_await l->zk.get_data(watch_path, watcher);
      gone = !data && data.error() == Error::NoNode;
    } else {
      auto st = co_await l->zk.exists(watch_path, watcher);
      gone = !st && st.error() == Error::NoNode;
    }
    if (gone) reset(l);
  }

  void close() {
    auto l = latch_;
    if (!l || !l->started) return;
    l->started = false;
    set_node(*l, "");
    zk_.remove_session_listener(l->listener);
    set_leadership(*l, false);
  }

  Client& zk_;
  std::string dir_;
  std::string id_;
  LatchVersion version_;
  std::shared_ptr<Latch> latch_;
};

// ---------------------------------------------------------------------------
// DistributedDoubleBarrier, in the versions two bugs lived in. enter():
// check for "ready" with a watcher, create our ephemeral node, then (unless
// ready was there) internalEnter, synchronized: count the children; enough:
// create "ready"; else wait once (for what is left of the timeout, or
// without one) and return. The watcher notes a connection problem
// (connectionLost = its state is not SyncConnected), sets hasBeenNotified
// for good, and notifyAll()s through runSafe. leave(), synchronized: until
// only ours (or none) is left, the lowest node watches the highest, the
// others delete their own and watch the lowest; then "ready" is deleted.
//
// bank/curator-1290-ddb-notified-enter: apache/curator issue #1290,
//   "DistributedDoubleBarrier - Barrier bypass due to spurious wakeups or
//   SyncConnected events" (https://github.com/apache/curator/issues/1290),
//   in 4.1.0 (CURATOR-495) to 5.9.0. internalEnter waits once and never
//   counts again: any event that reaches the watcher, a session event
//   included, lets a member through, and a timed enter that was notified
//   once passes at once. A connection that drops and comes back sends the
//   watcher Disconnected then SyncConnected; connectionLost is false again
//   by the time the member looks, and it enters alone. zksim should report
//   barrier-enter with connections blipping (blip-all).
// bank/curator-536-ddb-leave-loop: CURATOR-536, "Infinite loop instead of
//   timeout on DistributedDoubleBarrier::internalLeave"
//   (https://issues.apache.org/jira/browse/CURATOR-536; also CURATOR-233),
//   in 4.2.0 and before, fixed in 4.3.0 (9fb8dadb). When leave's time is
//   up it sets the result to false but does not leave the loop: it reads
//   the children and sets a watch again and again, never waiting. The same
//   4.2.0 code has the enter of #1290 above. zksim should report runaway
//   when a member's leave outlives its timeout: a member whose enter failed
//   (a lost reply) never leaves, and the others' leave times out.
// bank/curator-318-ddb-timeout-leftover: CURATOR-318, "Threads may return
//   different boolean values when entering same double barrier"
//   (https://issues.apache.org/jira/browse/CURATOR-318, open), in every
//   version, ported here as the enter after #1290's fix (it counts again
//   after each wake-up): a member whose timed enter gives up returns false
//   and leaves its node, so a member arriving later counts the given-up
//   ones and enters without them. Every member did arrive, so by zksim's
//   rule (nobody in before all came) that entry is allowed; what zksim
//   sees is the leave that follows: it waits for the given-up members'
//   nodes, which nobody removes while their sessions live. zksim should
//   report liveness once enters time out (varied workloads draw their
//   timeouts).
// ---------------------------------------------------------------------------
enum class DdbVersion { Curator420, Curator590, Curator591 };

class CuratorDoubleBarrier final : public zksim::scenarios::DoubleBarrierHandle {
 public:
  CuratorDoubleBarrier(const HandleContext& c, DdbVersion v)
      : zk_(c.zk), barrier_(c.dir), member_qty_(c.members), version_(v), our_path_(join(c.dir, c.zk.unique_id())),
        ready_path_(join(c.dir, "ready")), state_(std::make_shared<State>()) {}

  Task<Result<void>> enter(TimeMs timeout_ms) override {
    const TimeMs start = zk_.now();
    auto ready = co_await exists_watched(ready_path_);
    if (!ready && ready.error() != Error::NoNode) co_return ready.error();
    auto made = co_await create_ours();
    if (!made) co_return made;
    bool result = ready.ok();
    if (!result) {
      auto entered = co_await internal_enter(start, timeout_ms);
      if (!entered) co_return entered.error();
      result = *entered;
    }
    if (state_->connection_lost) co_return Error::ConnectionLoss;
    if (!result) co_return Error::OperationTimeout;
    co_return Result<void>();
  }

  Task<Result<void>> leave(TimeMs timeout_ms) override {
    auto left = co_await internal_leave(zk_.now(), timeout_ms);
    if (!left) co_return left.error();
    if (!*left) co_return Error::OperationTimeout;
    co_return Result<void>();
  }

 private:
  struct State {
    Monitor monitor;
    bool connection_lost = false;
    bool has_been_notified = false;
  };

  Watcher watcher() {
    Client* zk = &zk_;
    auto s = state_;
    return [zk, s](const WatchedEvent& e) {
      s->connection_lost = e.state != zksim::KeeperState::SyncConnected;
      zk->post(notify_later(s));
    };
  }

  // client.runSafe(() -> { synchronized (this) { hasBeenNotified = true; notifyAll(); } }).
  static Task<> notify_later(std::shared_ptr<State> s) {
    s->has_been_notified = true;
    s->monitor.notify_all();
    co_return;
  }

  Task<Result<zksim::Stat>> exists_watched(std::string path) {
    int count = 0;
    for (;;) {
      auto st = co_await zk_.exists(path, watcher());
      if (st || st.error() == Error::NoNode) co_return st;
      if (!co_await curator::retry_after(zk_, st.error(), count)) co_return st;
    }
  }

  // create().creatingParentContainersIfNeeded().withMode(EPHEMERAL).forPath(ourPath).
  Task<Result<void>> create_ours() {
    int count = 0;
    for (;;) {
      auto made = co_await zk_.create(our_path_, "", CreateMode::Ephemeral);
      if (made) co_return Result<void>();
      if (made.error() == Error::NoNode) {
        auto parent = co_await curator::make_parents(zk_, barrier_);
        if (parent) continue;
        if (co_await curator::retry_after(zk_, parent.error(), count)) continue;
        co_return parent.error();
      }
      if (co_await curator::retry_after(zk_, made.error(), count)) continue;
      co_return made.error();  // NodeExists after a lost reply included
    }
  }

  Task<Result<bool>> internal_enter(TimeMs start, TimeMs timeout_ms) {
    if (version_ == DdbVersion::Curator591) co_return co_await internal_enter_counting(start, timeout_ms);
    Signal notified = state_->monitor.next();  // synchronized: from here a notify waits for our wait
    auto kids = co_await curator::children(zk_, barrier_);
    if (!kids) co_return kids.error();
    if (static_cast<int>(kids->size()) >= member_qty_) {
      auto ready = co_await zk_.create(ready_path_, "", CreateMode::Persistent);
      if (!ready && ready.error() != Error::NodeExists) co_return ready.error();
      co_return true;
    }
    bool result = true;
    if (timeout_ms >= 0 && !state_->has_been_notified) {
      const TimeMs wait_ms = timeout_ms - (zk_.now() - start);
      if (wait_ms <= 0) {
        result = false;
      } else {
        co_await zk_.wait_for(notified, wait_ms);
      }
      if (!state_->has_been_notified) result = false;
    } else if (timeout_ms < 0) {
      co_await notified.wait();
    }
    co_return result;  // do { ... } while (false): no second count
  }

  // After #1290: count again after every wake-up, until enough or the time is up.
  Task<Result<bool>> internal_enter_counting(TimeMs start, TimeMs timeout_ms) {
    for (;;) {
      Signal notified = state_->monitor.next();
      auto kids = co_await curator::children(zk_, barrier_);
      if (!kids) co_return kids.error();
      if (static_cast<int>(kids->size()) >= member_qty_) {
        auto ready = co_await zk_.create(ready_path_, "", CreateMode::Persistent);
        if (!ready && ready.error() != Error::NodeExists) co_return ready.error();
        co_return true;
      }
      if (timeout_ms >= 0) {
        const TimeMs wait_ms = timeout_ms - (zk_.now() - start);
        if (wait_ms <= 0) co_return false;  // our node stays (CURATOR-318)
        co_await zk_.wait_for(notified, wait_ms);
      } else {
        co_await notified.wait();
      }
    }
  }

  Task<Result<bool>> internal_leave(TimeMs start, TimeMs timeout_ms) {
    const std::string ours(name_of(our_path_));
    bool our_node_should_exist = true;
    bool result = true;
    for (;;) {
      Signal notified = state_->monitor.next();  // leave() is synchronized
      if (state_->connection_lost) co_return Error::ConnectionLoss;
      auto kids = co_await curator::children(zk_, barrier_);
      if (!kids) co_return kids.error();
      std::vector<std::string> children = std::move(*kids);
      std::erase(children, std::string("ready"));
      std::sort(children.begin(), children.end());
      if (children.empty()) break;
      auto me = std::find(children.begin(), children.end(), ours);
      if (me == children.end() && our_node_should_exist) {
        if (state_->connection_lost) break;
        co_return Error::NoNode;  // IllegalStateException: "Our path is missing"
      }
      if (children.size() == 1) {
        if (our_node_should_exist && children.front() != ours) co_return Error::BadArguments;  // "Last path is not ours"
        if (our_node_should_exist) co_await delete_ours();
        break;
      }
      Result<zksim::Stat> st = Error::NoNode;
      if (me == children.begin()) {
        st = co_await exists_watched(join(barrier_, children.back()));
      } else {
        st = co_await exists_watched(join(barrier_, children.front()));
        if (our_node_should_exist) co_await delete_ours();
        our_node_should_exist = false;
      }
      if (!st && st.error() != Error::NoNode) co_return st.error();
      if (st) {
        if (timeout_ms >= 0) {
          const TimeMs wait_ms = timeout_ms - (zk_.now() - start);
          if (wait_ms <= 0) {
            result = false;
            if (version_ != DdbVersion::Curator420) break;
            // 4.2.0: no break; round again without waiting.
          } else {
            co_await zk_.wait_for(notified, wait_ms);
          }
        } else {
          co_await notified.wait();
        }
      }
    }
    auto gone = co_await zk_.remove(ready_path_);
    if (!gone && gone.error() != Error::NoNode) co_return gone.error();
    co_return result;
  }

  Task<void> delete_ours() {
    int count = 0;
    for (;;) {
      auto gone = co_await zk_.remove(our_path_);
      if (gone || gone.error() == Error::NoNode || !co_await curator::retry_after(zk_, gone.error(), count)) co_return;
    }
  }

  Client& zk_;
  std::string barrier_;
  int member_qty_;
  DdbVersion version_;
  std::string our_path_;
  std::string ready_path_;
  std::shared_ptr<State> state_;
};

// ---------------------------------------------------------------------------
// bank/curator-315-semaphore-orphan: CURATOR-315, "Reconnect during
//   InterProcessSemaphoreV2.acquire can lead to orphaned node"
//   (https://issues.apache.org/jira/browse/CURATOR-315, fixed by
//   https://github.com/apache/curator/pull/143 in 2.11.0 and 3.2.0).
//   internalAcquire1Lease, under the semaphore's InterProcessMutex on
//   "<path>/locks", creates a protected ephemeral-sequential "lease-" node
//   in "<path>/leases" and adds it to the result at once; then, while more
//   than maxLeases nodes are there, waits on a children watch. When our
//   node is no longer there (the session expired and Curator opened a new
//   one) it retries and creates another, so acquire() returns the first,
//   gone, lease to its caller and keeps the live one to nobody: the caller's
//   release deletes a node already gone, and the live lease stays, holding
//   a lease of the semaphore for as long as the new session lives. zksim
//   should report no-leaks under session expiry.
// ---------------------------------------------------------------------------
class CuratorSemaphoreV2 final : public zksim::scenarios::LockHandle {
 public:
  explicit CuratorSemaphoreV2(const HandleContext& c)
      : zk_(c.zk), leases_(join(c.dir, "leases")), max_leases_(c.leases),
        lock_(c.zk, join(c.dir, "locks"), "lock-", curator::standard_driver), state_(std::make_shared<State>()) {}

  Task<Result<Grant>> acquire(bool, TimeMs timeout_ms) override {
    const TimeMs start = zk_.now();
    std::vector<curator::Made> builder;
    int retries = 0;
    for (;;) {
      auto r = co_await acquire_one_lease(builder, start, timeout_ms);
      if (!r) {
        for (const curator::Made& m : builder) co_await curator::delete_guaranteed(zk_, m.path);  // returnAll
        co_return r.error();
      }
      if (*r == Outcome::Continue) break;
      if (*r == Outcome::ReturnNull) {
        for (const curator::Made& m : builder) co_await curator::delete_guaranteed(zk_, m.path);
        co_return Error::OperationTimeout;
      }
      // RETRY_DUE_TO_MISSING_NODE: again while the policy allows.
      if (retries >= 3) {
        for (const curator::Made& m : builder) co_await curator::delete_guaranteed(zk_, m.path);
        co_return Error::NoNode;
      }
      co_await zk_.sleep(TimeMs{1000} << retries);
      ++retries;
    }
    // acquire(): the first lease of the builder.
    lease_ = builder.front();
    co_return Grant{lease_->path, lease_->czxid};
  }

  Task<Result<void>> release(bool) override {
    if (!lease_) co_return Error::BadArguments;
    const std::string path = lease_->path;
    lease_.reset();
    co_await curator::delete_guaranteed(zk_, path);
    co_return Result<void>();
  }

  bool holds(bool) const override { return lease_.has_value(); }

 private:
  enum class Outcome { Continue, ReturnNull, RetryMissingNode };
  struct State {
    Monitor monitor;
  };

  Task<Result<Outcome>> acquire_one_lease(std::vector<curator::Made>& builder, TimeMs start, TimeMs timeout_ms) {
    if (zk_.state() == zksim::SessionState::Closed) co_return Outcome::ReturnNull;
    const TimeMs lock_wait = timeout_ms < 0 ? -1 : std::max<TimeMs>(0, timeout_ms - (zk_.now() - start));
    auto locked = co_await lock_.attempt_lock(lock_wait);
    if (!locked) {
      if (locked.error() == Error::OperationTimeout) co_return Outcome::ReturnNull;
      co_return locked.error();
    }
    Result<Outcome> out = Outcome::Continue;
    auto made = co_await curator::create_protected(zk_, leases_, "lease-", CreateMode::EphemeralSequential);
    if (!made) {
      out = made.error();
    } else {
      const std::string name(name_of(made->path));
      builder.push_back(*made);  // the flaw: in the result before it is known to be held
      for (;;) {
        Signal notified = state_->monitor.next();  // synchronized(this)
        Client* zk = &zk_;
        auto s = state_;
        Watcher watcher = [zk, s](const WatchedEvent&) { zk->post(notify_later(s)); };
        int count = 0;
        Result<zksim::ChildrenResponse> kids = Error::ConnectionLoss;
        for (;;) {
          kids = co_await zk_.get_children(leases_, watcher);
          if (kids || !co_await curator::retry_after(zk_, kids.error(), count)) break;
        }
        if (!kids) {
          out = kids.error();
          break;
        }
        const auto& children = kids->children;
        if (std::find(children.begin(), children.end(), name) == children.end()) {
          out = Outcome::RetryMissingNode;  // "Sequential path not found"
          break;
        }
        if (static_cast<int>(children.size()) <= max_leases_) break;
        if (timeout_ms >= 0) {
          const TimeMs wait_ms = timeout_ms - (zk_.now() - start);
          if (wait_ms <= 0) {
            out = Outcome::ReturnNull;
            break;
          }
          co_await zk_.wait_for(notified, wait_ms);
        } else {
          co_await notified.wait();
        }
      }
    }
    co_await lock_.release_lock(locked->path);
    co_return out;
  }

  static Task<> notify_later(std::shared_ptr<State> s) {
    s->monitor.notify_all();
    co_return;
  }

  Client& zk_;
  std::string leases_;
  int max_leases_;
  curator::LockInternals lock_;
  std::shared_ptr<State> state_;
  std::optional<curator::Made> lease_;
};

}  // namespace

std::vector<Recipe> curator_bugs() {
  using zksim::FaultKind;
  using zksim::TimedFault;
  std::vector<Recipe> out;

  Recipe rw;
  rw.name = "bank/curator-276-rw-downgrade";
  rw.summary = "Curator's InterProcessReadWriteLock admitting a writer after a downgrade (CURATOR-276)";
  rw.family = RecipeFamily::ReadWriteLock;
  rw.traits.reentrant = true;
  rw.traits.write_node = [](std::string_view n) { return n.find(kWriteName) != std::string_view::npos; };
  rw.make_lock = [](const HandleContext& c) { return zksim::scenarios::read_write<CuratorReadWriteLock>(c.zk, c.dir); };
  rw.flaw = curator_flaw("read-write-exclusion", 0, 0, 5, /*varied=*/true);
  out.push_back(std::move(rw));

  Recipe latch;
  latch.name = "bank/curator-115-latch-deleted-is-leader";
  latch.summary = "Netflix Curator's LeaderLatch leading when its predecessor goes (Netflix/curator#115)";
  latch.family = RecipeFamily::Election;
  latch.make_lock = [](const HandleContext& c) {
    return zksim::scenarios::election<NetflixLeaderLatch>(c.zk, c.dir, c.id);
  };
  latch.flaw = curator_flaw("one-leader", static_cast<std::int32_t>(FaultKind::Crash), 30, 300);
  out.push_back(std::move(latch));

  Recipe notified;
  notified.name = "bank/curator-1290-ddb-notified-enter";
  notified.summary = "Curator's DistributedDoubleBarrier letting a member in on any watcher event (curator#1290)";
  notified.family = RecipeFamily::DoubleBarrier;
  notified.traits.ready_node = "ready";
  notified.make_double_barrier = [](const HandleContext& c) {
    return std::make_unique<CuratorDoubleBarrier>(c, DdbVersion::Curator590);
  };
  notified.flaw = curator_flaw("barrier-enter", static_cast<std::int32_t>(TimedFault::BlipAll), 300, 300);
  out.push_back(std::move(notified));

  Recipe loop;
  loop.name = "bank/curator-536-ddb-leave-loop";
  loop.summary = "Curator 4.2's DistributedDoubleBarrier looping without end when leave times out (CURATOR-536)";
  loop.family = RecipeFamily::DoubleBarrier;
  loop.traits.ready_node = "ready";
  loop.make_double_barrier = [](const HandleContext& c) {
    return std::make_unique<CuratorDoubleBarrier>(c, DdbVersion::Curator420);
  };
  loop.flaw = curator_flaw("runaway", static_cast<std::int32_t>(FaultKind::DropAfterApply), 30);
  out.push_back(std::move(loop));

  Recipe leftover;
  leftover.name = "bank/curator-318-ddb-timeout-leftover";
  leftover.summary = "Curator's DistributedDoubleBarrier counting the nodes of members that gave up (CURATOR-318)";
  leftover.family = RecipeFamily::DoubleBarrier;
  leftover.traits.ready_node = "ready";
  leftover.make_double_barrier = [](const HandleContext& c) {
    return std::make_unique<CuratorDoubleBarrier>(c, DdbVersion::Curator591);
  };
  leftover.flaw = curator_flaw("liveness", 0, 0, 5, /*varied=*/true);
  out.push_back(std::move(leftover));

  Recipe closed;
  closed.name = "bank/curator-18-latch-close-race";
  closed.summary = "Curator 2.0's LeaderLatch keeping a node made after it was closed (CURATOR-18)";
  closed.family = RecipeFamily::Election;
  closed.make_lock = [](const HandleContext& c) {
    return zksim::scenarios::election<CuratorLatch>(c.zk, c.dir, c.id, LatchVersion::Curator200);
  };
  closed.flaw = curator_flaw("liveness", 0, 0, 5, /*varied=*/true);
  out.push_back(std::move(closed));

  Recipe twice;
  twice.name = "bank/curator-652-latch-double-leader";
  twice.summary = "Curator 5.3's LeaderLatch keeping its leadership when its node is replaced (CURATOR-652)";
  twice.family = RecipeFamily::Election;
  twice.make_lock = [](const HandleContext& c) {
    return zksim::scenarios::election<CuratorLatch>(c.zk, c.dir, c.id, LatchVersion::Curator530);
  };
  twice.flaw = curator_flaw("one-leader", static_cast<std::int32_t>(TimedFault::BlipAll), 300, 300);
  out.push_back(std::move(twice));

  Recipe sem;
  sem.name = "bank/curator-315-semaphore-orphan";
  sem.summary = "Curator's InterProcessSemaphoreV2 handing out a gone lease and orphaning the live one (CURATOR-315)";
  sem.family = RecipeFamily::Semaphore;
  sem.traits.node_dirs = {"locks", "leases"};
  sem.traits.lease_dir = "leases";
  sem.make_lock = [](const HandleContext& c) { return std::make_unique<CuratorSemaphoreV2>(c); };
  sem.flaw = curator_flaw("no-leaks", static_cast<std::int32_t>(FaultKind::ExpireSession), 30, 300);
  out.push_back(std::move(sem));
  return out;
}

}  // namespace bank
