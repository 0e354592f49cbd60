// Curator 4.2.0's InterProcessMutex, as LockInternals and
// StandardLockInternalsDriver write it (apache/curator, tag
// apache-curator-4.2.0, curator-recipes/.../locks/), registered twice:
// `bank/curator-604-mutex-old-session-node`, as Curator writes it, and
// `bank/curator42-mutex-owner-checked`, with the check CURATOR-604 lacks.
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
// SUSPENDED, RECONNECTED and LOST on (SessionNews), and the recipe states
// Curator's contract (Contract::Listener).
//
// CURATOR-604 (https://github.com/apache/curator/issues/1121, open): Curator
// declares the session lost by itself once suspended for the session
// timeout and opens a new one, while the server may not have expired the
// old session yet. A waiting acquire's loop then lists its node of the old
// session, finds it first and takes the lock; the server expires the old
// session a moment later, deleting that node, and the next waiter takes
// the lock too. The owner-checked version takes the lock only with a node
// of its own session (LockInternals' owner_checked).
#include "curator.h"

namespace bank {

namespace {

class Curator42Mutex {
 public:
  Curator42Mutex(Client& zk, std::string dir, zksim::recipes::HoldListener on_hold, bool owner_checked)
      : news_(std::make_unique<SessionNews>(zk, std::move(on_hold))),
        internals_(zk, std::move(dir), "lock-", curator::standard_driver, owner_checked) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    if (count_ > 0) {  // re-entering
      ++count_;
      co_return grant_;
    }
    auto held = co_await internals_.attempt_lock(timeout_ms);
    if (!held) co_return held.error();
    news_->restart();  // a grant after a LOST heard while waiting is a new hold
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

std::vector<zksim::scenarios::Recipe> curator42_mutexes() {
  using namespace zksim::scenarios;
  std::vector<Recipe> out;
  for (bool owner_checked : {false, true}) {
    Recipe r;
    r.name = owner_checked ? "bank/curator42-mutex-owner-checked" : "bank/curator-604-mutex-old-session-node";
    r.summary = owner_checked
                    ? "Curator 4.2's InterProcessMutex with the owner check CURATOR-604 lacks; its caller heeds "
                      "SUSPENDED and LOST, as Curator documents"
                    : "Curator 4.2's InterProcessMutex taking the lock with its node of an expiring session "
                      "(CURATOR-604)";
    r.family = RecipeFamily::Lock;
    r.traits.reentrant = true;
    r.traits.tells_loss = true;
    r.traits.contract = Contract::Listener;
    r.make_lock = [owner_checked](const HandleContext& c) {
      return exclusive<Curator42Mutex>(c.zk, c.dir, c.on_hold, owner_checked);
    };
    if (!owner_checked) {
      r.flaw.emplace();
      r.flaw->property = "mutual-exclusion";
      r.flaw->fault_class = static_cast<std::int32_t>(zksim::TimedFault::BlipAll);
      r.flaw->per_mille = 100;
      r.flaw->hold_ms = 300;
      r.flaw->flavour = zksim::Flavour::Curator;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace bank
