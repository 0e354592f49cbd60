// A plugin as a user would write one (zksim/scenarios/plugin.h): a correct
// lock (zksim's own Lock under another name, so the plugin calls into the
// zksim program that loads it) and a lock of its own with a bug, a holder
// that never hears its session end.
#include "zksim/recipes/lock.h"
#include "zksim/scenarios/plugin.h"

namespace {

using zksim::Client;
using zksim::CreateMode;
using zksim::Error;
using zksim::Result;
using zksim::Task;
using zksim::TimeMs;
using zksim::recipes::Grant;

// One ephemeral node, created once: whoever made it holds, the others poll
// every 5 ms. It believes it holds from the create until release, whatever
// happens to its session.
class PollingLock {
 public:
  PollingLock(Client& zk, std::string dir) : zk_(zk), node_(std::move(dir) + "/held") {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    for (;;) {
      auto made = co_await zk_.create(node_, "", CreateMode::Ephemeral);
      if (made) {
        held_ = true;
        co_return Grant{node_, made->stat.czxid};
      }
      if (made.error() == Error::NoNode) {
        // Its ancestors, each made unless there (or made by another).
        for (std::size_t slash = node_.find('/', 1); slash != std::string::npos; slash = node_.find('/', slash + 1)) {
          std::string ancestor = node_.substr(0, slash);
          co_await zk_.create(ancestor, "", CreateMode::Persistent);
        }
        continue;
      }
      if (made.error() != Error::NodeExists && made.error() != Error::ConnectionLoss) co_return made.error();
      if (deadline >= 0 && zk_.now() >= deadline) co_return Error::OperationTimeout;
      co_await zk_.sleep(5);
    }
  }
  Task<Result<void>> release() {
    held_ = false;
    for (;;) {
      auto gone = co_await zk_.remove(node_);
      if (gone || gone.error() != Error::ConnectionLoss) co_return Result<void>();
    }
  }
  bool holds() const { return held_; }

 private:
  Client& zk_;
  std::string node_;
  bool held_ = false;
};

std::vector<zksim::scenarios::Recipe> recipes() {
  using namespace zksim::scenarios;
  Recipe lock;
  lock.name = "plugin/lock";
  lock.summary = "zksim's own lock, from a plugin";
  lock.family = RecipeFamily::Lock;
  lock.traits.tells_loss = true;
  lock.make_lock = [](const HandleContext& c) {
    zksim::recipes::LockOptions o;
    o.on_hold = c.on_hold;
    return exclusive<zksim::recipes::Lock>(c.zk, c.dir, o);
  };
  Recipe polling;
  polling.name = "plugin/polling-lock";
  polling.summary = "one node, polled for; its holder never hears its session end";
  polling.family = RecipeFamily::Lock;
  polling.make_lock = [](const HandleContext& c) { return exclusive<PollingLock>(c.zk, c.dir); };
  // Caught as the forgetful lock is: a holder paused past its session,
  // holding long enough to go on after the pause.
  polling.flaw = Flaw{"mutual-exclusion", static_cast<std::int32_t>(zksim::FaultKind::Pause), 30, 600};
  return {std::move(lock), std::move(polling)};
}

}  // namespace

ZKSIM_PLUGIN("zksim-test-plugin", recipes)
