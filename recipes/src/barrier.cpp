#include "zksim/recipes/barrier.h"

#include "contender.h"
#include "watching.h"

#include <algorithm>

namespace zksim::recipes {

Barrier::Barrier(Client& zk, std::string path) : zk_(zk), path_(std::move(path)) {}

Task<Result<void>> Barrier::raise() { return detail::ensure_path(zk_, path_); }

Task<Result<void>> Barrier::lower() { return detail::delete_surely(zk_, path_); }

Task<Result<void>> Barrier::wait(TimeMs timeout_ms) {
  return detail::wait_until_gone(zk_, path_, timeout_ms, detail::SyncFirst::Yes);
}

DoubleBarrier::DoubleBarrier(Client& zk, std::string dir, int members)
    : zk_(zk), dir_(std::move(dir)), members_(members) {}

namespace {

// The member nodes under `dir`, sorted by name (any order all agree on).
Task<Result<std::vector<std::string>>> members_of(Client& zk, std::string dir) {
  for (;;) {
    auto listed = co_await zk.get_children(dir);
    if (!listed && listed.error() == Error::ConnectionLoss) continue;
    if (!listed) co_return listed.error();
    std::vector<std::string> out;
    for (std::string& c : listed->children) {
      if (c != DoubleBarrier::kReady) out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end());
    co_return out;
  }
}

}  // namespace

Task<Result<void>> DoubleBarrier::enter(TimeMs timeout_ms) {
  if (members_ < 1 || !node_.empty()) co_return Error::BadArguments;
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  auto dir = co_await detail::ensure_path(zk_, dir_);
  if (!dir) co_return dir.error();
  std::string ready = detail::join(dir_, kReady);
  std::string node = detail::join(dir_, zk_.unique_id());
  for (;;) {
    auto made = co_await zk_.create(node, "", CreateMode::Ephemeral);
    if (made || made.error() == Error::NodeExists) break;  // NodeExists: our lost reply
    if (made.error() != Error::ConnectionLoss) co_return made.error();
  }
  node_ = node;
  for (;;) {
    // Watch "ready" first, so its creation cannot slip between the count
    // and the wait.
    Signal changed;
    detail::Watching watch(zk_, ready, WatcherType::Data);
    auto st = co_await zk_.exists(ready, signal_watcher(changed));
    if (st) co_return Result<void>();
    if (st.error() == Error::ConnectionLoss) continue;  // no watch was set: ask again
    if (st.error() != Error::NoNode) co_return st.error();
    auto all = co_await members_of(zk_, dir_);
    if (!all) co_return all.error();
    if (static_cast<int>(all->size()) >= members_) {
      auto made = co_await zk_.create(ready, "", CreateMode::Persistent);
      if (made || made.error() == Error::NodeExists) co_return Result<void>();
      if (made.error() != Error::ConnectionLoss) co_return made.error();
      continue;
    }
    if (!co_await zk_.wait_for(changed, detail::time_left(zk_, deadline))) {
      co_await watch.give_up_surely();  // the delete waits for the connection anyway
      co_await detail::delete_surely(zk_, node_);
      node_.clear();
      co_return Error::OperationTimeout;
    }
  }
}

Task<Result<void>> DoubleBarrier::leave(TimeMs timeout_ms) {
  if (node_.empty()) co_return Error::BadArguments;
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  std::string mine = node_.substr(node_.rfind('/') + 1);
  for (;;) {
    auto all = co_await members_of(zk_, dir_);
    if (!all) co_return all.error();
    auto me = std::find(all->begin(), all->end(), mine);
    std::string wait_on;
    if (all->empty()) {
      // Everyone is gone, some by their sessions ending: nobody was the
      // last one out, so "ready" is ours to remove.
      auto ready = co_await detail::delete_surely(zk_, detail::join(dir_, kReady));
      if (!ready) co_return ready.error();
      break;
    } else if (all->size() == 1 && me != all->end()) {
      // The last one out: remove our node, then "ready".
      auto gone = co_await detail::delete_surely(zk_, node_);
      if (!gone) co_return gone.error();
      auto ready = co_await detail::delete_surely(zk_, detail::join(dir_, kReady));
      if (!ready) co_return ready.error();
      break;
    } else if (me == all->begin()) {
      wait_on = all->back();  // the lowest waits for the highest
    } else {
      if (me != all->end()) {
        auto gone = co_await detail::delete_surely(zk_, node_);
        if (!gone) co_return gone.error();
      }
      wait_on = all->front();  // everyone else waits for the lowest
    }
    auto changed = co_await detail::wait_while_exists(zk_, detail::join(dir_, wait_on), deadline);
    if (!changed) co_return changed.error();
    if (!*changed) co_return Error::OperationTimeout;
  }
  node_.clear();
  co_return Result<void>();
}

}  // namespace zksim::recipes
