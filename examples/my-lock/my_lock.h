// A lock of our own, in two versions, as a user of zksim would write one
// (zksim's client interface: zksim/client.h).
//
// Both create an ephemeral-sequential node named with a per-attempt unique
// id (so a create whose reply was lost is found again) and grant it when it
// is the first made. Made when: by sequence number across the 2^31 wrap
// (zksim/recipes/sequence.h), and where ZooKeeper 3.8 gave several nodes
// the same number (it stops at 2147483647), by creation zxid. They differ
// in what a waiter watches:
//   NaiveLock  the holder, the lowest node: every waiter wakes at every
//              release (the herd effect the ZooKeeper recipes page warns of);
//   FixedLock  its predecessor, the node just below its own: a release wakes
//              one waiter.
// A waiter sets its watch with getData, not exists: exists leaves a watch
// on a node that is already gone, and nothing would ever take it back.
// Neither listens to session events, so both are for runs without session
// expiry, pauses or crashes (the checks in this example leave those out).
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/sequence.h"

#include <algorithm>
#include <string>
#include <vector>

namespace example {

template <bool kWatchPredecessor>
class SequentialLock {
 public:
  SequentialLock(zksim::Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}

  // Waits as long as it takes: the timeout is not honoured.
  zksim::Task<zksim::Result<zksim::recipes::Grant>> acquire(zksim::TimeMs) {
    const std::string prefix = "lock-" + zk_.unique_id() + kSeq;
    auto made = co_await create_once(prefix);
    if (!made) co_return made.error();
    node_ = made->path;
    const std::int64_t fence = made->czxid;
    for (;;) {
      auto children = co_await zk_.get_children(dir_);
      if (!children) {
        if (children.error() == zksim::Error::ConnectionLoss) continue;
        co_return children.error();
      }
      auto ordered = co_await in_order(children->children);
      if (!ordered) {
        if (ordered.error() == zksim::Error::ConnectionLoss) continue;
        co_return ordered.error();
      }
      const std::vector<std::string>& names = *ordered;
      const std::string mine = node_.substr(dir_.size() + 1);
      auto me = std::find(names.begin(), names.end(), mine);
      if (me == names.end()) co_return zksim::Error::NoNode;
      if (me == names.begin()) {
        held_ = true;
        co_return zksim::recipes::Grant{node_, fence};
      }
      const std::string watched = dir_ + "/" + (kWatchPredecessor ? *(me - 1) : names.front());
      zksim::Signal changed;
      auto there = co_await zk_.get_data(watched, zksim::signal_watcher(changed));
      if (!there) {
        if (there.error() == zksim::Error::NoNode || there.error() == zksim::Error::ConnectionLoss) continue;
        co_return there.error();
      }
      co_await changed.wait();
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
  static constexpr const char* kSeq = "-seq";  // what precedes the sequence number

  // `names` in the order their nodes were made; a node gone meanwhile is
  // left out.
  zksim::Task<zksim::Result<std::vector<std::string>>> in_order(std::vector<std::string> names) {
    struct Node {
      std::string name;
      std::int32_t seq = 0;
      std::int64_t czxid = 0;
    };
    std::vector<Node> nodes;
    for (std::string& n : names) {
      if (auto seq = zksim::recipes::sequence_after(n, kSeq)) nodes.push_back(Node{std::move(n), *seq});
    }
    zksim::recipes::sort_in_issue_order(nodes, [](const Node& n) { return n.seq; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < nodes.size();) {
      std::size_t end = i + 1;
      while (end < nodes.size() && nodes[end].seq == nodes[i].seq) ++end;
      if (end - i > 1) {  // the same number: ask each node when it was made
        for (std::size_t k = i; k < end; ++k) {
          auto st = co_await zk_.exists(dir_ + "/" + nodes[k].name);
          if (!st && st.error() != zksim::Error::NoNode) co_return st.error();
          nodes[k].czxid = st ? st->czxid : -1;
        }
        std::stable_sort(nodes.begin() + static_cast<std::ptrdiff_t>(i), nodes.begin() + static_cast<std::ptrdiff_t>(end),
                         [](const Node& a, const Node& b) { return a.czxid < b.czxid; });
      }
      for (; i < end; ++i) {
        if (nodes[i].czxid >= 0) out.push_back(std::move(nodes[i].name));
      }
    }
    co_return out;
  }

  struct Made {
    std::string path;
    std::int64_t czxid = 0;  // the fence: grows with every node made
  };
  // Creates dir_/prefix<seq> once: after a lost reply, the node is looked
  // for by its unique prefix (after a sync) before a create is tried again.
  zksim::Task<zksim::Result<Made>> create_once(std::string prefix) {
    for (;;) {
      const std::string path = dir_ + "/" + prefix;
      auto made = co_await zk_.create(path, "", zksim::CreateMode::EphemeralSequential);
      if (made) co_return Made{made->path, made->stat.czxid};
      if (made.error() == zksim::Error::NoNode) {
        // The directory and its ancestors, each made unless there.
        std::size_t end = 0;
        do {
          end = dir_.find('/', end + 1);
          const std::string ancestor = dir_.substr(0, end);
          co_await zk_.create(ancestor, "", zksim::CreateMode::Persistent);
        } while (end != std::string::npos);
        continue;
      }
      if (made.error() != zksim::Error::ConnectionLoss) co_return made.error();
      for (;;) {
        // The new connection's server may be behind the lost create (the
        // client's last seen zxid is older): sync before looking for it.
        auto synced = co_await zk_.sync(dir_);
        if (!synced && synced.error() == zksim::Error::ConnectionLoss) continue;
        if (!synced) co_return synced.error();
        auto children = co_await zk_.get_children(dir_);
        if (!children && children.error() == zksim::Error::ConnectionLoss) continue;
        if (!children) co_return children.error();
        auto found = std::find_if(children->children.begin(), children->children.end(),
                                  [&](const std::string& c) { return c.starts_with(prefix); });
        if (found == children->children.end()) break;
        auto stat = co_await zk_.exists(dir_ + "/" + *found);
        if (!stat && stat.error() == zksim::Error::ConnectionLoss) continue;
        if (!stat) co_return stat.error();
        co_return Made{dir_ + "/" + *found, stat->czxid};
      }
    }
  }

  zksim::Client& zk_;
  std::string dir_;
  std::string node_;
  bool held_ = false;
};

using NaiveLock = SequentialLock<false>;
using FixedLock = SequentialLock<true>;

}  // namespace example
