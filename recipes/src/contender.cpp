#include "contender.h"

#include "watching.h"
#include "zksim/path.h"
#include "zksim/recipes/sequence.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace zksim::recipes::detail {

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out != "/") out += '/';
  out += name;
  return out;
}

Task<Result<void>> ensure_path(Client& zk, std::string path) {
  if (path == "/") co_return Result<void>();
  for (;;) {
    auto made = co_await zk.create(path, "", CreateMode::Persistent);
    if (made || made.error() == Error::NodeExists) co_return Result<void>();
    if (made.error() == Error::ConnectionLoss) continue;  // applied or not: NodeExists tells
    if (made.error() != Error::NoNode) co_return made.error();
    auto parent = co_await ensure_path(zk, std::string(parent_of(path)));
    if (!parent) co_return parent.error();
  }
}

Task<Result<void>> sync_surely(Client& zk, std::string path) {
  for (;;) {
    auto synced = co_await zk.sync(path);
    if (synced || synced.error() != Error::ConnectionLoss) co_return synced;
  }
}

Task<Result<std::optional<Created>>> find_own(Client& zk, std::string dir, std::string prefix) {
  for (;;) {
    // A create still on its way to the leader from the old connection
    // cannot commit after the sync: the leader fails it once the session
    // has moved (PrepRequestProcessor, SessionMovedException).
    auto synced = co_await sync_surely(zk, dir);
    if (!synced) co_return synced.error();
    auto listed = co_await zk.get_children(dir);
    if (!listed && listed.error() == Error::ConnectionLoss) continue;
    if (!listed && listed.error() == Error::NoNode) co_return std::optional<Created>();
    if (!listed) co_return listed.error();
    auto it = std::find_if(listed->children.begin(), listed->children.end(),
                           [&](const std::string& c) { return c.starts_with(prefix); });
    if (it == listed->children.end()) co_return std::optional<Created>();
    std::string path = join(dir, *it);
    auto st = co_await zk.exists(path);
    if (!st && st.error() == Error::ConnectionLoss) continue;
    if (!st && st.error() == Error::NoNode) co_return std::optional<Created>();
    if (!st) co_return st.error();
    co_return std::optional<Created>(Created{path, st->czxid, SessionId{st->ephemeralOwner}});
  }
}

Task<Result<Created>> create_protected(Client& zk, std::string dir, std::string prefix,
                                       std::string data, CreateMode mode) {
  std::string path = join(dir, prefix);
  for (;;) {
    auto made = co_await zk.create(path, data, mode);
    if (made) co_return Created{std::move(made->path), made->stat.czxid, SessionId{made->stat.ephemeralOwner}};
    if (made.error() == Error::NoNode) {
      auto parent = co_await ensure_path(zk, dir);
      if (!parent) co_return parent.error();
      continue;
    }
    if (made.error() != Error::ConnectionLoss) co_return made.error();
    auto found = co_await find_own(zk, dir, prefix);
    if (!found) co_return found.error();
    if (*found) co_return std::move(**found);
  }
}

Rule predecessor_rule() {
  return [](const std::vector<Contender>& all, std::size_t me) -> std::optional<std::string> {
    if (me == 0) return std::nullopt;
    return all[me - 1].name;
  };
}

Task<Result<void>> release_grant(Client& zk, std::optional<Grant>& grant) {
  if (!grant) co_return Error::BadArguments;
  std::string node = std::move(grant->node);
  grant.reset();
  co_await delete_surely(zk, std::move(node));
  co_return Result<void>();
}

Task<Result<void>> delete_surely(Client& zk, std::string path) {
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode) co_return Result<void>();
    if (gone.error() != Error::ConnectionLoss) co_return gone.error();
  }
}

Task<Result<std::vector<Contender>>> contenders(Client& zk, std::string dir, Markers markers,
                                                Watcher watcher) {
  for (;;) {
    auto listed = co_await zk.get_children(dir, watcher);
    if (!listed && listed.error() == Error::ConnectionLoss) continue;
    if (!listed) co_return listed.error();
    std::vector<Contender> out;
    out.reserve(listed->children.size());
    for (std::string& c : listed->children) {
      for (std::size_t k = 0; k < markers.size(); ++k) {
        if (auto seq = sequence_after(c, markers[k])) {
          out.push_back(Contender{std::move(c), *seq, k});
          break;
        }
      }
    }
    sort_in_issue_order(out, [](const Contender& c) { return c.seq; });
    // Equal numbers: only the creation zxid orders them. Rare (the counter
    // stuck at 2^31-1), so the Stats are read only then.
    bool retry = false;
    for (std::size_t i = 0; i < out.size() && !retry;) {
      std::size_t j = i + 1;
      while (j < out.size() && out[j].seq == out[i].seq) ++j;
      if (j - i > 1) {
        std::vector<std::pair<std::int64_t, Contender>> run;
        for (std::size_t k = i; k < j; ++k) {
          auto st = co_await zk.exists(join(dir, out[k].name));
          if (!st && st.error() == Error::NoNode) continue;  // gone meanwhile
          if (!st) {
            if (st.error() != Error::ConnectionLoss) co_return st.error();
            retry = true;
            break;
          }
          run.emplace_back(st->czxid, std::move(out[k]));
        }
        if (retry) break;
        std::sort(run.begin(), run.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Contender> merged(std::make_move_iterator(out.begin()),
                                      std::make_move_iterator(out.begin() + static_cast<std::ptrdiff_t>(i)));
        for (auto& [z, c] : run) merged.push_back(std::move(c));
        std::size_t next = merged.size();
        merged.insert(merged.end(), std::make_move_iterator(out.begin() + static_cast<std::ptrdiff_t>(j)),
                      std::make_move_iterator(out.end()));
        out = std::move(merged);
        i = next;
      } else {
        i = j;
      }
    }
    if (!retry) co_return out;
  }
}

Task<Result<void>> wait_turn(Client& zk, std::string dir, std::string name, Markers markers,
                             Rule rule, TimeMs deadline_ms, SessionId made_in) {
  // The watch this wait set last, while it has not fired. A session event
  // (a broken connection) ends a wait but leaves the watch armed, and the
  // reconnect sets it again: a wait that then gives up must take it back,
  // or the predecessor's release wakes us with our successor (a herd).
  std::optional<Watching> armed;
  for (;;) {
    if (deadline_ms >= 0 && zk.now() >= deadline_ms) {
      if (armed) co_await armed->give_up_surely();
      co_return Error::OperationTimeout;
    }
    const SessionId session = zk.session_id();
    auto listed = co_await contenders(zk, dir, markers);
    if (!listed) co_return listed.error();
    auto me = std::find_if(listed->begin(), listed->end(),
                           [&](const Contender& c) { return c.name == name; });
    // Our node is in every listing read in its session, unless another
    // deleted it.
    if (me == listed->end()) {
      if (made_in != SessionId{} && zk.session_id() != made_in) co_return Error::SessionExpired;
      co_return Error::NoNode;
    }
    // Nor does a listing read after the client left that session grant or
    // wait, though it still shows our node: the library gave the session up
    // (Curator's LOST) and opened a new one, and the server, not done
    // expiring the old one, lists its node until it does (the node
    // CURATOR-498's protected create found and took). Curator's
    // InterProcessSemaphoreV2 checks only that its node is listed.
    if (made_in != SessionId{} && session != made_in) co_return Error::SessionExpired;
    auto wait_on = rule(*listed, static_cast<std::size_t>(me - listed->begin()));
    if (!wait_on) {
      // A recipe on the caller's thread may read a reply after the
      // connection that brought it broke: the session, and our node with
      // it, may be gone by now. Only a listing read while still connected
      // in the same session grants; otherwise list again once connected.
      if (zk.state() == SessionState::Connected && zk.session_id() == session) co_return Result<void>();
      continue;
    }
    // Nor does it arm a watch: a listing of an earlier session (read before
    // the client opened a new one) names a predecessor we may no longer
    // follow, and our node may be gone.
    if (zk.session_id() != session) continue;
    Signal changed;
    auto fired = std::make_shared<bool>(false);
    Watcher on_change = [changed, fired](const WatchedEvent& e) mutable {
      if (e.type != EventType::None) *fired = true;
      changed.set();
    };
    armed.reset();
    if (wait_on->empty()) {
      // Any change among the contenders: a child watch, set by a second
      // listing to which the rule is applied again (a change between the
      // two listings would not fire it).
      armed.emplace(zk, dir, WatcherType::Children);
      auto relisted = co_await contenders(zk, dir, markers, std::move(on_change));
      if (!relisted) {
        if (relisted.error() != Error::ConnectionLoss) co_return relisted.error();
        continue;
      }
      auto still = std::find_if(relisted->begin(), relisted->end(),
                                [&](const Contender& c) { return c.name == name; });
      if (still == relisted->end() || !rule(*relisted, static_cast<std::size_t>(still - relisted->begin()))) {
        // Gone, or our turn came meanwhile: the next round sees which,
        // without this watch.
        co_await armed->give_up_surely();
        armed.reset();
        continue;
      }
    } else {
      std::string predecessor = join(dir, *wait_on);
      armed.emplace(zk, predecessor, WatcherType::Data);
      auto watched = co_await zk.get_data(predecessor, std::move(on_change));
      if (!watched) {
        if (watched.error() == Error::NoNode || watched.error() == Error::ConnectionLoss) continue;
        co_return watched.error();
      }
    }
    TimeMs left = time_left(zk, deadline_ms);
    if (!co_await zk.wait_for(changed, left)) {
      // Withdrawn before our node goes: once it has, our successor (on
      // this Client too, perhaps) may watch the same predecessor.
      co_await armed->give_up_surely();
      co_return Error::OperationTimeout;
    }
    if (*fired) armed.reset();  // spent: nothing to take back
  }
}

Task<Result<Created>> contend(Client& zk, std::string dir, Markers markers, std::size_t kind,
                              std::string data, Rule rule, TimeMs deadline_ms, SessionId bound) {
  std::string prefix = "_c_" + zk.unique_id() + "-" + markers[kind];
  auto made = co_await create_protected(zk, dir, prefix, data, CreateMode::EphemeralSequential);
  if (!made) co_return made.error();
  if (bound != SessionId{} && made->owner != bound) {
    co_await delete_surely(zk, made->path);
    co_return Error::SessionExpired;
  }
  // The node's own owner, not the client's session when the reply is read:
  // a recipe on the caller's thread may read it after the client, its
  // session expired, opened a new one (or while it has none yet).
  const SessionId made_in = made->owner;
  std::string name = made->path.substr(made->path.rfind('/') + 1);
  auto turn = co_await wait_turn(zk, dir, std::move(name), std::move(markers), std::move(rule), deadline_ms, made_in);
  if (!turn) {
    co_await delete_surely(zk, made->path);
    co_return turn.error();
  }
  co_return std::move(*made);
}

HoldTracker::HoldTracker(Client& zk, HoldListener listener, std::function<bool()> holding)
    : zk_(zk), listener_(std::move(listener)), holding_(std::move(holding)) {
  id_ = zk_.add_session_listener([this](const WatchedEvent& e) { on_session(e); });
}

HoldTracker::~HoldTracker() { zk_.remove_session_listener(id_); }

void HoldTracker::on_session(const WatchedEvent& e) {
  if (e.type != EventType::None) return;
  bool held = holding_();
  switch (e.state) {
    case KeeperState::Disconnected:
      if (!held || suspended_) return;
      suspended_ = true;
      if (listener_) listener_(HoldEvent::Suspended);
      return;
    case KeeperState::SyncConnected:
      if (!suspended_) return;
      suspended_ = false;
      if (held && listener_) listener_(HoldEvent::Reconnected);
      return;
    case KeeperState::Expired:
    case KeeperState::AuthFailed:
      suspended_ = false;
      if (!held) return;
      lost_ = true;
      if (listener_) listener_(HoldEvent::Lost);
      return;
  }
}

}  // namespace zksim::recipes::detail

namespace zksim::recipes {

const char* hold_event_name(HoldEvent e) {
  switch (e) {
    case HoldEvent::Suspended: return "suspended";
    case HoldEvent::Reconnected: return "reconnected";
    case HoldEvent::Lost: return "lost";
  }
  return "?";
}

}  // namespace zksim::recipes
