#include "tree_model.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <variant>

namespace zksim::model {
namespace {

using Nodes = TreeModel::Nodes;
using Txn = TreeModel::Txn;

constexpr std::int64_t kTtlMarker = static_cast<std::int64_t>(0xFF00000000000000ULL);
constexpr std::int64_t kContainerMarker = static_cast<std::int64_t>(0x8000000000000000ULL);
constexpr std::int64_t kMaxTtl = 0x000000FFFFFFFFFFLL;

bool has_nul(const std::string& path) { return path.find('\0') != std::string::npos; }

// The parent ZooKeeper looks up: everything before the last '/', the root
// when that is empty. REQUIRES: `path` contains '/'.
std::string lookup_parent(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

// PathUtils.validatePath for ASCII paths (the only ones the tests generate):
// absolute, no trailing '/', no empty, "." or ".." component, no control byte.
bool valid_path(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  if (path == "/") return true;
  if (path.back() == '/') return false;
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part) {
      auto u = static_cast<unsigned char>(c);
      if (u <= 0x1F || u == 0x7F || u >= 0x80) return false;
    }
    start = end + 1;
  }
  return true;
}

bool is_world(const Acl& a) { return a.id.scheme == "world" && a.id.id == "anyone"; }

// fixupACL with no authenticated ids: non-empty, world:anyone only, deduplicated.
std::optional<AclList> fixed_acl(const AclList& acl) {
  AclList out;
  for (const Acl& a : acl) {
    if (!is_world(a)) return std::nullopt;
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

bool allows(const AclList& acl, int perm) {
  return std::any_of(acl.begin(), acl.end(),
                     [&](const Acl& a) { return is_world(a) && (a.perms & perm) != 0; });
}

bool version_matches(std::int32_t current, Version expected) {
  return expected == kAnyVersion || expected.value == current;
}

// A session's ephemeral, as opposed to no owner, a container or a TTL node.
bool is_normal_ephemeral(std::int64_t owner) {
  return owner != 0 && owner != kContainerMarker && (owner & kTtlMarker) != kTtlMarker;
}

bool is_special(const std::string& path) {
  return path == "/" || path == "/zookeeper" || path == "/zookeeper/quota" ||
         path == "/zookeeper/config";
}

std::vector<std::string> child_names(const Nodes& nodes, const std::string& path) {
  std::vector<std::string> names;
  for (const auto& [key, node] : nodes) {
    if (key != "/" && lookup_parent(key) == path) names.push_back(key.substr(key.rfind('/') + 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The Stat a client sees. The model stores cversion as the count of child
// creates (the sequential counter); clients see 2 * creates - children, and
// containers and TTL nodes show no owner (DataNode.copyStat, measured).
Stat full_stat(const Nodes& nodes, const std::string& path) {
  Stat s = nodes.at(path).stat;
  s.dataLength = static_cast<std::int32_t>(nodes.at(path).data.size());
  s.numChildren = static_cast<std::int32_t>(child_names(nodes, path).size());
  s.cversion = static_cast<std::int32_t>(static_cast<std::uint32_t>(s.cversion) * 2u -
                                         static_cast<std::uint32_t>(s.numChildren));
  if (!is_normal_ephemeral(s.ephemeralOwner)) s.ephemeralOwner = 0;
  return s;
}

Error check_ttl(const CreateRequest& r) {
  if (is_ttl(r.mode)) return r.ttl_ms <= 0 || r.ttl_ms > kMaxTtl ? Error::BadArguments : Error::Ok;
  return r.ttl_ms >= 0 ? Error::BadArguments : Error::Ok;
}

std::int64_t owner_for(const CreateRequest& r, SessionId session) {
  if (r.mode == CreateMode::Container) return kContainerMarker;
  if (is_ttl(r.mode)) return kTtlMarker | r.ttl_ms;
  return is_ephemeral(r.mode) ? session.value : 0;
}

std::string sequence_suffix(std::int32_t cversion) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", cversion);
  return buf;
}

// The write ops: each returns the op's error and changes nothing on error.
Error do_create(Nodes& nodes, Txn& t, const CreateRequest& r, CreateResponse* out) {
  if (Error e = check_ttl(r); e != Error::Ok) return e;
  if (r.path.find('/') == std::string::npos || has_nul(r.path)) return Error::BadArguments;
  auto acl = fixed_acl(r.acl);
  if (!acl) return Error::InvalidAcl;
  auto parent = nodes.find(lookup_parent(r.path));
  if (parent == nodes.end()) return Error::NoNode;
  if (!allows(parent->second.acl, perms::kCreate)) return Error::NoAuth;
  std::string path = r.path;
  if (is_sequential(r.mode)) path += sequence_suffix(parent->second.stat.cversion);
  if (!valid_path(path)) return Error::BadArguments;
  if (nodes.contains(path)) return Error::NodeExists;
  if (is_normal_ephemeral(parent->second.stat.ephemeralOwner)) {
    return Error::NoChildrenForEphemerals;
  }
  ModelNode node{r.data, Stat{}, *acl};
  node.stat.czxid = node.stat.mzxid = node.stat.pzxid = t.zxid;
  node.stat.ctime = node.stat.mtime = t.now;
  node.stat.ephemeralOwner = owner_for(r, t.session);
  parent->second.stat.cversion += 1;
  parent->second.stat.pzxid = t.zxid;
  nodes.emplace(path, std::move(node));
  if (out) *out = CreateResponse{path, full_stat(nodes, path)};
  t.triggers.push_back({EventType::NodeCreated, path});
  return Error::Ok;
}

// Removes a node known to exist and be childless.
void erase_node(Nodes& nodes, Txn& t, const std::string& path) {
  Stat& parent = nodes.at(lookup_parent(path)).stat;
  parent.pzxid = std::max(parent.pzxid, t.zxid);
  nodes.erase(path);
  t.triggers.push_back({EventType::NodeDeleted, path});
}

Error do_delete(Nodes& nodes, Txn& t, const DeleteRequest& r) {
  if (r.path.find('/') == std::string::npos || has_nul(r.path) || is_special(r.path)) {
    return Error::BadArguments;
  }
  auto parent = nodes.find(lookup_parent(r.path));
  if (parent == nodes.end()) return Error::NoNode;
  if (!allows(parent->second.acl, perms::kDelete)) return Error::NoAuth;
  auto node = nodes.find(r.path);
  if (node == nodes.end()) return Error::NoNode;
  if (!version_matches(node->second.stat.version, r.version)) return Error::BadVersion;
  if (!child_names(nodes, r.path).empty()) return Error::NotEmpty;
  erase_node(nodes, t, r.path);
  return Error::Ok;
}

Error do_set_data(Nodes& nodes, Txn& t, const SetDataRequest& r, Stat* out) {
  if (!valid_path(r.path)) return Error::BadArguments;
  auto node = nodes.find(r.path);
  if (node == nodes.end()) return Error::NoNode;
  if (!allows(node->second.acl, perms::kWrite)) return Error::NoAuth;
  if (!version_matches(node->second.stat.version, r.version)) return Error::BadVersion;
  node->second.data = r.data;
  node->second.stat.version += 1;
  node->second.stat.mzxid = t.zxid;
  node->second.stat.mtime = t.now;
  if (out) *out = full_stat(nodes, r.path);
  t.triggers.push_back({EventType::NodeDataChanged, r.path});
  return Error::Ok;
}

Error do_check(const Nodes& nodes, const CheckRequest& r) {
  if (!valid_path(r.path)) return Error::BadArguments;
  auto node = nodes.find(r.path);
  if (node == nodes.end()) return Error::NoNode;
  if (!allows(node->second.acl, perms::kRead)) return Error::NoAuth;
  return version_matches(node->second.stat.version, r.version) ? Error::Ok : Error::BadVersion;
}

Error do_set_acl(Nodes& nodes, const SetAclRequest& r, Stat* out) {
  if (!valid_path(r.path)) return Error::BadArguments;
  auto acl = fixed_acl(r.acl);
  if (!acl) return Error::InvalidAcl;
  auto node = nodes.find(r.path);
  if (node == nodes.end()) return Error::NoNode;
  if (!allows(node->second.acl, perms::kAdmin)) return Error::NoAuth;
  if (!version_matches(node->second.stat.aversion, r.version)) return Error::BadVersion;
  node->second.acl = *acl;
  node->second.stat.aversion += 1;
  if (out) *out = full_stat(nodes, r.path);
  return Error::Ok;
}

// One op of a multi (or a lone write), with its per-op result.
Error do_op(Nodes& nodes, Txn& t, const MultiOp& op, OpResult& result) {
  return std::visit(
      [&](const auto& r) -> Error {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, CreateRequest>) {
          CreateResponse c;
          Error e = do_create(nodes, t, r, &c);
          if (e == Error::Ok) result.value = std::move(c);
          return e;
        } else if constexpr (std::is_same_v<R, DeleteRequest>) {
          return do_delete(nodes, t, r);
        } else if constexpr (std::is_same_v<R, SetDataRequest>) {
          StatResponse s;
          Error e = do_set_data(nodes, t, r, &s.stat);
          if (e == Error::Ok) result.value = s;
          return e;
        } else {
          return do_check(nodes, r);
        }
      },
      op);
}

Response to_response(OpResult&& result) {
  if (auto* c = std::get_if<CreateResponse>(&result.value)) return std::move(*c);
  if (auto* s = std::get_if<StatResponse>(&result.value)) return *s;
  return std::monostate{};
}

}  // namespace

TreeModel::TreeModel(int tick_ms) : tick_ms_(tick_ms) {
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    nodes_[path] = ModelNode{"", Stat{}, open_acl()};
  }
  nodes_["/zookeeper/config"].acl = read_acl();
  nodes_["/zookeeper/config"].stat.aversion = -1;
}

SessionGrant TreeModel::open_session(int requested_timeout_ms, TimeMs /*now*/) {
  SessionId id{next_session_++};
  live_.insert(id);
  int timeout = std::clamp(requested_timeout_ms, 2 * tick_ms_, 20 * tick_ms_);
  return SessionGrant{id, timeout, Zxid{++last_zxid_}};
}

Outcome TreeModel::close_session(SessionId session, TimeMs now) {
  Outcome out;
  out.zxid = Zxid{last_zxid_};
  if (!live_.contains(session)) {
    out.error = Error::SessionExpired;
    return out;
  }
  for (Watches* w : {&data_watches_, &child_watches_}) {
    std::erase_if(*w, [&](const auto& entry) { return entry.second == session; });
  }
  Txn t{++last_zxid_, now, session, {}};
  for (const std::string& path : ephemerals(session)) erase_node(nodes_, t, path);
  live_.erase(session);
  out.zxid = Zxid{t.zxid};
  out.notifications = fire(t.triggers);
  return out;
}

Outcome TreeModel::apply(SessionId session, const Request& request, TimeMs now) {
  if (!live_.contains(session)) {
    Outcome out;
    out.error = Error::SessionExpired;
    out.zxid = Zxid{last_zxid_};
    return out;
  }
  if (const auto* m = std::get_if<MultiRequest>(&request)) return multi(session, *m, now);
  bool is_write = std::holds_alternative<CreateRequest>(request) ||
                  std::holds_alternative<DeleteRequest>(request) ||
                  std::holds_alternative<SetDataRequest>(request) ||
                  std::holds_alternative<CheckRequest>(request) ||
                  std::holds_alternative<SetAclRequest>(request);
  return is_write ? write(session, request, now) : read(session, request);
}

Outcome TreeModel::write(SessionId session, const Request& request, TimeMs now) {
  Outcome out;
  Txn t{++last_zxid_, now, session, {}};
  out.zxid = Zxid{t.zxid};
  if (const auto* r = std::get_if<SetAclRequest>(&request)) {
    StatResponse s;
    out.error = do_set_acl(nodes_, *r, &s.stat);
    if (out.error == Error::Ok) out.response = s;
    return out;
  }
  MultiOp op = std::visit(
      [](const auto& r) -> MultiOp {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_constructible_v<MultiOp, R>) {
          return r;
        } else {
          throw std::logic_error("not a write");
        }
      },
      request);
  OpResult result;
  out.error = do_op(nodes_, t, op, result);
  if (out.error == Error::Ok) {
    out.response = to_response(std::move(result));
    out.notifications = fire(t.triggers);
  }
  return out;
}

Outcome TreeModel::multi(SessionId session, const MultiRequest& request, TimeMs now) {
  Outcome out;
  Txn t{++last_zxid_, now, session, {}};
  out.zxid = Zxid{t.zxid};
  Nodes scratch = nodes_;
  MultiResponse response;
  response.results.resize(request.ops.size());
  for (std::size_t i = 0; i < request.ops.size(); ++i) {
    Error e = do_op(scratch, t, request.ops[i], response.results[i]);
    if (e == Error::Ok) continue;
    for (std::size_t j = 0; j < response.results.size(); ++j) {
      response.results[j].value = std::monostate{};
      response.results[j].error = j < i ? Error::Ok : j == i ? e : Error::RuntimeInconsistency;
    }
    out.error = e;
    out.response = std::move(response);
    return out;
  }
  nodes_ = std::move(scratch);
  out.response = std::move(response);
  out.notifications = fire(t.triggers);
  return out;
}

namespace {

// Reads look paths up as given, except that ZooKeeper's node map also holds
// the root under "" (measured: getData("") returns the root).
std::string node_key(const std::string& path) { return path.empty() ? "/" : path; }

}  // namespace

Outcome TreeModel::read(SessionId session, const Request& request) {
  Outcome out;
  out.zxid = Zxid{last_zxid_};
  std::visit(
      [&](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, ExistsRequest>) {
          if (has_nul(r.path)) {
            out.error = Error::BadArguments;
            return;
          }
          if (r.watch) data_watches_.emplace(r.path, session);
          const std::string key = node_key(r.path);
          if (!nodes_.contains(key)) {
            out.error = Error::NoNode;
            return;
          }
          out.response = StatResponse{full_stat(nodes_, key)};
        } else if constexpr (std::is_same_v<R, GetDataRequest> ||
                             std::is_same_v<R, GetChildrenRequest>) {
          const std::string key = node_key(r.path);
          auto node = nodes_.find(key);
          if (node == nodes_.end()) {
            out.error = Error::NoNode;
            return;
          }
          if (!allows(node->second.acl, perms::kRead)) {
            out.error = Error::NoAuth;
            return;
          }
          Stat stat = full_stat(nodes_, key);
          if constexpr (std::is_same_v<R, GetDataRequest>) {
            if (r.watch) data_watches_.emplace(r.path, session);
            out.response = DataResponse{node->second.data, stat};
          } else {
            if (r.watch) child_watches_.emplace(r.path, session);
            out.response = ChildrenResponse{child_names(nodes_, key), stat};
          }
        } else if constexpr (std::is_same_v<R, SyncRequest>) {
          out.response = SyncResponse{r.path};
        } else {
          throw std::logic_error("request kind outside the model");
        }
      },
      request);
  return out;
}

std::vector<SessionId> TreeModel::take(Watches& w, const std::string& path) {
  std::vector<SessionId> out;
  for (auto it = w.lower_bound({path, SessionId{INT64_MIN}}); it != w.end() && it->first == path;) {
    out.push_back(it->second);
    it = w.erase(it);
  }
  return out;
}

std::vector<Notification> TreeModel::fire(const std::vector<Trigger>& triggers) {
  std::vector<Notification> out;
  auto emit = [&](const std::vector<SessionId>& sessions, EventType type, const std::string& path) {
    for (SessionId s : sessions) {
      out.push_back(Notification{s, WatchedEvent{type, KeeperState::SyncConnected, path}});
    }
  };
  for (const Trigger& trig : triggers) {
    if (trig.type == EventType::NodeDataChanged) {
      emit(take(data_watches_, trig.path), trig.type, trig.path);
      continue;
    }
    std::vector<SessionId> watchers = take(data_watches_, trig.path);
    if (trig.type == EventType::NodeDeleted) {
      // DataTree.deleteNode: the data watchers' trigger, then the child
      // watchers' trigger, which skips sessions the first one notified.
      for (SessionId s : take(child_watches_, trig.path)) {
        if (std::find(watchers.begin(), watchers.end(), s) == watchers.end()) watchers.push_back(s);
      }
    }
    emit(watchers, trig.type, trig.path);
    std::string parent = lookup_parent(trig.path);
    emit(take(child_watches_, parent), EventType::NodeChildrenChanged, parent);
  }
  return out;
}

std::vector<std::string> TreeModel::paths() const {
  std::vector<std::string> out;
  for (const auto& entry : nodes_) out.push_back(entry.first);
  return out;
}

std::optional<NodeView> TreeModel::node(const std::string& path) const {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return std::nullopt;
  return NodeView{path, it->second.data, full_stat(nodes_, path), it->second.acl};
}

std::vector<std::string> TreeModel::children(const std::string& path) const {
  if (!nodes_.contains(path)) return {};
  return child_names(nodes_, path);
}

std::vector<SessionId> TreeModel::sessions() const { return {live_.begin(), live_.end()}; }

std::vector<std::string> TreeModel::ephemerals(SessionId session) const {
  std::vector<std::string> out;
  for (const auto& [path, node] : nodes_) {
    if (node.stat.ephemeralOwner == session.value && is_normal_ephemeral(session.value)) {
      out.push_back(path);
    }
  }
  return out;
}

std::vector<std::string> TreeModel::watches_of(SessionId session) const {
  std::vector<std::string> out;
  for (const auto& [path, s] : data_watches_) {
    if (s == session) out.push_back("data " + path);
  }
  for (const auto& [path, s] : child_watches_) {
    if (s == session) out.push_back("child " + path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace zksim::model
