#include "watching.h"

#include "contender.h"

#include <algorithm>
#include <vector>

namespace zksim::recipes::detail {

namespace {

// The counted waits of this thread, compared by identity only: their order
// never matters, so no address reaches a decision or an output.
std::vector<const Watching*>& counted() {
  thread_local std::vector<const Watching*> all;
  return all;
}

}  // namespace

Watching::Watching(Client& zk, std::string path, WatcherType kind)
    : zk_(zk), path_(std::move(path)), kind_(kind) {
  counted().push_back(this);
}

Watching::~Watching() { leave(); }

bool Watching::leave() {
  if (counted_) {
    counted_ = false;
    auto& all = counted();
    auto it = std::find(all.begin(), all.end(), this);
    if (it != all.end()) all.erase(it);
  }
  return !shared();
}

bool Watching::shared() const {
  const SessionId session = zk_.session_id();
  auto same_session = [&](const Client& other) {
    return &other == &zk_ || (session != SessionId{} && other.session_id() == session);
  };
  return std::any_of(counted().begin(), counted().end(), [&](const Watching* w) {
    return w != this && same_session(w->zk_) && w->kind_ == kind_ && w->path_ == path_;
  });
}

Task<void> Watching::give_up() { return remove(false); }

Task<void> Watching::give_up_surely() { return remove(true); }

Task<void> Watching::remove(bool retry) {
  // Checked again before each try: a wait that began meanwhile relies on
  // the watch, and a removal sent before its read cannot touch its watch
  // (requests are answered in order, and its watcher is armed by its own reply).
  while (leave()) {
    auto removed = co_await zk_.remove_all_watches(path_, kind_);
    if (removed || removed.error() != Error::ConnectionLoss || !retry) co_return;
  }
}

Task<Result<bool>> wait_while_exists(Client& zk, std::string path, TimeMs deadline_ms) {
  Signal changed;
  Watching watch(zk, path, WatcherType::Data);
  auto got = co_await zk.get_data(path, signal_watcher(changed));
  if (!got) {
    if (got.error() == Error::NoNode || got.error() == Error::ConnectionLoss) co_return true;
    co_return got.error();
  }
  if (co_await zk.wait_for(changed, time_left(zk, deadline_ms))) co_return true;
  co_await watch.give_up();
  co_return false;
}

Task<Result<void>> wait_until_gone(Client& zk, std::string path, TimeMs timeout_ms, SyncFirst sync) {
  const TimeMs deadline = deadline_after(zk, timeout_ms);
  for (;;) {
    if (sync == SyncFirst::Yes) {
      auto synced = co_await sync_surely(zk, path);
      if (!synced) co_return synced.error();
    }
    auto st = co_await zk.exists(path);
    if (!st && st.error() == Error::NoNode) co_return Result<void>();
    if (!st && st.error() != Error::ConnectionLoss) co_return st.error();
    auto changed = co_await wait_while_exists(zk, path, deadline);
    if (!changed) co_return changed.error();
    if (!*changed) co_return Error::OperationTimeout;
  }
}

}  // namespace zksim::recipes::detail
