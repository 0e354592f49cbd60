// Reads and watch registration. None consumes a zxid; the order of the
// checks is FinalRequestProcessor's (3.8): look the node up, check READ,
// then register the watch, so a failed read leaves no watch, except exists,
// which registers first (DataTree.statNode).
#include "server_impl.h"

#include <algorithm>

namespace zksim {

using detail::kNoNode;
using detail::NodeId;
using detail::WatchMode;

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

// Looks a node up for a read and checks `perm`; kNoNode with out.error set on failure.
NodeId Server::Impl::readable(const std::string& path, int perm, const std::vector<Id>& auth,
                              Outcome& out) const {
  NodeId id = tree.find(path);
  if (id == kNoNode) {
    out.error = Error::NoNode;
    return kNoNode;
  }
  out.error = acls.check(tree.at(id).acl, perm, auth);
  return out.error == Error::Ok ? id : kNoNode;
}

void Server::Impl::read(SessionId session, const detail::SessionInfo& info, const Request& r,
                        ChildOrder* order, Outcome& out) {
  const std::vector<Id>& auth = info.auth;
  std::visit(
      [&](const auto& q) {
        using Q = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<Q, ExistsRequest>) {
          if (q.path.find('\0') != std::string::npos) {
            out.error = Error::BadArguments;
            return;
          }
          if (q.watch) data_watches.add(q.path, session, WatchMode::Standard);
          NodeId id = tree.find(q.path);
          if (id == kNoNode) {
            out.error = Error::NoNode;
            return;
          }
          out.response = StatResponse{tree.stat(id)};
        } else if constexpr (std::is_same_v<Q, GetDataRequest>) {
          NodeId id = readable(q.path, perms::kRead, auth, out);
          if (id == kNoNode) return;
          if (q.watch) data_watches.add(q.path, session, WatchMode::Standard);
          out.response = DataResponse{tree.at(id).data, tree.stat(id)};
        } else if constexpr (std::is_same_v<Q, GetChildrenRequest>) {
          NodeId id = readable(q.path, perms::kRead, auth, out);
          if (id == kNoNode) return;
          if (q.watch) child_watches.add(q.path, session, WatchMode::Standard);
          ChildrenResponse c{tree.child_names(id), tree.stat(id)};
          if (order) order->arrange(c.children);
          out.response = std::move(c);
        } else if constexpr (std::is_same_v<Q, GetAllChildrenNumberRequest>) {
          NodeId id = readable(q.path, perms::kRead, auth, out);
          if (id == kNoNode) return;
          out.response = CountResponse{static_cast<std::int32_t>(tree.count_descendants(id))};
        } else if constexpr (std::is_same_v<Q, GetEphemeralsRequest>) {
          // A plain string prefix; blank or "/" means all.
          PathsResponse p;
          std::string_view prefix = trimmed(q.prefix);
          bool all = prefix.empty() || prefix == "/";
          for (std::string& path : ephemeral_paths(info)) {
            if (all || path.starts_with(q.prefix)) p.paths.push_back(std::move(path));
          }
          out.response = std::move(p);
        } else if constexpr (std::is_same_v<Q, SyncRequest>) {
          out.response = SyncResponse{q.path};
        } else if constexpr (std::is_same_v<Q, GetAclRequest>) {
          NodeId id = readable(q.path, perms::kRead | perms::kAdmin, auth, out);
          if (id == kNoNode) return;
          const AclList& acl = acls.get(tree.at(id).acl);
          AclResponse a{acl, tree.stat(id)};
          if (detail::check_acl(acl, perms::kAdmin, auth) != Error::Ok) {
            // Without ADMIN the digest hashes are hidden: "user:x".
            for (Acl& entry : a.acl) {
              if (entry.id.scheme == "digest") {
                entry.id.id = entry.id.id.substr(0, entry.id.id.find(':')) + ":x";
              }
            }
          }
          out.response = std::move(a);
        } else if constexpr (std::is_same_v<Q, AddWatchRequest>) {
          // DataTree.addWatch puts both modes in both managers.
          WatchMode mode = q.mode == AddWatchMode::Persistent ? WatchMode::Persistent
                                                              : WatchMode::PersistentRecursive;
          data_watches.add(q.path, session, mode);
          child_watches.add(q.path, session, mode);
        } else if constexpr (std::is_same_v<Q, RemoveWatchesRequest>) {
          // WatcherType.fromInt throws on another number, and
          // FinalRequestProcessor answers any such exception with MARSHALLINGERROR.
          if (q.type != WatcherType::Children && q.type != WatcherType::Data &&
              q.type != WatcherType::Any) {
            out.error = Error::MarshallingError;
            return;
          }
          bool removed = false;
          if (q.type != WatcherType::Data) removed |= child_watches.remove(q.path, session);
          if (q.type != WatcherType::Children) removed |= data_watches.remove(q.path, session);
          if (!removed) out.error = Error::NoWatcher;
        } else if constexpr (std::is_same_v<Q, SetWatchesRequest>) {
          set_watches(session, q, out);
        }
      },
      r);
}

void Server::Impl::set_watches(SessionId session, const SetWatchesRequest& r, Outcome& out) {
  auto event = [&](EventType type, const std::string& path) {
    out.notifications.push_back(
        Notification{session, WatchedEvent{type, KeeperState::SyncConnected, path}});
  };
  // DataTree.setWatches: a watch whose change the client missed fires now
  // instead of being registered. `changed` is the zxid that would have fired it.
  auto rearm = [&](const std::vector<std::string>& paths, detail::WatchManager& manager,
                   EventType missed, std::int64_t detail::Persisted::*changed) {
    for (const std::string& path : paths) {
      NodeId id = tree.find(path);
      if (id == kNoNode) {
        event(EventType::NodeDeleted, path);
      } else if (tree.at(id).st.*changed > r.relative_zxid) {
        event(missed, path);
      } else {
        manager.add(path, session, WatchMode::Standard);
      }
    }
  };
  rearm(r.data, data_watches, EventType::NodeDataChanged, &detail::Persisted::mzxid);
  for (const std::string& path : r.exist) {
    if (tree.find(path) != kNoNode) {
      event(EventType::NodeCreated, path);
    } else {
      data_watches.add(path, session, WatchMode::Standard);
    }
  }
  rearm(r.child, child_watches, EventType::NodeChildrenChanged, &detail::Persisted::pzxid);
  for (WatchMode mode : {WatchMode::Persistent, WatchMode::PersistentRecursive}) {
    const auto& paths = mode == WatchMode::Persistent ? r.persistent : r.persistent_recursive;
    for (const std::string& path : paths) {
      child_watches.add(path, session, mode);
      data_watches.add(path, session, mode);
    }
  }
}

}  // namespace zksim
