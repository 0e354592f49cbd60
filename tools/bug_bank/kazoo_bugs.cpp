// Bugs of kazoo's recipes (python-zk/kazoo, kazoo/recipe/lock.py and
// queue.py), ported with the kazoo flavour: the recipe runs on the
// caller's thread, watchers on kazoo's callback thread, and a dropped
// connection tells each watcher once and forgets it.
//
// What the ports keep of kazoo's machinery:
//   KazooRetry(max_tries=None): ConnectionLoss, OperationTimeout,
//     ForceRetryError and (ignore_expire) SessionExpired retried without
//     end, sleeping 0.1 s doubled each time up to 3600 s, until the
//     retry's deadline (the lock's timeout). kazoo adds up to 0.8 s of
//     random jitter; the ports leave it out, so the same decisions give
//     the same run.
//   A listener (client.add_listener) is a session listener here.
// Where kazoo's directory layout would put nodes outside the recipe's
// directory (the semaphore's lock at "<path>-__lock__"), the ports put
// them under it ("<dir>/lock"), so the harness sees every node.
#include "bank.h"

#include <algorithm>
#include <optional>

namespace bank {

namespace {

using zksim::scenarios::Flaw;
using zksim::scenarios::HandleContext;
using zksim::scenarios::Recipe;
using zksim::scenarios::RecipeFamily;

// KazooRetry's sleep before retry `attempt` (0-based).
TimeMs kazoo_backoff(int attempt) { return std::min<TimeMs>(TimeMs{100} << std::min(attempt, 16), 3'600'000); }

bool kazoo_retryable(Error e) {
  return e == Error::ConnectionLoss || e == Error::OperationTimeout || e == Error::SessionExpired;
}

// ForceRetryError, as the ports raise it: KazooRetry retries it as it
// retries a lost connection.
constexpr Error kForceRetry = Error::ConnectionLoss;
// LockTimeout, raised inside the retried call and not retried.
constexpr Error kLockTimeout = Error::OperationTimeout;

// ---------------------------------------------------------------------------
// kazoo's Lock (kazoo.recipe.lock.Lock), in the versions the bugs below
// lived in. acquire(blocking, timeout) runs _inner_acquire under the
// lock's retry with the timeout as deadline: find our node again after a
// retry (by its uuid prefix) or create "<uuid><node name>" ephemeral and
// sequential; then, until we have no predecessor: look for the
// predecessor, and if there is one and we may block, listen to the session
// (any state change wakes us) and watch the predecessor, waiting up to the
// timeout. A failed acquire deletes our node (best effort).
//
// bank/kazoo-herd-first-predecessor: kazoo commit 79f2895 (shared
//   read/write locks, 2017-03-10) made predecessor() return the FIRST
//   excluding node below ours instead of the last, so every waiter watches
//   the holder and every release wakes them all; fixed 17 days later by
//   7dd4c4c, "Set watch on immediate predecessor in locks"
//   (https://github.com/python-zk/kazoo/commit/7dd4c4c1161d93327142230a76a2d6527c4b08d2),
//   before 2.3.0 was released: on kazoo's master only. zksim should report
//   herd-effect, with no fault.
// bank/kazoo-exists-creation-watch: kazoo 2.3.0 to 2.4.0 watched the
//   predecessor with exists(); when the predecessor was deleted between
//   get_children and exists, exists leaves a creation watch on a node that
//   will never be made: a leaked watch per race. Fixed in 2.5.0 by 9b0a793,
//   "Don't set creation watch on lock predecessor node"
//   (https://github.com/python-zk/kazoo/commit/9b0a793e1275b7b031392b66b805b702a1bc58be).
//   zksim should report no-leaks, with no fault.
// bank/kazoo-649-rw-deadlock: kazoo issue #649, "Deadlock with read/write
//   lock recipe" (https://github.com/python-zk/kazoo/issues/649, fixed by
//   https://github.com/python-zk/kazoo/pull/650 in 2.9.0). In 2.8.0,
//   _get_predecessor matched the contenders with a regex and took the
//   last contender before our own match; a reader's own node is no
//   contender of its own kind, so the loop never meets it and the reader
//   watches the LAST writer, even one that came after it and is waiting
//   for that reader: both wait forever. zksim should report liveness, with
//   no fault (a reader, then a writer, behind a writer).
// bank/kazoo-732-nonblocking-cleanup: kazoo issue #732, "Non-blocking lock
//   acquisition failure can leak the ephemeral lock node"
//   (https://github.com/python-zk/kazoo/issues/732; proposed fix
//   https://github.com/python-zk/kazoo/pull/760, open), reported on 2.8.0
//   and still in 2.11.0; ported as 2.9.0 to 2.11.0 write the Lock. A
//   try-lock (blocking=False) that finds a predecessor deletes its node
//   with _best_effort_cleanup, which tries once and swallows the error:
//   when the connection drops then and the session survives, the
//   contender node stays for the session's life. Once the nodes before it
//   are released it is first, and nobody will release it: every waiter
//   waits forever. zksim should report liveness with try-locks (varied
//   workloads) and deletes lost before they reach the server.
// ---------------------------------------------------------------------------
enum class KazooLockVersion {
  FirstPredecessor,  // master, 2017-03-10 to 03-27: the first node below ours, watched with exists
  ExistsWatch,       // 2.3.0 to 2.4.0: the node just below ours, watched with exists
  ContenderRegex,    // 2.8.0: regex contenders, watched with get
  Current,           // 2.9.0 to 2.11.0: regex contenders below our sequence, watched with get
};

class KazooLock {
 public:
  KazooLock(Client& zk, std::string dir, KazooLockVersion version, std::string node_name,
            std::vector<std::string> exclude_names)
      : zk_(zk),
        dir_(std::move(dir)),
        version_(version),
        node_name_(std::move(node_name)),
        exclude_(std::move(exclude_names)),
        prefix_(zk.unique_id() + node_name_),
        wake_(std::make_shared<Signal>()) {}

  // blocking = false for a timeout of 0; a negative timeout: none.
  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    const bool blocking = timeout_ms != 0;
    const TimeMs deadline = timeout_ms > 0 ? zk_.now() + timeout_ms : -1;
    Result<bool> gotten = false;
    for (int attempt = 0;; ++attempt) {
      gotten = co_await inner_acquire(blocking, timeout_ms);
      if (gotten || !kazoo_retryable(gotten.error())) break;
      const TimeMs sleep = kazoo_backoff(attempt);
      if (deadline >= 0 && zk_.now() + sleep >= deadline) {  // RetryFailedError: not gotten
        gotten = false;
        break;
      }
      co_await zk_.sleep(sleep);
    }
    if (gotten && *gotten) {
      acquired_ = true;
      co_return Grant{join(dir_, node_), czxid_};
    }
    co_await best_effort_cleanup();
    co_return gotten ? Error::OperationTimeout : gotten.error();
  }

  Task<Result<void>> release() {
    if (!acquired_) co_return Result<void>();
    for (int attempt = 0;; ++attempt) {
      auto gone = co_await zk_.remove(join(dir_, node_));
      if (gone || gone.error() == Error::NoNode || !kazoo_retryable(gone.error())) break;
      co_await zk_.sleep(kazoo_backoff(attempt));
    }
    acquired_ = false;
    node_.clear();
    co_return Result<void>();
  }

  bool holds() const { return acquired_; }

 private:
  Task<Result<bool>> inner_acquire(bool blocking, TimeMs timeout_ms) {
    if (!assured_path_) {
      auto there = co_await ensure_path(zk_, dir_);
      if (!there) co_return there.error();
      assured_path_ = true;
    }
    std::string node;
    if (create_tried_) {
      auto found = co_await find_node();
      if (!found) co_return found.error();
      node = *found;
    } else {
      create_tried_ = true;
    }
    if (node.empty()) {
      auto made = co_await zk_.create(join(dir_, prefix_), "", CreateMode::EphemeralSequential);
      if (!made) co_return made.error();
      node = std::string(name_of(made->path));
      czxid_ = made->stat.czxid;
    } else {
      auto st = co_await zk_.exists(join(dir_, node));
      czxid_ = st ? st->czxid : 0;
    }
    node_ = node;
    for (;;) {
      *wake_ = Signal();  // wake_event.clear()
      auto predecessor = co_await get_predecessor(node);
      if (!predecessor) co_return predecessor.error();
      if (!*predecessor) co_return true;
      if (!blocking) co_return false;
      const std::string watched = join(dir_, **predecessor);
      auto wake = wake_;
      const std::uint64_t listener = zk_.add_session_listener([wake](const WatchedEvent&) { wake->set(); });
      Watcher watch_predecessor = [wake](const WatchedEvent&) { wake->set(); };
      Result<bool> there = false;
      if (version_ == KazooLockVersion::ContenderRegex || version_ == KazooLockVersion::Current) {
        auto got = co_await zk_.get_data(watched, watch_predecessor);
        there = got ? Result<bool>(true) : got.error() == Error::NoNode ? Result<bool>(false) : Result<bool>(got.error());
      } else {
        auto st = co_await zk_.exists(watched, watch_predecessor);
        there = st ? Result<bool>(true) : st.error() == Error::NoNode ? Result<bool>(false) : Result<bool>(st.error());
      }
      if (there && *there) {
        const bool woken = co_await zk_.wait_for(*wake_, timeout_ms < 0 ? -1 : timeout_ms);
        zk_.remove_session_listener(listener);
        if (!woken) co_return kLockTimeout;
        continue;
      }
      zk_.remove_session_listener(listener);
      if (!there) co_return there.error();
    }
  }

  // The predecessor to wait for, if any (the version's rule).
  Task<Result<std::optional<std::string>>> get_predecessor(std::string node) {
    auto kids = co_await zk_.get_children(dir_);
    if (!kids) co_return kids.error();
    auto excluding = [this](const std::string& c) {
      return std::any_of(exclude_.begin(), exclude_.end(),
                         [&](const std::string& n) { return c.find(n) != std::string::npos; });
    };
    if (version_ == KazooLockVersion::FirstPredecessor || version_ == KazooLockVersion::ExistsWatch) {
      const std::vector<std::string> children = by_sequence(std::move(kids->children));
      auto me = std::find(children.begin(), children.end(), node);
      if (me == children.end()) co_return kForceRetry;  // our node is gone
      std::optional<std::string> out;
      for (auto c = children.begin(); c != me; ++c) {
        if (!excluding(*c)) continue;
        out = *c;
        if (version_ == KazooLockVersion::FirstPredecessor) break;
      }
      co_return out;
    }
    // _contenders_re: one of the excluding names, then a 10-digit sequence.
    auto contender = [this](const std::string& c) {
      for (const std::string& n : exclude_) {
        if (c.size() >= n.size() + 10 && c.compare(c.size() - 10 - n.size(), n.size(), n) == 0) return true;
      }
      return false;
    };
    const std::string_view our_sequence = sequence_of(node);
    std::vector<std::string> matches;
    bool found_self = false;
    bool self_matches = false;
    for (const std::string& child : kids->children) {
      // 2.9.0 on: only contenders with a smaller sequence number.
      if (contender(child) && (version_ == KazooLockVersion::ContenderRegex || sequence_of(child) < our_sequence)) {
        matches.push_back(child);
      }
      if (child == node) {
        found_self = true;
        self_matches = contender(child);
      }
    }
    if (!found_self) co_return kForceRetry;
    matches = by_sequence(std::move(matches));
    if (version_ == KazooLockVersion::Current) {
      if (matches.empty()) co_return std::optional<std::string>();
      co_return matches.back();
    }
    std::optional<std::string> out;
    for (const std::string& m : matches) {
      if (self_matches && m == node) break;  // `match is found_self`: never, for a reader
      out = m;
    }
    co_return out;
  }

  Task<Result<std::string>> find_node() {
    auto kids = co_await zk_.get_children(dir_);
    if (!kids) co_return kids.error();
    for (const std::string& child : kids->children) {
      if (child.starts_with(prefix_)) co_return child;
    }
    co_return std::string();
  }

  Task<void> best_effort_cleanup() {
    std::string node = node_;
    if (node.empty()) {
      auto found = co_await find_node();
      if (found) node = *found;
    }
    if (!node.empty()) co_await zk_.remove(join(dir_, node));
    node_.clear();
  }

  Client& zk_;
  std::string dir_;
  KazooLockVersion version_;
  std::string node_name_;
  std::vector<std::string> exclude_;
  std::string prefix_;
  std::shared_ptr<Signal> wake_;  // wake_event, shared with its watchers and listeners
  std::string node_;
  std::int64_t czxid_ = 0;
  bool assured_path_ = false;
  bool create_tried_ = false;
  bool acquired_ = false;
};

class KazooExclusive {
 public:
  KazooExclusive(Client& zk, std::string dir, KazooLockVersion v) : lock_(zk, std::move(dir), v, "__lock__", {"__lock__"}) {}
  Task<Result<Grant>> acquire(TimeMs t) { return lock_.acquire(t); }
  Task<Result<void>> release() { return lock_.release(); }
  bool holds() const { return lock_.holds(); }

 private:
  KazooLock lock_;
};

// ReadLock and WriteLock (2.8.0) on one path.
class KazooReadWrite {
 public:
  KazooReadWrite(Client& zk, const std::string& dir)
      : read_(zk, dir, KazooLockVersion::ContenderRegex, "__rlock__", {"__lock__"}),
        write_(zk, dir, KazooLockVersion::ContenderRegex, "__lock__", {"__lock__", "__rlock__"}) {}
  Task<Result<Grant>> acquire_read(TimeMs t) { return read_.acquire(t); }
  Task<Result<Grant>> acquire_write(TimeMs t) { return write_.acquire(t); }
  Task<Result<void>> release_read() { return read_.release(); }
  Task<Result<void>> release_write() { return write_.release(); }
  bool holds_read() const { return read_.holds(); }
  bool holds_write() const { return write_.holds(); }

 private:
  KazooLock read_;
  KazooLock write_;
};

// ---------------------------------------------------------------------------
// bank/kazoo-213-nonblocking-semaphore: kazoo issue #213, "Non-blocking
//   semaphore can lead to double acquire"
//   (https://github.com/python-zk/kazoo/issues/213), in kazoo 1.1 to 2.1;
//   fixed in 2.2 by 87fe12f, "Fix semaphore usage". A non-blocking acquire
//   that found no free lease left get_children(path, self._get_lease): a
//   watch whose callback is _get_lease itself, which later, on kazoo's
//   callback thread and outside the semaphore's inner lock, creates the
//   lease node if it counts fewer than max_leases, and marks the semaphore
//   acquired. Several such callbacks fire on one change, each counts the
//   same free room, and each takes a lease; the next acquire of their
//   clients finds its lease already there and returns at once. zksim
//   should report semaphore-leases, with no fault, once try-acquires
//   (timeout 0, varied workloads) fail behind holders that hold long
//   (3 s), so that several such callbacks wait for the same release.
// ---------------------------------------------------------------------------
class KazooSemaphore {
 public:
  KazooSemaphore(Client& zk, const std::string& dir, int max_leases)
      : zk_(zk),
        path_(join(dir, "leases")),
        lock_path_(join(dir, "lock")),
        create_path_(join(path_, zk.unique_id())),
        max_leases_(max_leases),
        state_(std::make_shared<State>()) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    const bool blocking = timeout_ms != 0;
    auto got = co_await retried_inner_acquire(blocking, timeout_ms);
    if (!got) {
      co_await zk_.remove(create_path_);  // _best_effort_cleanup
      co_return got.error();
    }
    state_->acquired = *got;
    if (!*got) co_return Error::OperationTimeout;
    auto st = co_await zk_.exists(create_path_);
    co_return Grant{create_path_, st ? st->czxid : 0};
  }

  Task<Result<void>> release() {
    if (!state_->acquired) co_return Result<void>();
    for (int attempt = 0;; ++attempt) {
      auto gone = co_await zk_.remove(create_path_);
      if (gone || gone.error() == Error::NoNode || !kazoo_retryable(gone.error())) break;
      co_await zk_.sleep(kazoo_backoff(attempt));
    }
    state_->acquired = false;
    co_return Result<void>();
  }

  bool holds() const { return state_->acquired; }

 private:
  struct State {
    bool acquired = false;
    Signal wake;
  };

  Task<Result<bool>> retried_inner_acquire(bool blocking, TimeMs timeout_ms) {
    for (int attempt = 0;; ++attempt) {
      auto r = co_await inner_acquire(blocking, timeout_ms);
      if (r || !kazoo_retryable(r.error())) co_return r;
      co_await zk_.sleep(kazoo_backoff(attempt));
    }
  }

  Task<Result<bool>> inner_acquire(bool blocking, TimeMs timeout_ms) {
    if (!assured_path_) {
      auto there = co_await ensure_path(zk_, path_);
      if (!there) co_return there.error();
      // The max_leases check: the path's data holds it.
      auto data = co_await zk_.get_data(path_);
      if (!data) co_return data.error();
      if (data->data.empty()) co_await zk_.set_data(path_, std::to_string(max_leases_));
      assured_path_ = true;
    }
    // Do we already have a lease?
    auto have = co_await zk_.exists(create_path_);
    if (have) co_return true;
    if (have.error() != Error::NoNode) co_return have.error();
    // with self.client.Lock(self.lock_path, self.data): blocking, no timeout.
    KazooLock lock(zk_, lock_path_, KazooLockVersion::ExistsWatch, "__lock__", {"__lock__"});
    auto locked = co_await lock.acquire(-1);
    if (!locked) co_return locked.error();
    Result<bool> out = false;
    for (;;) {
      state_->wake = Signal();
      Signal wake = state_->wake;
      auto leased = co_await get_lease(zk_, path_, create_path_, max_leases_, state_);
      if (!leased) {
        out = leased.error();
        break;
      }
      if (*leased) {
        out = true;
        break;
      }
      if (blocking) {
        if (!co_await zk_.wait_for(wake, timeout_ms)) {
          out = kLockTimeout;
          break;
        }
        continue;
      }
      // The flaw: a watch whose callback is _get_lease itself.
      Client* zk = &zk_;
      Watcher later = [zk, path = path_, create = create_path_, max = max_leases_, s = state_](const WatchedEvent&) {
        zk->post(get_lease_in_callback(*zk, path, create, max, s));
      };
      co_await zk_.get_children(path_, later);
      out = false;
      break;
    }
    co_await lock.release();
    co_return out;
  }

  // _get_lease: a lease made if the count leaves room, then whether ours is there.
  static Task<Result<bool>> get_lease(Client& zk, std::string path, std::string create_path, int max_leases,
                                      std::shared_ptr<State> state) {
    Watcher watch_lease_change = [state](const WatchedEvent&) { state->wake.set(); };
    auto kids = co_await zk.get_children(path, watch_lease_change);
    if (!kids) co_return kids.error();
    if (static_cast<int>(kids->children.size()) < max_leases) {
      auto made = co_await zk.create(create_path, "", CreateMode::Ephemeral);
      if (!made && made.error() != Error::NodeExists) co_return made.error();
    }
    auto there = co_await zk.exists(create_path);
    if (!there && there.error() != Error::NoNode) co_return there.error();
    state->acquired = there.ok();
    co_return state->acquired;
  }

  // On kazoo's callback thread: what it raises is logged and dropped.
  static Task<> get_lease_in_callback(Client& zk, std::string path, std::string create_path, int max_leases,
                                      std::shared_ptr<State> state) {
    co_await get_lease(zk, std::move(path), std::move(create_path), max_leases, std::move(state));
  }

  Client& zk_;
  std::string path_;
  std::string lock_path_;
  std::string create_path_;
  int max_leases_;
  std::shared_ptr<State> state_;
  bool assured_path_ = false;
};

class KazooSemaphoreHandle final : public zksim::scenarios::LockHandle {
 public:
  explicit KazooSemaphoreHandle(const HandleContext& c) : s_(c.zk, c.dir, c.leases) {}
  Task<Result<Grant>> acquire(bool, TimeMs t) override { return s_.acquire(t); }
  Task<Result<void>> release(bool) override { return s_.release(); }
  bool holds(bool) const override { return s_.holds(); }

 private:
  KazooSemaphore s_;
};

// ---------------------------------------------------------------------------
// bank/kazoo-352-queue-stale-children: kazoo issue #352,
//   "kazoo.recipe.queue.Queue get() block forever"
//   (https://github.com/python-zk/kazoo/issues/352, fixed by
//   https://github.com/python-zk/kazoo/pull/359 in 2.3.0). From 2.0
//   (https://github.com/python-zk/kazoo/pull/177) Queue.get() keeps the
//   sorted children of its last get_children and takes the first; when
//   that entry has gone (another consumer took it), it raises
//   ForceRetryError without forgetting the list, so every retry reads the
//   same gone entry: the consumer retries forever, backing off. zksim
//   should report liveness, with no fault (two consumers).
//   Queue.get() does not block (None when empty); a take polls it every
//   10 ms until its timeout.
// ---------------------------------------------------------------------------
class KazooQueue final : public zksim::scenarios::QueueHandle {
 public:
  static constexpr const char* kMarker = "entry-";
  explicit KazooQueue(const HandleContext& c) : zk_(c.zk), path_(c.dir) {}

  Task<Result<void>> put(std::string value) override {
    auto there = co_await ensure_path(zk_, path_);
    if (!there) co_return there.error();
    auto made = co_await zk_.create(join(path_, "entry-100-"), std::move(value), CreateMode::PersistentSequential);
    if (!made) co_return made.error();
    co_return Result<void>();
  }

  Task<Result<zksim::recipes::Item>> take(TimeMs timeout_ms) override {
    auto there = co_await ensure_path(zk_, path_);
    if (!there) co_return there.error();
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    for (;;) {
      auto got = co_await get();
      if (!got) co_return got.error();
      if (*got) co_return **got;
      if (deadline >= 0 && zk_.now() >= deadline) co_return Error::OperationTimeout;
      co_await zk_.sleep(10);
    }
  }

 private:
  // client.retry(self._inner_get).
  Task<Result<std::optional<zksim::recipes::Item>>> get() {
    for (int attempt = 0;; ++attempt) {
      auto r = co_await inner_get();
      if (r || !kazoo_retryable(r.error())) co_return r;
      co_await zk_.sleep(kazoo_backoff(attempt));
    }
  }

  Task<Result<std::optional<zksim::recipes::Item>>> inner_get() {
    if (children_.empty()) {
      auto kids = co_await zk_.get_children(path_);
      if (!kids) co_return kids.error();
      children_ = kids->children;
      std::sort(children_.begin(), children_.end());
    }
    if (children_.empty()) co_return std::optional<zksim::recipes::Item>();
    const std::string node = join(path_, children_.front());
    auto data = co_await zk_.get_data(node);
    if (!data) co_return data.error() == Error::NoNode ? kForceRetry : data.error();  // the list kept
    auto gone = co_await zk_.remove(node);
    if (!gone) co_return gone.error() == Error::NoNode ? kForceRetry : gone.error();  // the list kept
    children_.erase(children_.begin());
    co_return zksim::recipes::Item{node, std::move(data->data)};
  }

  Client& zk_;
  std::string path_;
  std::vector<std::string> children_;
};

// ---------------------------------------------------------------------------
// bank/kazoo-366-lockingqueue-taken-leak: kazoo issue #366, "LockingQueue
//   bug" (https://github.com/python-zk/kazoo/issues/366, fixed in 2.6.0 by
//   7a8167d, "Delete lock node in queue recipe if entry already consumed";
//   see also https://github.com/python-zk/kazoo/pull/501). In 1.0 to
//   2.5.0, _take creates the "taken/<id>" claim first and then reads the
//   entry; when another consumer consumed the entry in between, the read
//   fails with NoNode and _take returns None, leaving the claim of an entry
//   that no longer exists: it stays as long as the session. zksim should
//   report no-leaks, with no fault (two consumers).
//   get(timeout) waits for children events on entries and taken; ack is
//   consume() (both nodes deleted in one transaction), give_back release().
// ---------------------------------------------------------------------------
class KazooLockingQueue final : public zksim::scenarios::QueueHandle {
 public:
  explicit KazooLockingQueue(const HandleContext& c)
      : zk_(c.zk), entries_(join(c.dir, "entries")), taken_(join(c.dir, "taken")), id_(c.zk.unique_id()) {}

  Task<Result<void>> put(std::string value) override {
    auto there = co_await ensure_paths();
    if (!there) co_return there.error();
    auto made = co_await zk_.create(join(entries_, "entry-100-"), std::move(value), CreateMode::PersistentSequential);
    if (!made) co_return made.error();
    co_return Result<void>();
  }

  Task<Result<zksim::recipes::Item>> take(TimeMs timeout_ms) override {
    auto there = co_await ensure_paths();
    if (!there) co_return there.error();
    if (processing_) co_return *processing_;
    // _inner_get: check_for_updates now and on every child change, until
    // it took an entry or the wait ends.
    auto state = std::make_shared<GetState>();
    co_await check_for_updates(zk_, entries_, taken_, id_, state);
    co_await zk_.wait_for(state->flag, timeout_ms);
    state->canceled = true;
    if (!state->value) co_return Error::OperationTimeout;
    processing_ = state->value;
    co_return *processing_;
  }

  Task<Result<void>> ack(zksim::recipes::Item) override { return finish(true); }
  Task<Result<void>> give_back(zksim::recipes::Item) override { return finish(false); }

 private:
  struct GetState {
    Signal flag;
    bool canceled = false;
    bool busy = false;  // the callback's `with lock`
    std::optional<zksim::recipes::Item> value;
  };

  Task<Result<void>> ensure_paths() {
    auto a = co_await ensure_path(zk_, entries_);
    if (!a) co_return a;
    co_return co_await ensure_path(zk_, taken_);
  }

  static Task<Result<std::vector<std::string>>> retry_children(Client& zk, std::string path, Watcher w) {
    for (int attempt = 0;; ++attempt) {
      auto kids = co_await zk.get_children(path, w);
      if (kids) co_return std::move(kids->children);
      if (!kazoo_retryable(kids.error())) co_return kids.error();
      co_await zk.sleep(kazoo_backoff(attempt));
    }
  }

  static Task<> check_for_updates(Client& zk, std::string entries, std::string taken, std::string id,
                                  std::shared_ptr<GetState> state) {
    if (state->canceled || state->flag.is_set() || state->busy) co_return;
    state->busy = true;
    Client* z = &zk;
    Watcher again = [z, entries, taken, id, state](const WatchedEvent& e) {
      if (e.type != zksim::EventType::NodeChildrenChanged) return;
      z->post(check_for_updates(*z, entries, taken, id, state));
    };
    auto values = co_await retry_children(zk, entries, again);
    auto claims = co_await retry_children(zk, taken, again);
    if (values && claims) {
      std::vector<std::string> available = std::move(*values);
      std::sort(available.begin(), available.end());
      std::erase_if(available, [&](const std::string& v) {
        return std::find(claims->begin(), claims->end(), v) != claims->end();
      });
      if (!available.empty()) {
        auto item = co_await take_one(zk, entries, taken, id, available.front());
        if (item) {
          state->value = std::move(item);
          state->flag.set();
        }
      }
    }
    state->busy = false;
  }

  // _take: the claim, then the entry's value; NoNode or NodeExists: None.
  static Task<std::optional<zksim::recipes::Item>> take_one(Client& zk, std::string entries, std::string taken,
                                                            std::string id, std::string entry) {
    auto claimed = co_await zk.create(join(taken, entry), id, CreateMode::Ephemeral);
    if (!claimed) co_return std::nullopt;
    const std::string node = join(entries, entry);
    for (int attempt = 0;; ++attempt) {
      auto data = co_await zk.get_data(node);
      if (data) co_return zksim::recipes::Item{node, std::move(data->data)};
      if (!kazoo_retryable(data.error())) co_return std::nullopt;  // the flaw: the claim stays
      co_await zk.sleep(kazoo_backoff(attempt));
    }
  }

  // consume() or release(): only while we hold the claim.
  Task<Result<void>> finish(bool consume) {
    if (!processing_) co_return Error::BadArguments;
    const std::string entry(name_of(processing_->node));
    const std::string claim = join(taken_, entry);
    co_await zk_.sync(claim);
    auto holder = co_await zk_.get_data(claim);
    if (!holder || holder->data != id_) {
      processing_.reset();
      co_return holder ? Error::BadArguments : holder.error();
    }
    std::vector<zksim::MultiOp> ops;
    if (consume) {
      zksim::DeleteRequest entry_gone{processing_->node};
      ops.emplace_back(std::move(entry_gone));
    }
    zksim::DeleteRequest claim_gone{claim};
    ops.emplace_back(std::move(claim_gone));
    auto done = co_await zk_.multi(std::move(ops));
    processing_.reset();
    if (done.error != Error::Ok) co_return done.error;
    co_return Result<void>();
  }

  Client& zk_;
  std::string entries_;
  std::string taken_;
  std::string id_;
  std::optional<zksim::recipes::Item> processing_;
};

Flaw kazoo_flaw(std::string property, bool varied = false) {
  Flaw f;
  f.property = std::move(property);
  f.flavour = zksim::Flavour::Kazoo;
  f.varied = varied;
  return f;
}

Recipe exclusive_recipe(std::string name, std::string summary, KazooLockVersion v, Flaw flaw) {
  Recipe r;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.family = RecipeFamily::Lock;
  r.make_lock = [v](const HandleContext& c) { return zksim::scenarios::exclusive<KazooExclusive>(c.zk, c.dir, v); };
  r.flaw = std::move(flaw);
  return r;
}

}  // namespace

std::vector<Recipe> kazoo_bugs() {
  std::vector<Recipe> out;
  out.push_back(exclusive_recipe("bank/kazoo-herd-first-predecessor",
                                 "kazoo's Lock watching the first node below its own (kazoo 7dd4c4c)",
                                 KazooLockVersion::FirstPredecessor, kazoo_flaw("herd-effect")));
  out.push_back(exclusive_recipe("bank/kazoo-exists-creation-watch",
                                 "kazoo's Lock watching its predecessor with exists (kazoo 9b0a793)",
                                 KazooLockVersion::ExistsWatch, kazoo_flaw("no-leaks")));

  Recipe cleanup = exclusive_recipe("bank/kazoo-732-nonblocking-cleanup",
                                    "kazoo's Lock leaving its node when a try-lock's cleanup fails (kazoo #732)",
                                    KazooLockVersion::Current, kazoo_flaw("liveness", /*varied=*/true));
  cleanup.flaw->fault_class = static_cast<std::int32_t>(zksim::FaultKind::DropBeforeApply);
  cleanup.flaw->per_mille = 30;
  out.push_back(std::move(cleanup));

  Recipe rw;
  rw.name = "bank/kazoo-649-rw-deadlock";
  rw.summary = "kazoo 2.8.0's ReadLock waiting for a writer that came after it (kazoo #649)";
  rw.family = RecipeFamily::ReadWriteLock;
  rw.traits.write_node = [](std::string_view n) { return n.find("__lock__") != std::string_view::npos; };
  rw.make_lock = [](const HandleContext& c) { return zksim::scenarios::read_write<KazooReadWrite>(c.zk, c.dir); };
  rw.flaw = kazoo_flaw("liveness");
  out.push_back(std::move(rw));

  Recipe sem;
  sem.name = "bank/kazoo-213-nonblocking-semaphore";
  sem.summary = "kazoo's Semaphore whose failed try-acquire takes a lease later (kazoo #213)";
  sem.family = RecipeFamily::Semaphore;
  sem.traits.node_dirs = {"leases", "lock"};
  sem.traits.lease_dir = "leases";
  sem.make_lock = [](const HandleContext& c) { return std::make_unique<KazooSemaphoreHandle>(c); };
  sem.flaw = kazoo_flaw("semaphore-leases", /*varied=*/true);
  sem.flaw->hold_ms = 3000;
  out.push_back(std::move(sem));

  Recipe queue;
  queue.name = "bank/kazoo-352-queue-stale-children";
  queue.summary = "kazoo's Queue retrying a gone entry from its kept list (kazoo #352)";
  queue.family = RecipeFamily::Queue;
  queue.traits.item_marker = KazooQueue::kMarker;
  queue.traits.at_most_once = true;  // kazoo's Queue: "does not offer reliable consumption"
  queue.make_queue = [](const HandleContext& c) { return std::make_unique<KazooQueue>(c); };
  queue.flaw = kazoo_flaw("liveness");
  out.push_back(std::move(queue));

  Recipe locking;
  locking.name = "bank/kazoo-366-lockingqueue-taken-leak";
  locking.summary = "kazoo's LockingQueue leaving the claim of an entry consumed meanwhile (kazoo #366)";
  locking.family = RecipeFamily::LockingQueue;
  locking.traits.item_marker = KazooQueue::kMarker;
  locking.traits.items_dir = "entries";
  locking.traits.claims_dir = "taken";
  locking.traits.node_dirs = {"entries", "taken"};
  locking.make_queue = [](const HandleContext& c) { return std::make_unique<KazooLockingQueue>(c); };
  locking.flaw = kazoo_flaw("no-leaks");
  out.push_back(std::move(locking));
  return out;
}

}  // namespace bank
