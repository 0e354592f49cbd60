// The tutorial's lock (docs/tutorial.md), built up step by step. Each step
// fixes what the step before it got wrong, and zksim names what that was:
//
//   Step::OneNode     every contender creates the same ephemeral node; who
//                     made it holds, the others watch it. A release wakes
//                     every waiter: herd-effect.
//   Step::Sequential  each contender creates an ephemeral-sequential node and
//                     watches the one just below its own. But a create whose
//                     reply was lost is made again, and the first node,
//                     owned by our own live session, blocks us for good:
//                     liveness (under drop-after-apply).
//   Step::Protected   each node's name carries a unique id of the attempt,
//                     so a lost create is found again. But a holder whose
//                     session ended (paused past its timeout) goes on
//                     believing it holds while the next one is granted:
//                     mutual-exclusion (under pause).
//   Step::Told        the lock listens to its session and tells its holder
//                     (HoldListener): "suspended" when the connection
//                     broke (the session may be expiring: stop acting on
//                     the lock), "reconnected" when it came back in time,
//                     "lost" when the session expired.
//
// What is left to do after the last step (timeouts, reentrancy, fencing
// tokens, every client library's semantics) is what zksim's own Lock
// does (recipes/src/lock.cpp).
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tutorial {

enum class Step { OneNode, Sequential, Protected, Told };

template <Step kStep>
class Lock {
 public:
  Lock(zksim::Client& zk, std::string dir, zksim::recipes::HoldListener on_hold = {})
      : zk_(zk), dir_(std::move(dir)), on_hold_(std::move(on_hold)) {
    if constexpr (kStep >= Step::Told) {
      listener_ = zk_.add_session_listener([this](const zksim::WatchedEvent& e) { on_session(e.state); });
    }
  }
  ~Lock() {
    if constexpr (kStep >= Step::Told) zk_.remove_session_listener(listener_);
  }

  zksim::Task<zksim::Result<zksim::recipes::Grant>> acquire(zksim::TimeMs) {
    if constexpr (kStep == Step::OneNode) {
      co_return co_await acquire_one_node();
    } else {
      co_return co_await acquire_sequential();
    }
  }

  zksim::Task<zksim::Result<void>> release() {
    held_ = false;
    for (;;) {
      auto gone = co_await zk_.remove(node_);
      if (gone || gone.error() != zksim::Error::ConnectionLoss) co_return zksim::Result<void>();
    }
  }

  bool holds() const { return held_; }

 private:
  // Step 1: one node for everyone.
  zksim::Task<zksim::Result<zksim::recipes::Grant>> acquire_one_node() {
    node_ = dir_ + "/lock";
    for (;;) {
      auto made = co_await create(node_, zksim::CreateMode::Ephemeral);
      if (made) co_return granted(made->stat.czxid);
      if (made.error() != zksim::Error::NodeExists && made.error() != zksim::Error::ConnectionLoss) {
        co_return made.error();
      }
      zksim::Signal changed;
      auto there = co_await zk_.get_data(node_, zksim::signal_watcher(changed));
      if (there) co_await changed.wait();
    }
  }

  // Steps 2 to 4: one sequential node each, watching the one below.
  zksim::Task<zksim::Result<zksim::recipes::Grant>> acquire_sequential() {
    const std::string prefix = kStep >= Step::Protected ? "n-" + zk_.unique_id() + "-" : "n-";
    std::int64_t fence = 0;
    for (;;) {
      auto made = co_await create(dir_ + "/" + prefix, zksim::CreateMode::EphemeralSequential);
      if (made) {
        node_ = made->path;
        fence = made->stat.czxid;
        break;
      }
      if (made.error() != zksim::Error::ConnectionLoss) co_return made.error();
      if constexpr (kStep >= Step::Protected) {
        // The create may have been applied: look for our node by its id.
        auto found = co_await find(prefix);
        if (!found) co_return found.error();
        if (!found->empty()) {
          node_ = *found;
          auto stat = co_await zk_.exists(node_);
          while (!stat && stat.error() == zksim::Error::ConnectionLoss) stat = co_await zk_.exists(node_);
          if (!stat) co_return stat.error();
          fence = stat->czxid;
          break;
        }
      }
    }
    for (;;) {
      auto children = co_await zk_.get_children(dir_);
      if (!children) {
        if (children.error() == zksim::Error::ConnectionLoss) continue;
        co_return children.error();
      }
      std::vector<std::string> names = children->children;
      std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
        return a.substr(a.size() - 10) < b.substr(b.size() - 10);  // by sequence number
      });
      auto me = std::find(names.begin(), names.end(), node_.substr(dir_.size() + 1));
      if (me == names.end()) co_return zksim::Error::SessionExpired;  // our node went with our session
      if (me == names.begin()) co_return granted(fence);
      zksim::Signal changed;
      auto there = co_await zk_.get_data(dir_ + "/" + *(me - 1), zksim::signal_watcher(changed));
      if (there) co_await changed.wait();
    }
  }

  void on_session(zksim::KeeperState state) {
    using zksim::recipes::HoldEvent;
    if (!held_) return;
    if (state == zksim::KeeperState::Disconnected && !suspended_) {
      suspended_ = true;
      tell(HoldEvent::Suspended);
    } else if (state == zksim::KeeperState::SyncConnected && suspended_) {
      suspended_ = false;
      tell(HoldEvent::Reconnected);
    } else if (state == zksim::KeeperState::Expired) {
      held_ = suspended_ = false;
      tell(HoldEvent::Lost);
    }
  }
  void tell(zksim::recipes::HoldEvent e) {
    if (on_hold_) on_hold_(e);
  }

  zksim::recipes::Grant granted(std::int64_t fence) {
    held_ = true;
    return zksim::recipes::Grant{node_, fence};
  }

  // Creates `path`, and the directory first if it is missing.
  zksim::Task<zksim::Result<zksim::CreateResponse>> create(std::string path, zksim::CreateMode mode) {
    for (;;) {
      auto made = co_await zk_.create(path, "", mode);
      if (made || made.error() != zksim::Error::NoNode) co_return made;
      std::size_t end = 0;
      do {
        end = dir_.find('/', end + 1);
        const std::string ancestor = dir_.substr(0, end);
        co_await zk_.create(ancestor, "", zksim::CreateMode::Persistent);
      } while (end != std::string::npos);
    }
  }

  // Our node, by the prefix only our attempt uses ("" if none).
  zksim::Task<zksim::Result<std::string>> find(std::string prefix) {
    for (;;) {
      auto children = co_await zk_.get_children(dir_);
      if (!children && children.error() == zksim::Error::ConnectionLoss) continue;
      if (!children) co_return children.error();
      for (const std::string& c : children->children) {
        if (c.starts_with(prefix)) co_return dir_ + "/" + c;
      }
      co_return std::string();
    }
  }

  zksim::Client& zk_;
  std::string dir_;
  zksim::recipes::HoldListener on_hold_;
  std::string node_;
  bool held_ = false;
  bool suspended_ = false;
  std::uint64_t listener_ = 0;
};

}  // namespace tutorial
