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

namespace bank {

namespace {

class Curator42Mutex {
 public:
  Curator42Mutex(Client& zk, std::string dir, zksim::recipes::HoldListener on_hold)
      : news_(std::make_unique<SessionNews>(zk, std::move(on_hold))),
        internals_(zk, std::move(dir), "lock-", curator::standard_driver) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    if (count_ > 0) {  // re-entering
      ++count_;
      co_return grant_;
    }
    news_->restart();
    auto held = co_await internals_.attempt_lock(timeout_ms);
    if (!held) co_return held.error();
    grant_ = Grant{held->path, held->czxid};
    count_ = 1;
    co_return grant_;
  }

  Task<Result<void>> release() {
    if (count_ == 0) co_return Error::BadArguments;  // IllegalMonitorStateException
    if (--count_ > 0) co_return Result<void>();
    co_await internals_.release_lock(grant_.node);
    co_return Result<void>();
  }

  bool holds() const { return count_ > 0 && !news_->lost(); }

 private:
  std::unique_ptr<SessionNews> news_;
  curator::LockInternals internals_;
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
