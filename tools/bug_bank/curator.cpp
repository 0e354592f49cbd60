#include "curator.h"

#include <algorithm>

namespace bank::curator {

Task<bool> retry_after(Client& zk, Error e, int& count) {
  const bool retryable = e == Error::ConnectionLoss || e == Error::OperationTimeout || e == Error::SessionMoved ||
                         e == Error::SessionExpired;
  if (!retryable || count >= 3) co_return false;
  co_await zk.sleep(TimeMs{1000} << count);
  ++count;
  co_return true;
}

Task<Result<void>> make_parents(Client& zk, std::string dir) {
  std::size_t end = 0;
  do {
    end = dir.find('/', end + 1);
    const std::string ancestor = dir.substr(0, end);
    auto made = co_await zk.create(ancestor, "", CreateMode::Container);
    if (!made && made.error() != Error::NodeExists) co_return made.error();
  } while (end != std::string::npos);
  co_return Result<void>();
}

Task<Result<Made>> create_protected(Client& zk, std::string dir, std::string name, CreateMode mode, std::string data) {
  const std::string prefix = "_c_" + zk.unique_id() + "-";
  int count = 0;
  bool first = true;
  for (;;) {
    if (!first) {
      // findProtectedNodeInForeground.
      auto kids = co_await zk.get_children(dir);
      if (kids) {
        for (const std::string& child : kids->children) {
          if (!child.starts_with(prefix)) continue;
          const std::string found = join(dir, child);
          auto st = co_await zk.exists(found);
          if (st) co_return Made{found, st->czxid};
        }
      } else if (kids.error() != Error::NoNode) {
        if (co_await retry_after(zk, kids.error(), count)) continue;
        co_return kids.error();
      }
    }
    first = false;
    const std::string path = join(dir, prefix + name);
    auto made = co_await zk.create(path, data, mode);
    if (made) co_return Made{made->path, made->stat.czxid};
    if (made.error() == Error::NoNode) {
      auto parents = co_await make_parents(zk, dir);
      if (!parents && !co_await retry_after(zk, parents.error(), count)) co_return parents.error();
      continue;
    }
    if (!co_await retry_after(zk, made.error(), count)) co_return made.error();
  }
}

namespace {

Task<> delete_in_background(Client& zk, std::string path) {
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode || gone.error() == Error::InvalidState) co_return;
    co_await zk.sleep(1000);
  }
}

}  // namespace

Task<void> delete_guaranteed(Client& zk, std::string path) {
  int count = 0;
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode) co_return;
    if (co_await retry_after(zk, gone.error(), count)) continue;
    if (gone.error() != Error::InvalidState) zk.post(delete_in_background(zk, path));
    co_return;
  }
}

Task<Result<std::vector<std::string>>> children(Client& zk, std::string dir) {
  int count = 0;
  for (;;) {
    auto kids = co_await zk.get_children(dir);
    if (kids) co_return std::move(kids->children);
    if (kids.error() == Error::NoNode) co_return std::vector<std::string>{};
    if (!co_await retry_after(zk, kids.error(), count)) co_return kids.error();
  }
}

}  // namespace bank::curator

namespace bank::curator {

Result<Predicate> standard_driver(const std::vector<std::string>& sorted, const std::string& ours) {
  auto me = std::find(sorted.begin(), sorted.end(), ours);
  if (me == sorted.end()) return Error::NoNode;  // validateOurIndex: "Sequential path not found"
  if (me == sorted.begin()) return Predicate{true, ""};
  return Predicate{false, *(me - 1)};
}

LockInternals::LockInternals(Client& zk, std::string dir, std::string lock_name, Driver driver)
    : zk_(zk), dir_(std::move(dir)), lock_name_(std::move(lock_name)), driver_(std::move(driver)),
      state_(std::make_shared<State>()) {}

Task<Result<Made>> LockInternals::attempt_lock(TimeMs timeout_ms) {
  const TimeMs start = zk_.now();
  int retries = 0;
  for (;;) {
    auto made = co_await create_protected(zk_, dir_, lock_name_, CreateMode::EphemeralSequential);
    if (!made) co_return made.error();
    auto held = co_await lock_loop(start, timeout_ms, made->path);
    if (held) {
      if (*held) co_return *made;
      co_return Error::OperationTimeout;
    }
    // NoNode: our node went with the session; again while the policy allows.
    if (held.error() == Error::NoNode && retries < 3) {
      co_await zk_.sleep(TimeMs{1000} << retries);
      ++retries;
      continue;
    }
    co_return held.error();
  }
}

Task<Result<bool>> LockInternals::lock_loop(TimeMs start, TimeMs timeout_ms, std::string ours) {
  TimeMs left = timeout_ms;
  TimeMs since = start;
  const std::string mine(name_of(ours));
  Result<bool> out = false;
  bool do_delete = false;
  for (;;) {
    if (zk_.state() == zksim::SessionState::Closed) break;
    auto kids = co_await children(zk_, dir_);
    if (!kids) {
      do_delete = true;
      out = kids.error();
      break;
    }
    const std::vector<std::string> sorted = by_sequence(std::move(*kids));
    auto predicate = driver_(sorted, mine);
    if (!predicate) {
      do_delete = true;
      out = predicate.error();
      break;
    }
    if (predicate->gets) {
      out = true;
      break;
    }
    const std::string previous = join(dir_, predicate->watch);
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
      if (!co_await retry_after(zk_, data.error(), count)) break;
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
  if (do_delete) co_await delete_guaranteed(zk_, ours);
  co_return out;
}

// postSafeNotify: runSafe(() -> synchronized(this) { notifyAll(); }).
Task<> LockInternals::notify_later(std::shared_ptr<State> s) {
  s->monitor.notify_all();
  co_return;
}

Task<void> LockInternals::release_lock(std::string path) {
  // WatcherRemoveCuratorFramework.removeWatchers: the watches not yet triggered.
  if (!state_->pending_watch.empty()) {
    const std::string watched = std::exchange(state_->pending_watch, "");
    co_await zk_.remove_all_watches(watched, zksim::WatcherType::Data);
  }
  co_await delete_guaranteed(zk_, std::move(path));
}

}  // namespace bank::curator
