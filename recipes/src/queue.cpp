#include "zksim/recipes/queue.h"

#include "contender.h"
#include "watching.h"

#include "zksim/recipes/sequence.h"

#include <algorithm>

namespace zksim::recipes {

namespace {

bool is_item(const std::string& name) { return sequence_after(name, Queue::kMarker).has_value(); }

// Waits until the children of `dir` change, unless items are there already
// (then returns at once, leaving the watch for a later change to consume).
// False on timeout, after removing the watch.
Task<Result<bool>> wait_for_children(Client& zk, std::string dir, TimeMs deadline_ms) {
  Signal changed;
  detail::Watching watch(zk, dir, WatcherType::Children);
  auto listed = co_await zk.get_children(dir, signal_watcher(changed));
  if (!listed) {
    if (listed.error() == Error::ConnectionLoss) co_return true;
    co_return listed.error();
  }
  if (std::any_of(listed->children.begin(), listed->children.end(), is_item)) co_return true;
  TimeMs left = detail::time_left(zk, deadline_ms);
  if (co_await zk.wait_for(changed, left)) co_return true;
  co_await watch.give_up();
  co_return false;
}

// Whether `path` exists, asking again across connection losses.
Task<Result<bool>> exists_surely(Client& zk, std::string path) {
  for (;;) {
    auto st = co_await zk.exists(path);
    if (st) co_return true;
    if (st.error() == Error::NoNode) co_return false;
    if (st.error() != Error::ConnectionLoss) co_return st.error();
  }
}

// Deletes our claim `path` (the node carrying `id`, made in `session`)
// across connection losses, but only while the client is still in that
// session: once it is in another, the claim went with the old one, and the
// same path may by now be another consumer's claim (a Curator- or
// kazoo-like client opens a new session on the same handle after an
// expiry). After a loss it syncs before it looks again: a follower behind
// a delete whose reply was lost still shows our claim, and deleting by the
// version read there would take a claim made since (a new node starts at
// version 0 too). The check and the delete are in one step, so a delete
// made in this session is never served in a later one.
Task<Result<void>> drop_claim(Client& zk, std::string path, std::string id, SessionId session) {
  for (;;) {
    if (zk.session_id() != session) co_return Error::SessionExpired;
    auto found = co_await zk.get_data(path);
    if (!found && found.error() == Error::ConnectionLoss) continue;
    if (!found && found.error() == Error::NoNode) co_return Result<void>();
    if (!found) co_return found.error();
    if (found->data != id) co_return Result<void>();
    if (zk.session_id() != session) co_return Error::SessionExpired;
    auto gone = co_await zk.remove(path, Version{found->stat.version});
    if (gone || gone.error() == Error::NoNode) co_return Result<void>();
    if (gone.error() != Error::ConnectionLoss) co_return gone.error();
    if (zk.session_id() != session) co_return Error::SessionExpired;
    auto synced = co_await detail::sync_surely(zk, path);
    if (!synced) co_return synced.error();
  }
}

// The data of `path`, reading again across connection losses.
Task<Result<DataResponse>> get_data_surely(Client& zk, std::string path) {
  for (;;) {
    auto data = co_await zk.get_data(path);
    if (data || data.error() != Error::ConnectionLoss) co_return data;
  }
}

// Adds the item exactly once. Its name carries an id unique to this put,
// and the same multi creates an ephemeral marker "_p_<id>" beside it. After
// a lost reply the marker tells whether the item was added: looking for the
// item itself cannot, since a consumer may have taken it already. The
// marker is deleted before put returns (it would go with the session
// anyway). If the session ends before the answer is known, put fails and
// the item may or may not be there: so does a client that opened a new
// session meanwhile (Curator, kazoo), where the marker's absence says
// nothing.
Task<Result<std::string>> put_item(Client& zk, std::string dir, std::string data) {
  const std::string id = zk.unique_id();
  const std::string prefix = "_c_" + id + "-" + Queue::kMarker;
  const std::string marker = detail::join(dir, "_p_" + id);
  for (;;) {
    std::vector<MultiOp> ops;
    CreateRequest add_item{detail::join(dir, prefix), data, open_acl(), CreateMode::PersistentSequential};
    CreateRequest add_marker{marker, "", open_acl(), CreateMode::Ephemeral};
    ops.emplace_back(std::move(add_item));
    ops.emplace_back(std::move(add_marker));
    const SessionId session = zk.session_id();
    auto done = co_await zk.multi(std::move(ops));
    std::string path;
    if (done.error == Error::Ok) {
      path = std::get<CreateResponse>(done.results.front().value).path;
    } else if (done.error == Error::NoNode) {
      auto made = co_await detail::ensure_path(zk, dir);
      if (!made) co_return made.error();
      continue;
    } else if (done.error != Error::ConnectionLoss) {
      co_return done.error;
    } else {
      auto synced = co_await detail::sync_surely(zk, dir);
      if (!synced) co_return synced.error();
      auto added = co_await exists_surely(zk, marker);
      if (!added) co_return added.error();
      if (!*added && zk.session_id() != session) co_return Error::SessionExpired;
      if (!*added) continue;
      // Added; its path, unless a consumer took it already ("").
      auto listed = co_await zk.get_children(dir);
      if (listed) {
        for (const std::string& c : listed->children) {
          if (c.starts_with(prefix)) path = detail::join(dir, c);
        }
      }
    }
    auto gone = co_await detail::delete_surely(zk, marker);
    if (!gone && gone.error() != Error::SessionExpired && gone.error() != Error::InvalidState) {
      co_return gone.error();
    }
    co_return path;
  }
}

}  // namespace

Queue::Queue(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}

Task<Result<std::string>> Queue::put(std::string data) {
  return put_item(zk_, dir_, std::move(data));
}

Task<Result<Item>> Queue::take(TimeMs timeout_ms) {
  in_doubt_.reset();
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  auto dir = co_await detail::ensure_path(zk_, dir_);
  if (!dir) co_return dir.error();
  detail::Markers markers{kMarker};
  for (;;) {
    auto items = co_await detail::contenders(zk_, dir_, markers);
    if (!items) co_return items.error();
    for (const detail::Contender& c : *items) {
      std::string path = detail::join(dir_, c.name);
      // Across a connection loss, the same item again: skipping it would
      // hand out a newer one first.
      auto data = co_await get_data_surely(zk_, path);
      if (!data) {
        if (data.error() == Error::NoNode) continue;  // taken by another
        co_return data.error();
      }
      auto taken = co_await zk_.remove(path);
      if (taken) co_return Item{path, std::move(data->data)};
      if (taken.error() == Error::ConnectionLoss) in_doubt_ = Item{path, std::move(data->data)};
      if (taken.error() != Error::NoNode) co_return taken.error();
    }
    if (!items->empty()) continue;  // all taken by others meanwhile: look again
    if (deadline >= 0 && zk_.now() >= deadline) co_return Error::OperationTimeout;
    auto woke = co_await wait_for_children(zk_, dir_, deadline);
    if (!woke) co_return woke.error();
    if (!*woke) co_return Error::OperationTimeout;
  }
}

LockingQueue::LockingQueue(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}

Task<Result<std::string>> LockingQueue::put(std::string data) {
  return put_item(zk_, items_dir(), std::move(data));
}

Task<Result<Item>> LockingQueue::take(TimeMs timeout_ms) {
  TimeMs deadline = detail::deadline_after(zk_, timeout_ms);
  for (const std::string& d : {items_dir(), claims_dir()}) {
    auto made = co_await detail::ensure_path(zk_, d);
    if (!made) co_return made.error();
  }
  detail::Markers markers{Queue::kMarker};
  for (;;) {
    auto items = co_await detail::contenders(zk_, items_dir(), markers);
    if (!items) co_return items.error();
    auto claims = co_await zk_.get_children(claims_dir());
    if (!claims && claims.error() == Error::ConnectionLoss) continue;
    if (!claims) co_return claims.error();
    std::sort(claims->children.begin(), claims->children.end());
    bool any_free = false;
    for (const detail::Contender& c : *items) {
      if (std::binary_search(claims->children.begin(), claims->children.end(), c.name)) continue;
      any_free = true;
      std::string claim = detail::join(claims_dir(), c.name);
      const std::string mine = zk_.unique_id();
      auto made = co_await zk_.create(claim, mine, CreateMode::Ephemeral);
      if (!made && made.error() == Error::ConnectionLoss) {
        // Ours if it exists and carries this attempt's id: its owner
        // session cannot tell, since handles sharing a session (threads
        // of one process) would each take it for theirs. Asked until
        // answered: a claim of ours left unknown would hold the item for
        // as long as the session lives.
        auto synced = co_await detail::sync_surely(zk_, claim);
        if (!synced) co_return synced.error();
        auto found = co_await get_data_surely(zk_, claim);
        if (!found || found->data != mine) break;  // look again from the head
      } else if (!made) {
        if (made.error() == Error::NodeExists) continue;
        co_return made.error();
      }
      const SessionId claimed_in = zk_.session_id();
      std::string item = detail::join(items_dir(), c.name);
      auto data = co_await get_data_surely(zk_, item);
      if (data) {
        claimed_[item] = Claim{claimed_in, mine};
        co_return Item{item, std::move(data->data)};
      }
      co_await drop_claim(zk_, claim, mine, claimed_in);  // acked by someone meanwhile, or our session ended
      if (data.error() != Error::NoNode) co_return data.error();
    }
    if (any_free) continue;
    if (deadline >= 0 && zk_.now() >= deadline) co_return Error::OperationTimeout;
    // Nothing free: wait for a new item or a claim that goes away.
    Signal changed;
    detail::Watching items_watch(zk_, items_dir(), WatcherType::Children);
    detail::Watching claims_watch(zk_, claims_dir(), WatcherType::Children);
    auto watched_items = co_await zk_.get_children(items_dir(), signal_watcher(changed));
    auto watched_claims = co_await zk_.get_children(claims_dir(), signal_watcher(changed));
    if (!watched_items || !watched_claims) continue;
    std::sort(watched_claims->children.begin(), watched_claims->children.end());
    const bool free = std::any_of(watched_items->children.begin(), watched_items->children.end(), [&](const std::string& n) {
      return is_item(n) && !std::binary_search(watched_claims->children.begin(), watched_claims->children.end(), n);
    });
    if (free) continue;
    TimeMs left = detail::time_left(zk_, deadline);
    if (!co_await zk_.wait_for(changed, left)) {
      co_await items_watch.give_up();
      co_await claims_watch.give_up();
      co_return Error::OperationTimeout;
    }
  }
}

Task<Result<void>> LockingQueue::ack(Item item) {
  claimed_.erase(item.node);
  std::string name = item.node.substr(item.node.rfind('/') + 1);
  std::string claim = detail::join(claims_dir(), name);
  for (;;) {
    std::vector<MultiOp> ops;
    DeleteRequest drop_item{item.node, kAnyVersion};
    DeleteRequest drop_claim{claim, kAnyVersion};
    ops.emplace_back(std::move(drop_item));
    ops.emplace_back(std::move(drop_claim));
    auto done = co_await zk_.multi(std::move(ops));
    if (done.error == Error::Ok) co_return Result<void>();
    if (done.error != Error::ConnectionLoss) co_return done.error;
    // Applied or not? The item is gone only if the multi applied; synced
    // first, since a follower behind the multi still shows it.
    auto synced = co_await detail::sync_surely(zk_, item.node);
    if (!synced) co_return synced.error();
    auto st = co_await zk_.exists(item.node);
    if (!st && st.error() == Error::NoNode) co_return Result<void>();
    if (!st && st.error() != Error::ConnectionLoss) co_return st.error();
  }
}

Task<Result<void>> LockingQueue::release(Item item) {
  auto it = claimed_.find(item.node);
  if (it == claimed_.end()) co_return Error::BadArguments;
  const Claim claim = it->second;
  claimed_.erase(it);
  const std::string path = detail::join(claims_dir(), item.node.substr(item.node.rfind('/') + 1));
  co_return co_await drop_claim(zk_, path, claim.id, claim.session);
}

}  // namespace zksim::recipes
