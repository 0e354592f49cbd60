// What the bank's ports share: the little each library's recipes take for
// granted (a path made with its parents, a name's sequence number, a Java
// monitor, a holder told of its session). Each port keeps its own logic,
// bugs included, in its own file; nothing here decides a grant.
#pragma once

#include "zksim/client.h"
#include "zksim/recipes/hold.h"
#include "zksim/scenarios/recipe.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bank {

using zksim::Client;
using zksim::CreateMode;
using zksim::Error;
using zksim::Result;
using zksim::Signal;
using zksim::Task;
using zksim::TimeMs;
using zksim::Watcher;
using zksim::WatchedEvent;
using zksim::recipes::Grant;

// dir + "/" + name.
std::string join(const std::string& dir, std::string_view name);
// The last path component.
std::string_view name_of(std::string_view path);
// The 10-digit sequence suffix of a sequential node's name (the whole
// name if it is shorter).
std::string_view sequence_of(std::string_view name);
// `names` sorted by their sequence suffix, as every library sorts its
// contenders (Curator's fixForSorting, kazoo's regex, the C recipe's).
std::vector<std::string> by_sequence(std::vector<std::string> names);

// Makes `dir` and its ancestors (persistent, each left as it is if there):
// ZooKeeper's `ensure_path`, Curator's creatingParentsIfNeeded. Retries a
// lost connection; other errors are returned.
Task<Result<void>> ensure_path(Client& zk, std::string dir);

// Java's monitor: notifyAll() wakes those waiting now. A wait that Java
// starts inside `synchronized` before a watcher can notify takes its
// signal before the call whose watcher notifies (Curator's lock loop);
// one that starts after the call takes it after (the flaws that lose a
// wake-up).
class Monitor {
 public:
  Signal next() const { return current_; }
  // The next wait's signal is new before the woken ones run: one that
  // waits again at once waits for the next notify.
  void notify_all() {
    Signal woken = std::exchange(current_, Signal());
    woken.set();
  }

 private:
  Signal current_;
};

// Tells a holder of its session, as Curator's ConnectionStateListener (and
// kazoo's listener) do: Disconnected is SUSPENDED, connected again
// RECONNECTED, Expired LOST. For a recipe whose contract leaves that to
// its caller: the harness is the caller (RecipeTraits::tells_loss).
class SessionNews {
 public:
  SessionNews(Client& zk, zksim::recipes::HoldListener listener);
  ~SessionNews();
  SessionNews(const SessionNews&) = delete;
  SessionNews& operator=(const SessionNews&) = delete;
  // LOST was told since the last restart(), or the session has ended.
  bool lost() const;
  void restart() { lost_ = false; }

 private:
  Client& zk_;
  zksim::recipes::HoldListener listener_;
  std::uint64_t id_ = 0;
  bool suspended_ = false;
  bool lost_ = false;
};

// The bank's recipes, by library (one file each).
std::vector<zksim::scenarios::Recipe> zookeeper_bugs();
std::vector<zksim::scenarios::Recipe> curator_bugs();
std::vector<zksim::scenarios::Recipe> kazoo_bugs();
// Curator 4.2's InterProcessMutex as Curator writes it (CURATOR-604), and
// with the owner check it lacks: correct by Curator's contract.
std::vector<zksim::scenarios::Recipe> curator42_mutexes();

}  // namespace bank
