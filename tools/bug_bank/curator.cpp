#include "curator.h"

#include <algorithm>

namespace bank::curator {

namespace {

bool retryable(Error e) {
  return e == Error::ConnectionLoss || e == Error::OperationTimeout || e == Error::SessionMoved ||
         e == Error::SessionExpired;
}

Task<> delete_in_background(Client& zk, std::string path) {
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode || gone.error() == Error::InvalidState) co_return;
    co_await zk.sleep(1000);
  }
}

// FindAndDeleteProtectedNodeInBackground: lists `dir` until it can, and
// deletes (guaranteed, in the background) the first child named with
// `prefix`, if there is one.
Task<> find_and_delete_in_background(Client& zk, std::string dir, std::string prefix) {
  for (;;) {
    auto kids = co_await zk.get_children(dir);
    if (kids) {
      auto it = std::find_if(kids->children.begin(), kids->children.end(),
                             [&](const std::string& child) { return child.starts_with(prefix); });
      if (it != kids->children.end()) zk.post(delete_in_background(zk, join(dir, *it)));
      co_return;
    }
    if (!retryable(kids.error())) co_return;
    co_await zk.sleep(1000);
  }
}

}  // namespace

Task<bool> retry_after(Client& zk, Error e, int& count) {
  if (!retryable(e) || count >= 3) co_return false;
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
  const std::string path = join(dir, prefix + name);
  zksim::SessionId session{};  // checkSetSessionId: the session of the first try
  int count = 0;
  Error failed = Error::Ok;
  for (bool first = true;; first = false) {
    if (failed != Error::Ok) {
      if (!co_await retry_after(zk, failed, count)) {
        // CURATOR-45, CURATOR-79: whether the create was made is unknown.
        if (failed == Error::ConnectionLoss) zk.post(find_and_delete_in_background(zk, dir, prefix));
        co_return failed;
      }
      failed = Error::Ok;
    }
    if (is_ephemeral(mode) && session == zksim::SessionId{}) session = zk.session_id();
    if (!first) {
      // findProtectedNodeInForeground: the first child with our prefix
      // (findNode); validateFoundNode (CURATOR-498) drops one an earlier
      // session made, deleting it in the background.
      auto kids = co_await zk.get_children(dir);
      if (!kids && kids.error() != Error::NoNode) {
        failed = kids.error();
        continue;
      }
      std::string found;
      if (kids) {
        auto it = std::find_if(kids->children.begin(), kids->children.end(),
                               [&](const std::string& child) { return child.starts_with(prefix); });
        if (it != kids->children.end()) found = join(dir, *it);
      }
      if (is_ephemeral(mode) && zk.session_id() != session) {
        if (!found.empty()) zk.post(delete_in_background(zk, found));
        found.clear();
        session = zk.session_id();
      }
      if (!found.empty()) {
        // Curator takes the name alone; the port reads its czxid for the
        // grant's fence. Gone since: 0, and the caller finds it gone.
        auto st = co_await zk.exists(found);
        if (!st && st.error() != Error::NoNode) {
          failed = st.error();
          continue;
        }
        co_return Made{found, st ? st->czxid : 0};
      }
    }
    auto made = co_await zk.create(path, data, mode);
    if (!made && made.error() == Error::NoNode) {
      // creatingParentContainersIfNeeded: the parents, then once more;
      // NoNode again goes to the caller, as Curator's create throws it.
      auto parents = co_await make_parents(zk, dir);
      if (!parents) {
        if (!retryable(parents.error())) co_return parents.error();
        failed = parents.error();
        continue;
      }
      made = co_await zk.create(path, data, mode);
    }
    if (made) co_return Made{made->path, made->stat.czxid};
    if (!retryable(made.error())) co_return made.error();
    failed = made.error();
  }
}

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

LockInternals::LockInternals(Client& zk, std::string dir, std::string lock_name, Driver driver, bool owner_checked)
    : zk_(zk), dir_(std::move(dir)), lock_name_(std::move(lock_name)), driver_(std::move(driver)),
      owner_checked_(owner_checked), state_(std::make_shared<State>()) {}

Task<Result<Made>> LockInternals::attempt_lock(TimeMs timeout_ms) {
  const TimeMs start = zk_.now();
  int retries = 0;
  for (;;) {
    auto made = co_await create_protected(zk_, dir_, lock_name_, CreateMode::EphemeralSequential);
    Result<bool> held = made ? co_await lock_loop(start, timeout_ms, made->path) : Result<bool>(made.error());
    if (held) {
      if (*held) co_return *made;
      co_return Error::OperationTimeout;
    }
    // NoNode, from the create (a parent container reaped meanwhile) or the
    // loop (our node went with the session): again while the policy allows.
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
    if (predicate->gets && owner_checked_) {
      int count = 0;
      Result<zksim::Stat> st = Error::ConnectionLoss;
      do {
        st = co_await zk_.exists(ours);
      } while (!st && st.error() != Error::NoNode && co_await retry_after(zk_, st.error(), count));
      if (!st || st->ephemeralOwner != zk_.session_id().value) {
        out = st ? Error::NoNode : st.error();  // an earlier session's node: gone for us
        break;
      }
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
