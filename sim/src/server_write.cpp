// Transactions: create, delete, setData, setACL, check, multi, and the
// deletes of session close/expiry and of the container reaper. The order of
// the checks in each function is the order of ZooKeeper 3.8's
// PrepRequestProcessor, so the error reported when several apply is its error.
#include "server_impl.h"

#include "zksim/path.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace zksim {

using detail::kNoNode;
using detail::NodeId;

namespace {

std::int32_t wrapping_increment(std::int32_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v) + 1u);
}

Error check_version(std::int32_t current, Version expected) {
  if (expected != kAnyVersion && expected.value != current) return Error::BadVersion;
  return Error::Ok;
}

// The path of the parent as ZooKeeper computes it: everything before the last
// '/', where "" names the root.
std::string_view parent_for_lookup(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

bool is_special_path(std::string_view path) {
  return path == "/" || path == "/zookeeper" || path == "/zookeeper/quota" ||
         path == "/zookeeper/config";
}

// Appends `v` as "%010d" prints it: zero-padded to ten characters, the
// sign included ("-000000042"; -2147483648 takes eleven).
void append_sequence_suffix(std::string& out, std::int32_t v) {
  char digits[10];
  std::size_t n = 0;
  std::uint32_t u = v < 0 ? 0u - static_cast<std::uint32_t>(v) : static_cast<std::uint32_t>(v);
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  std::size_t width = 10;
  if (v < 0) {
    out += '-';
    --width;
  }
  if (n < width) out.append(width - n, '0');
  while (n > 0) out += digits[--n];
}

bool is_normal_ephemeral(std::int64_t owner, bool extended) {
  if (owner == 0 || owner == kContainerOwner) return false;
  if (extended && (owner & kTtlOwnerMask) == kTtlOwnerMask) return false;
  return true;
}

}  // namespace

void Server::Impl::index_owner(NodeId id, const std::string& path, std::int64_t owner) {
  if (owner == 0) return;
  if (owner == kContainerOwner) {
    containers.insert(path);
  } else if (cfg.extended_types && (owner & kTtlOwnerMask) == kTtlOwnerMask) {
    ttls.insert(path);
  } else if (detail::SessionInfo* s = sessions.find(SessionId{owner})) {
    s->ephemerals.insert(id);
  }
}

void Server::Impl::unindex_owner(NodeId id, const std::string& path, std::int64_t owner) {
  if (owner == 0) return;
  if (owner == kContainerOwner) {
    containers.erase(path);
  } else if (cfg.extended_types && (owner & kTtlOwnerMask) == kTtlOwnerMask) {
    ttls.erase(path);
  } else if (detail::SessionInfo* s = sessions.find(SessionId{owner})) {
    s->ephemerals.erase(id);
  }
}

std::vector<std::string> Server::Impl::ephemeral_paths(const detail::SessionInfo& info) const {
  std::vector<std::string> out;
  out.reserve(info.ephemerals.size());
  for (NodeId id : info.ephemerals) out.push_back(tree.path(id));
  std::sort(out.begin(), out.end());
  return out;
}

Error Server::Impl::create(Txn& t, const CreateRequest& r, CreateResponse* out) {
  // validateCreateRequest
  if (is_ttl(r.mode) && !cfg.extended_types) return Error::Unimplemented;
  if (is_ttl(r.mode)) {
    if (r.ttl_ms <= 0 || r.ttl_ms > kMaxTtlMs) return Error::BadArguments;
  } else if (r.ttl_ms >= 0) {
    return Error::BadArguments;
  }
  // validatePathForCreate: only the last '/' and NUL are checked here.
  if (r.path.find('/') == std::string::npos || r.path.find('\0') != std::string::npos) {
    return Error::BadArguments;
  }
  // The open ACL needs no fixing up: skip the copy on the common path.
  const bool open = r.acl.size() == 1 && r.acl[0].id.scheme == "world" && r.acl[0].id.id == "anyone";
  Result<AclList> acl = open ? Result<AclList>(AclList{}) : detail::fixup_acl(r.acl, *t.auth);
  if (!acl) return acl.error();
  std::string_view parent_path = parent_for_lookup(r.path);
  NodeId parent = tree.find(parent_path);
  if (parent == kNoNode) return Error::NoNode;
  if (Error e = acls.check(tree.at(parent).acl, perms::kCreate, *t.auth);
      e != Error::Ok) {
    return e;
  }
  std::int32_t parent_cversion = tree.at(parent).st.cversion;
  std::string path;
  path.reserve(r.path.size() + 11);
  path += r.path;
  if (is_sequential(r.mode)) append_sequence_suffix(path, parent_cversion);
  if (validate_path(path) != Error::Ok) return Error::BadArguments;
  if (tree.find(path) != kNoNode) return Error::NodeExists;
  if (is_normal_ephemeral(tree.at(parent).st.ephemeral_owner, cfg.extended_types)) {
    return Error::NoChildrenForEphemerals;
  }

  std::int64_t owner = 0;
  if (r.mode == CreateMode::Container) {
    owner = kContainerOwner;
  } else if (is_ttl(r.mode)) {
    owner = kTtlOwnerMask | r.ttl_ms;
  } else if (is_ephemeral(r.mode)) {
    owner = t.session.value;
  }
  detail::Node& p = tree.at(parent);
  if (t.record_undo) t.undo.push_back(Undo{Undo::Created, path, p.st, {}});
  // DataTree.createNode moves cversion and pzxid only forward: at the wrap
  // from 2^31-1 the parent keeps both, so the next suffix repeats.
  std::int32_t new_cversion = wrapping_increment(parent_cversion);
  if (new_cversion > p.st.cversion) {
    p.st.cversion = new_cversion;
    p.st.pzxid = t.zxid;
  }
  detail::Node n;
  n.st.czxid = n.st.mzxid = n.st.pzxid = t.zxid;
  n.st.ctime = n.st.mtime = t.now;
  n.st.ephemeral_owner = owner;
  n.data = r.data;
  // world:anyone with every permission is the open ACL, interned first.
  n.acl = open && r.acl[0].perms == perms::kAll ? kOpenAcl : acls.intern(open ? r.acl : *acl);
  NodeId id = tree.insert(path, parent, std::move(n));
  index_owner(id, path, owner);
  if (out) {
    out->stat = tree.stat(id);
    out->path = path;
  }
  t.triggers.push_back(Trigger{Trigger::Created, std::move(path)});
  return Error::Ok;
}

void Server::Impl::delete_node(Txn& t, NodeId id) {
  detail::Node& n = tree.at(id);
  detail::Node& p = tree.at(n.parent);
  std::string path = tree.path(id);
  if (t.record_undo) t.undo.push_back(Undo{Undo::Deleted, path, p.st, {}});
  // DataTree.deleteNode: pzxid only moves forward; cversion does not change.
  if (t.zxid > p.st.pzxid) p.st.pzxid = t.zxid;
  unindex_owner(id, path, n.st.ephemeral_owner);
  detail::Node old = tree.erase(id);
  if (t.record_undo) t.undo.back().node_before = std::move(old);
  t.triggers.push_back(Trigger{Trigger::Deleted, std::move(path)});
}

Error Server::Impl::remove(Txn& t, const DeleteRequest& r) {
  // getParentPathAndValidate
  if (r.path.find('/') == std::string::npos || r.path.find('\0') != std::string::npos ||
      is_special_path(r.path)) {
    return Error::BadArguments;
  }
  // The node's own parent link is the parent the path names: one lookup
  // when the node exists.
  NodeId id = tree.find(r.path);
  NodeId parent = id != kNoNode ? tree.at(id).parent : tree.find(parent_for_lookup(r.path));
  if (parent == kNoNode) return Error::NoNode;
  if (Error e = acls.check(tree.at(parent).acl, perms::kDelete, *t.auth);
      e != Error::Ok) {
    return e;
  }
  if (id == kNoNode) return Error::NoNode;
  if (Error e = check_version(tree.at(id).st.version, r.version); e != Error::Ok) return e;
  if (!tree.at(id).children.empty()) return Error::NotEmpty;
  delete_node(t, id);
  return Error::Ok;
}

Error Server::Impl::remove_extended(Txn& t, const std::string& path) {
  if (path.find('/') == std::string::npos || is_special_path(path)) return Error::BadArguments;
  NodeId id = tree.find(path);
  if (id == kNoNode) return Error::NoNode;
  if (!tree.at(id).children.empty()) return Error::NotEmpty;
  if (is_normal_ephemeral(tree.at(id).st.ephemeral_owner, cfg.extended_types)) {
    return Error::BadVersion;  // sic: PrepRequestProcessor's deleteContainer
  }
  delete_node(t, id);
  return Error::Ok;
}

Error Server::Impl::set_data(Txn& t, const SetDataRequest& r, Stat* out) {
  if (validate_path(r.path) != Error::Ok) return Error::BadArguments;
  NodeId id = tree.find(r.path);
  if (id == kNoNode) return Error::NoNode;
  detail::Node& n = tree.at(id);
  if (Error e = acls.check(n.acl, perms::kWrite, *t.auth); e != Error::Ok) {
    return e;
  }
  if (Error e = check_version(n.st.version, r.version); e != Error::Ok) return e;
  if (t.record_undo) t.undo.push_back(Undo{Undo::Changed, r.path, {}, n});
  n.data = r.data;
  n.st.mtime = t.now;
  n.st.mzxid = t.zxid;
  n.st.version = wrapping_increment(n.st.version);
  if (out) *out = tree.stat(id);
  t.triggers.push_back(Trigger{Trigger::DataChanged, r.path});
  return Error::Ok;
}

Error Server::Impl::set_acl(Txn& t, const SetAclRequest& r, Stat* out) {
  if (validate_path(r.path) != Error::Ok) return Error::BadArguments;
  auto acl = detail::fixup_acl(r.acl, *t.auth);
  if (!acl) return acl.error();
  NodeId id = tree.find(r.path);
  if (id == kNoNode) return Error::NoNode;
  detail::Node& n = tree.at(id);
  if (Error e = acls.check(n.acl, perms::kAdmin, *t.auth); e != Error::Ok) {
    return e;
  }
  if (Error e = check_version(n.st.aversion, r.version); e != Error::Ok) return e;
  if (t.record_undo) t.undo.push_back(Undo{Undo::Changed, r.path, {}, n});
  n.acl = acls.intern(*acl);
  n.st.aversion = wrapping_increment(n.st.aversion);
  if (out) *out = tree.stat(id);
  return Error::Ok;
}

Error Server::Impl::check(Txn& t, const CheckRequest& r) {
  if (validate_path(r.path) != Error::Ok) return Error::BadArguments;
  NodeId id = tree.find(r.path);
  if (id == kNoNode) return Error::NoNode;
  if (Error e = acls.check(tree.at(id).acl, perms::kRead, *t.auth);
      e != Error::Ok) {
    return e;
  }
  return check_version(tree.at(id).st.version, r.version);
}

void Server::Impl::rollback(Txn& t) {
  for (auto it = t.undo.rbegin(); it != t.undo.rend(); ++it) {
    Undo& u = *it;
    switch (u.kind) {
      case Undo::Created: {
        NodeId id = tree.find(u.path);
        unindex_owner(id, u.path, tree.at(id).st.ephemeral_owner);
        tree.erase(id);
        tree.at(tree.find(parent_for_lookup(u.path))).st = u.parent_before;
        break;
      }
      case Undo::Deleted: {
        NodeId parent = tree.find(parent_for_lookup(u.path));
        std::int64_t owner = u.node_before.st.ephemeral_owner;
        NodeId id = tree.insert(u.path, parent, std::move(u.node_before));
        index_owner(id, u.path, owner);
        tree.at(parent).st = u.parent_before;
        break;
      }
      case Undo::Changed: {
        detail::Node& n = tree.at(tree.find(u.path));
        n.st = u.node_before.st;
        n.data = std::move(u.node_before.data);
        n.acl = u.node_before.acl;
        break;
      }
    }
  }
  t.undo.clear();
  t.triggers.clear();
}

Outcome Server::Impl::multi(Txn& t, const MultiRequest& r) {
  t.record_undo = true;
  MultiResponse response;
  response.results.resize(r.ops.size());
  std::size_t failed_at = r.ops.size();
  Error failure = Error::Ok;
  for (std::size_t i = 0; i < r.ops.size() && failed_at == r.ops.size(); ++i) {
    OpResult& result = response.results[i];
    Error e = std::visit(
        [&](const auto& op) -> Error {
          using Op = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<Op, CreateRequest>) {
            CreateResponse created;
            Error err = create(t, op, &created);
            if (err == Error::Ok) result.value = std::move(created);
            return err;
          } else if constexpr (std::is_same_v<Op, DeleteRequest>) {
            return remove(t, op);
          } else if constexpr (std::is_same_v<Op, SetDataRequest>) {
            StatResponse s;
            Error err = set_data(t, op, &s.stat);
            if (err == Error::Ok) result.value = s;
            return err;
          } else {
            return check(t, op);
          }
        },
        r.ops[i]);
    if (e != Error::Ok) {
      failed_at = i;
      failure = e;
    }
  }
  Outcome out;
  out.zxid = Zxid{t.zxid};
  if (failed_at < r.ops.size()) {
    rollback(t);
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      OpResult& result = response.results[i];
      result.value = std::monostate{};
      result.error = i < failed_at    ? Error::Ok
                     : i == failed_at ? failure
                                      : Error::RuntimeInconsistency;
    }
    out.error = failure;
  } else {
    fire(t.triggers, out.notifications);
  }
  out.response = std::move(response);
  return out;
}

void Server::Impl::fire(const std::vector<Trigger>& triggers, std::vector<Notification>& out) {
  std::vector<SessionId>& notify = fire_notify;
  std::vector<SessionId>& processed = fire_processed;
  static const std::vector<SessionId> none;
  notify.clear();
  auto emit = [&](EventType type, std::string_view path) {
    for (SessionId s : notify) {
      out.push_back(Notification{s, WatchedEvent{type, KeeperState::SyncConnected, std::string(path)}});
    }
    notify.clear();
  };
  for (const Trigger& trig : triggers) {
    std::string_view parent = parent_for_lookup(trig.path);
    switch (trig.kind) {
      case Trigger::Created:
        data_watches.trigger(trig.path, EventType::NodeCreated, none, notify);
        emit(EventType::NodeCreated, trig.path);
        child_watches.trigger(parent, EventType::NodeChildrenChanged, none, notify);
        emit(EventType::NodeChildrenChanged, parent);
        break;
      case Trigger::Deleted: {
        data_watches.trigger(trig.path, EventType::NodeDeleted, none, notify, &processed);
        child_watches.trigger(trig.path, EventType::NodeDeleted, processed, notify);
        emit(EventType::NodeDeleted, trig.path);
        child_watches.trigger(parent, EventType::NodeChildrenChanged, none, notify);
        emit(EventType::NodeChildrenChanged, parent);
        break;
      }
      case Trigger::DataChanged:
        data_watches.trigger(trig.path, EventType::NodeDataChanged, none, notify);
        emit(EventType::NodeDataChanged, trig.path);
        break;
    }
  }
}

Outcome Server::Impl::kill_session(SessionId session, TimeMs now) {
  Outcome out;
  detail::SessionInfo* info = sessions.find(session);
  if (!info) {
    out.error = Error::SessionExpired;
    out.zxid = Zxid{last_zxid};
    return out;
  }
  // The closing connection's watches go with it; its own deletes notify others.
  data_watches.remove_session(session);
  child_watches.remove_session(session);
  Txn t{next_zxid(), now, session, &info->auth, false, {}, {}};
  // In path order, as ZooKeeper's sorted set of a session's ephemerals.
  const std::vector<std::string> doomed = ephemeral_paths(*info);
  for (const std::string& path : doomed) delete_node(t, tree.find(path));
  sessions.remove(session);
  fire(t.triggers, out.notifications);
  out.zxid = Zxid{t.zxid};
  return out;
}

}  // namespace zksim
