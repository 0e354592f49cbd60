// Bugs of ZooKeeper's own lock recipes (zookeeper-recipes-lock: the Java
// WriteLock and the C client's zoo_lock). Both are written against the
// plain client, so the ports run with the C flavour; both name their node
// "x-<session id>-" and find it again by that prefix (no GUID).
#include "bank.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace bank {

namespace {

using zksim::scenarios::Flaw;
using zksim::scenarios::HandleContext;
using zksim::scenarios::Recipe;
using zksim::scenarios::RecipeFamily;

// ---------------------------------------------------------------------------
// The Java WriteLock (org.apache.zookeeper.recipes.lock), in two versions.
//
// lock() runs LockZooKeeperOperation under retryOperation (ConnectionLoss
// retried up to 10 times, sleeping 500 ms times the attempt): find or
// create our "x-<session>-" node, getChildren, put the names in a TreeSet
// of ZNodeName, and watch (exists, with a LockWatcher) the greatest name
// below ours; none below ours and ours first: owner. The LockWatcher calls
// lock() again on every event it gets, node or session. unlock() deletes
// our node once, not retried, and forgets it whatever happened.
//
// bank/zk-2931-writelock-order: ZOOKEEPER-2931,
//   https://issues.apache.org/jira/browse/ZOOKEEPER-2931 (fix:
//   https://github.com/apache/zookeeper/pull/413; the ordering was first
//   questioned in ZOOKEEPER-645). In 3.4.0 to 3.4.11 and 3.5.0 to 3.5.3,
//   ZNodeName ordered names by their prefix "x-<session id>" first and by
//   sequence number only within a prefix, so every client orders the
//   contenders by session: a contender of an older session sorts first
//   though it came later, and two clients each see themselves first.
//   zksim should report mutual-exclusion, with no fault.
// bank/zk-writelock-vanished-predecessor: the same WriteLock with its order
//   fixed (3.4.12 on): when the node below ours is deleted between
//   getChildren and exists, exists returns null, the loop ends (our id is
//   set) and lock() returns false with no watch on anything: nobody calls
//   lock() again, and the waiter waits forever. Reported against the Java
//   recipe and its C# port in https://github.com/shayhatsor/zookeeper/issues/26
//   ("WriteLock may never be granted"); Apache Helix's copy of the recipe
//   was fixed for the same race in https://github.com/apache/helix/pull/44.
//   zksim should report liveness, with no fault (a release racing a
//   waiter's look).
// ---------------------------------------------------------------------------

// ZNodeName: the name up to its last '-' and the number after it.
struct ZNodeName {
  std::string name;
  std::string prefix;
  long sequence = -1;
  explicit ZNodeName(std::string n) : name(std::move(n)), prefix(name) {
    const auto dash = name.rfind('-');
    if (dash == std::string::npos) return;
    prefix = name.substr(0, dash);
    sequence = std::strtol(name.c_str() + dash + 1, nullptr, 10);
  }
};

// compareTo before ZOOKEEPER-2931: the prefix first.
int compare_by_prefix(const ZNodeName& a, const ZNodeName& b) {
  if (int c = a.prefix.compare(b.prefix); c != 0) return c;
  if (a.sequence == -1 && b.sequence == -1) return a.name.compare(b.name);
  if (a.sequence == -1) return 1;
  if (b.sequence == -1) return -1;
  return a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0;
}

// compareTo after it: the sequence first.
int compare_by_sequence(const ZNodeName& a, const ZNodeName& b) {
  if (a.sequence != b.sequence) return a.sequence < b.sequence ? -1 : 1;
  return a.prefix.compare(b.prefix);
}

enum class WriteLockVersion { Before2931, After2931 };

class WriteLock {
 public:
  WriteLock(Client& zk, std::string dir, WriteLockVersion version)
      : zk_(zk), dir_(std::move(dir)), version_(version), woken_(std::make_shared<Monitor>()) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    for (;;) {
      Signal woken = woken_->next();
      auto owner = co_await lock();
      if (!owner) co_return owner.error();
      if (*owner) {
        held_ = true;
        auto st = co_await zk_.exists(id_);
        co_return Grant{id_, st ? st->czxid : 0};
      }
      // Not the owner: the LockWatcher, if one was set, calls lock() again.
      const TimeMs left = deadline < 0 ? -1 : deadline - zk_.now();
      if (deadline >= 0 && left <= 0) {
        co_await unlock();
        co_return Error::OperationTimeout;
      }
      if (!co_await zk_.wait_for(woken, left)) {
        co_await unlock();
        co_return Error::OperationTimeout;
      }
    }
  }

  Task<Result<void>> release() {
    held_ = false;
    co_await unlock();
    co_return Result<void>();
  }

  bool holds() const { return held_; }

 private:
  int compare(const ZNodeName& a, const ZNodeName& b) const {
    return version_ == WriteLockVersion::Before2931 ? compare_by_prefix(a, b) : compare_by_sequence(a, b);
  }

  // ensurePathExists, then retryOperation(LockZooKeeperOperation).
  Task<Result<bool>> lock() {
    auto there = co_await ensure_path(zk_, dir_);
    if (!there) co_return there.error();
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto r = co_await operation();
      if (r || r.error() != Error::ConnectionLoss) co_return r;
      if (attempt > 0) co_await zk_.sleep(500 * attempt);
    }
    co_return Error::ConnectionLoss;
  }

  Task<Result<bool>> operation() {
    do {
      if (id_.empty()) {
        const std::string prefix = "x-" + std::to_string(zk_.session_id().value) + "-";
        auto kids = co_await zk_.get_children(dir_);
        if (!kids) co_return kids.error();
        for (const std::string& child : kids->children) {
          if (child.starts_with(prefix)) id_ = join(dir_, child);
        }
        if (id_.empty()) {
          auto made = co_await zk_.create(join(dir_, prefix), "", CreateMode::EphemeralSequential);
          if (!made) co_return made.error();
          id_ = made->path;
        }
      }
      auto kids = co_await zk_.get_children(dir_);
      if (!kids) co_return kids.error();
      if (kids->children.empty()) {
        id_.clear();  // "No children in: ... when we've just created one! Lets recreate it..."
        continue;
      }
      std::vector<ZNodeName> sorted;
      for (const std::string& child : kids->children) sorted.emplace_back(join(dir_, child));
      std::sort(sorted.begin(), sorted.end(),
                [this](const ZNodeName& a, const ZNodeName& b) { return compare(a, b) < 0; });
      owner_id_ = sorted.front().name;
      const ZNodeName me(id_);
      const ZNodeName* last_below = nullptr;  // lessThanMe.last()
      for (const ZNodeName& n : sorted) {
        if (compare(n, me) < 0) last_below = &n;
      }
      if (last_below != nullptr) {
        auto w = woken_;
        Watcher lock_watcher = [w](const WatchedEvent&) { w->notify_all(); };
        auto st = co_await zk_.exists(last_below->name, lock_watcher);
        if (st) co_return false;
        if (st.error() != Error::NoNode) co_return st.error();
        // "Could not find the stats for less than me": the loop ends, id is set.
      } else if (id_ == owner_id_) {
        co_return true;
      }
    } while (id_.empty());
    co_return false;
  }

  Task<void> unlock() {
    if (id_.empty()) co_return;
    const std::string id = std::exchange(id_, "");
    co_await zk_.remove(id);  // once: a lost connection leaves the node
  }

  Client& zk_;
  std::string dir_;
  WriteLockVersion version_;
  std::shared_ptr<Monitor> woken_;
  std::string id_;
  std::string owner_id_;
  bool held_ = false;
};

// ---------------------------------------------------------------------------
// bank/zk-3162-c-lock-predecessor: ZOOKEEPER-3162, "Broken lock semantics
//   in C client lock-recipe", https://issues.apache.org/jira/browse/ZOOKEEPER-3162
//   (fix: https://github.com/apache/zookeeper/pull/662), in the C recipe
//   zoo_lock.c up to 3.4.13 and 3.5.4. zkr_lock_operation sorts the
//   children by their sequence suffix, but child_floor picks the node to
//   watch as the last one whose whole name ("x-<session hex>-<seq>")
//   compares below ours with strcmp: by session first. A waiter of the
//   oldest session finds none below it, is not first, and sets no watch:
//   it waits forever; others watch a node that is not their predecessor.
//   Owner is whoever is first by sequence. The lock watcher calls
//   zkr_lock_lock again on every event. zksim should report liveness, with
//   no fault. (zkr_lock_lock takes no timeout; a caller that gives up
//   calls zkr_lock_unlock, as the port does.)
// ---------------------------------------------------------------------------
class ZooLock {
 public:
  ZooLock(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)), woken_(std::make_shared<Monitor>()) {}

  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    for (;;) {
      Signal woken = woken_->next();
      auto ok = co_await lock();
      if (!ok) co_return ok.error();
      if (is_owner()) {
        held_ = true;
        auto st = co_await zk_.exists(join(dir_, id_));
        co_return Grant{join(dir_, id_), st ? st->czxid : 0};
      }
      const TimeMs left = deadline < 0 ? -1 : deadline - zk_.now();
      if ((deadline >= 0 && left <= 0) || !co_await zk_.wait_for(woken, left)) {
        co_await unlock();
        co_return Error::OperationTimeout;
      }
    }
  }

  Task<Result<void>> release() {
    held_ = false;
    co_await unlock();
    co_return Result<void>();
  }

  bool holds() const { return held_; }

 private:
  bool is_owner() const { return !id_.empty() && id_ == owner_id_; }

  // zkr_lock_lock: the path made if missing, then zkr_lock_operation up to
  // four times while it fails.
  Task<Result<void>> lock() {
    auto there = co_await ensure_path(zk_, dir_);
    if (!there) co_return there.error();
    Result<void> r = Error::ConnectionLoss;
    for (int count = 0; count < 4; ++count) {
      r = co_await operation();
      if (r) break;
    }
    co_return r;
  }

  // get_children retried three times on ConnectionLoss.
  Task<Result<std::vector<std::string>>> children() {
    Result<zksim::ChildrenResponse> kids = Error::ConnectionLoss;
    for (int count = 0; count < 3; ++count) {
      kids = co_await zk_.get_children(dir_);
      if (kids || kids.error() != Error::ConnectionLoss) break;
    }
    if (!kids) co_return kids.error();
    co_return std::move(kids->children);
  }

  Task<Result<void>> operation() {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "x-%016" PRIx64 "-", static_cast<std::uint64_t>(zk_.session_id().value));
    auto kids = co_await children();
    if (!kids) co_return kids.error();
    id_.clear();
    for (const std::string& child : *kids) {
      if (child.starts_with(prefix)) {
        id_ = child;
        break;
      }
    }
    if (id_.empty()) {
      // Not retried: a retry could make a second node.
      auto made = co_await zk_.create(join(dir_, prefix), "", CreateMode::EphemeralSequential);
      if (!made) co_return made.error();
      id_ = std::string(name_of(made->path));
    }
    auto again = co_await children();
    if (!again) co_return again.error();
    const std::vector<std::string> sorted = by_sequence(std::move(*again));
    if (sorted.empty()) co_return Error::NoNode;
    owner_id_ = sorted.front();
    // child_floor: the last (by sequence) whose whole name is below ours.
    std::string less_than_me;
    for (const std::string& n : sorted) {
      if (n < id_) less_than_me = n;
    }
    if (!less_than_me.empty()) {
      auto w = woken_;
      Watcher lock_watcher = [w](const WatchedEvent&) { w->notify_all(); };
      Result<zksim::Stat> st = Error::ConnectionLoss;
      for (int count = 0; count < 3; ++count) {
        st = co_await zk_.exists(join(dir_, less_than_me), lock_watcher);
        if (st || st.error() != Error::ConnectionLoss) break;
      }
      if (!st) {  // "unable to watch my predecessor": give the node up
        co_await unlock();
        co_return st.error();
      }
    }
    co_return Result<void>();
  }

  Task<void> unlock() {
    if (id_.empty()) co_return;
    const std::string path = join(dir_, std::exchange(id_, ""));
    for (int count = 0; count < 3; ++count) {
      auto gone = co_await zk_.remove(path);
      if (gone || gone.error() != Error::ConnectionLoss) break;
    }
  }

  Client& zk_;
  std::string dir_;
  std::shared_ptr<Monitor> woken_;
  std::string id_;
  std::string owner_id_;
  bool held_ = false;
};

Recipe lock_recipe(std::string name, std::string summary,
                   std::function<std::unique_ptr<zksim::scenarios::LockHandle>(const HandleContext&)> make,
                   Flaw flaw) {
  Recipe r;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.family = RecipeFamily::Lock;
  r.make_lock = std::move(make);
  r.flaw = std::move(flaw);
  return r;
}

Flaw no_fault(std::string property) {
  Flaw f;
  f.property = std::move(property);
  f.flavour = zksim::Flavour::C;
  return f;
}

}  // namespace

std::vector<Recipe> zookeeper_bugs() {
  using zksim::scenarios::exclusive;
  std::vector<Recipe> out;
  out.push_back(lock_recipe(
      "bank/zk-2931-writelock-order", "ZooKeeper's WriteLock ordering its nodes by session, then sequence (ZOOKEEPER-2931)",
      [](const HandleContext& c) { return exclusive<WriteLock>(c.zk, c.dir, WriteLockVersion::Before2931); },
      no_fault("mutual-exclusion")));
  out.push_back(lock_recipe(
      "bank/zk-writelock-vanished-predecessor",
      "ZooKeeper's WriteLock giving up its watch when its predecessor has just gone (shayhatsor/zookeeper#26)",
      [](const HandleContext& c) { return exclusive<WriteLock>(c.zk, c.dir, WriteLockVersion::After2931); },
      no_fault("liveness")));
  out.push_back(lock_recipe(
      "bank/zk-3162-c-lock-predecessor", "the C client's zoo_lock picking its predecessor by whole name (ZOOKEEPER-3162)",
      [](const HandleContext& c) { return exclusive<ZooLock>(c.zk, c.dir); }, no_fault("liveness")));
  return out;
}

}  // namespace bank
