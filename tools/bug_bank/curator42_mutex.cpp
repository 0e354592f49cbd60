// Curator 4.2.0's InterProcessMutex, as LockInternals and
// StandardLockInternalsDriver write it (apache/curator, tag
// apache-curator-4.2.0, curator-recipes/.../locks/): correct by Curator's
// own contract, registered as `bank/curator42-mutex`.
//
//   acquire  a thread that holds already counts one more (reentrancy);
//            else attemptLock: a protected ephemeral-sequential "lock-"
//            node (curator.h), then internalLockLoop: while not held,
//            getChildren sorted by sequence; first: held; else, inside
//            synchronized(this), getData on the node just before ours with
//            a watcher that notifyAll()s (postSafeNotify), and wait (for
//            what is left of the timeout). NoNode from getData: look
//            again. A timeout or any exception deletes our node
//            (guaranteed); NoNode from the driver (our node is gone: the
//            session expired) retries attemptLock under the retry policy.
//   release  the last release removes the lock's pending watchers
//            (WatcherRemoveCuratorFramework.removeWatchers) and deletes
//            our node (guaranteed).
// Curator leaves what a lost connection means to the caller: "It is
// strongly recommended that you add a ConnectionStateListener and watch
// for SUSPENDED and LOST state changes" (Curator's recipe documentation,
// "Error Handling"). The harness is that caller here: the handle passes
// SUSPENDED, RECONNECTED and LOST on (SessionNews), and after LOST the
// caller treats the lock as gone.
#include "curator.h"

#include <algorithm>

namespace bank {

namespace {

class Curator42Mutex {
 public:
  Curator42Mutex(Client& zk, std::string dir, zksim::recipes::HoldListener on_hold)
      : zk_(zk), dir_(std::move(dir)), news_(std::make_unique<SessionNews>(zk, std::move(on_hold))),
        state_(std::make_shared<State>()) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    if (count_ > 0) {
      ++count_;
      co_return grant_;
    }
    news_->restart();
    auto path = co_await attempt_lock(timeout_ms);
    if (!path) co_return path.error();
    count_ = 1;
    co_return grant_;
  }

  Task<Result<void>> release() {
    if (count_ == 0) co_return Error::BadArguments;  // IllegalMonitorStateException
    if (--count_ > 0) co_return Result<void>();
    // releaseLock: removeWatchers, then the guaranteed delete.
    if (!state_->pending_watch.empty()) {
      const std::string watched = std::exchange(state_->pending_watch, "");
      co_await zk_.remove_all_watches(watched, zksim::WatcherType::Data);
    }
    const std::string ours = grant_.node;
    co_await curator::delete_guaranteed(zk_, ours);
    co_return Result<void>();
  }

  bool holds() const { return count_ > 0 && !news_->lost(); }

 private:
  // LockInternals.attemptLock: the node made, then the loop; NoNode from
  // the loop (our node is gone) starts again while the policy allows.
  Task<Result<std::string>> attempt_lock(TimeMs timeout_ms) {
    const TimeMs start = zk_.now();
    int retries = 0;
    for (;;) {
      auto made = co_await curator::create_protected(zk_, dir_, "lock-", CreateMode::EphemeralSequential);
      if (!made) co_return made.error();
      grant_ = Grant{made->path, made->czxid};
      auto held = co_await lock_loop(start, timeout_ms, made->path);
      if (held) {
        if (*held) co_return made->path;
        co_return Error::OperationTimeout;
      }
      if (held.error() == Error::NoNode && retries < 3) {
        co_await zk_.sleep(TimeMs{1000} << retries);
        ++retries;
        continue;
      }
      co_return held.error();
    }
  }

  // internalLockLoop: true when held, false when the wait timed out.
  Task<Result<bool>> lock_loop(TimeMs start, TimeMs timeout_ms, std::string ours) {
    TimeMs left = timeout_ms;
    TimeMs since = start;
    const std::string mine(name_of(ours));
    Result<bool> out = false;
    bool do_delete = false;
    for (;;) {
      if (zk_.state() == zksim::SessionState::Closed) break;
      auto kids = co_await curator::children(zk_, dir_);
      if (!kids) {
        do_delete = true;
        out = kids.error();
        break;
      }
      const std::vector<std::string> sorted = by_sequence(std::move(*kids));
      auto me = std::find(sorted.begin(), sorted.end(), mine);
      if (me == sorted.end()) {  // validateOurIndex: "Sequential path not found"
        do_delete = true;
        out = Error::NoNode;
        break;
      }
      if (me == sorted.begin()) {
        out = true;
        break;
      }
      const std::string previous = join(dir_, *(me - 1));
      // synchronized(this): the wait below cannot miss the watcher's notify.
      Signal notified = state_->monitor.next();
      Watcher watcher = [zk = &zk_, s = state_, previous](const WatchedEvent& e) {
        if (e.type != zksim::EventType::None && s->pending_watch == previous) s->pending_watch.clear();
        zk->post(notify_later(s));
      };
      int count = 0;
      Result<zksim::DataResponse> data = Error::ConnectionLoss;
      for (;;) {
        data = co_await zk_.get_data(previous, watcher);
        if (data || data.error() == Error::NoNode) break;
        if (!co_await curator::retry_after(zk_, data.error(), count)) break;
      }
      if (!data && data.error() == Error::NoNode) continue;  // released: look again
      if (!data) {
        do_delete = true;
        out = data.error();
        break;
      }
      state_->pending_watch = previous;
      if (timeout_ms >= 0) {
        left -= zk_.now() - since;
        since = zk_.now();
        if (left <= 0) {
          do_delete = true;
          out = false;
          break;
        }
        co_await zk_.wait_for(notified, left);
      } else {
        co_await notified.wait();
      }
    }
    if (do_delete) co_await curator::delete_guaranteed(zk_, ours);
    co_return out;
  }

  // postSafeNotify: runSafe(() -> synchronized(this) { notifyAll(); }).
  struct State {
    Monitor monitor;
    std::string pending_watch;  // a getData watch not yet triggered
  };
  static Task<> notify_later(std::shared_ptr<State> s) {
    s->monitor.notify_all();
    co_return;
  }

  Client& zk_;
  std::string dir_;
  std::unique_ptr<SessionNews> news_;
  std::shared_ptr<State> state_;  // shared with watchers that may outlive the handle
  Grant grant_;
  int count_ = 0;
};

}  // namespace

zksim::scenarios::Recipe curator42_mutex() {
  using namespace zksim::scenarios;
  Recipe r;
  r.name = "bank/curator42-mutex";
  r.summary = "Curator 4.2's InterProcessMutex; its caller heeds SUSPENDED and LOST, as Curator documents";
  r.family = RecipeFamily::Lock;
  r.traits.reentrant = true;
  r.traits.tells_loss = true;
  r.make_lock = [](const HandleContext& c) { return exclusive<Curator42Mutex>(c.zk, c.dir, c.on_hold); };
  return r;
}

}  // namespace bank
