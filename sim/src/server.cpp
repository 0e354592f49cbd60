// Sessions, reads, and the dispatch of requests to transactions.
#include "server_impl.h"

#include "zksim/path.h"

#include <algorithm>
#include <cassert>

namespace zksim {

using detail::kNoNode;
using detail::NodeId;

namespace {

std::int64_t jute_string(const std::string& s) { return 4 + static_cast<std::int64_t>(s.size()); }

std::int64_t jute_acl(const AclList& acl) {
  std::int64_t n = 4;
  for (const Acl& a : acl) n += 4 + jute_string(a.id.scheme) + jute_string(a.id.id);
  return n;
}

// The bytes of one write's body; taken by reference, so that sizing a
// request copies none of its strings.
std::int64_t jute_body(const CreateRequest& r) {
  return jute_string(r.path) + jute_string(r.data) + jute_acl(r.acl) + 4 + (is_ttl(r.mode) ? 8 : 0);
}
std::int64_t jute_body(const SetDataRequest& r) { return jute_string(r.path) + jute_string(r.data) + 4; }
std::int64_t jute_body(const DeleteRequest& r) { return jute_string(r.path) + 4; }
std::int64_t jute_body(const CheckRequest& r) { return jute_string(r.path) + 4; }

std::int64_t jute_op(const MultiOp& op) {
  return std::visit([](const auto& r) { return jute_body(r); }, op);
}

}  // namespace

std::int64_t wire_size(const Request& request) {
  constexpr std::int64_t kHeader = 8;       // xid, type
  constexpr std::int64_t kMultiHeader = 9;  // type, done, err
  return kHeader + std::visit(
                       [](const auto& r) -> std::int64_t {
                         using R = std::decay_t<decltype(r)>;
                         if constexpr (std::is_same_v<R, CreateRequest> ||
                                       std::is_same_v<R, SetDataRequest> ||
                                       std::is_same_v<R, DeleteRequest> ||
                                       std::is_same_v<R, CheckRequest>) {
                           return jute_body(r);
                         } else if constexpr (std::is_same_v<R, MultiRequest>) {
                           std::int64_t n = kMultiHeader;
                           for (const MultiOp& op : r.ops) n += kMultiHeader + jute_op(op);
                           return n;
                         } else if constexpr (std::is_same_v<R, SetAclRequest>) {
                           return jute_string(r.path) + jute_acl(r.acl) + 4;
                         } else if constexpr (std::is_same_v<R, SetWatchesRequest>) {
                           std::int64_t n = 8;
                           for (const auto* v : {&r.data, &r.exist, &r.child, &r.persistent,
                                                 &r.persistent_recursive}) {
                             n += 4;
                             for (const std::string& p : *v) n += jute_string(p);
                           }
                           return n;
                         } else if constexpr (std::is_same_v<R, GetEphemeralsRequest>) {
                           return jute_string(r.prefix);
                         } else {
                           return jute_string(r.path) + 4;
                         }
                       },
                       request);
}

Server::Impl::Impl(ServerConfig c) : cfg(c), sessions(c.tick_ms) {
  if (cfg.min_session_timeout_ms < 0) cfg.min_session_timeout_ms = 2 * cfg.tick_ms;
  if (cfg.max_session_timeout_ms < 0) cfg.max_session_timeout_ms = 20 * cfg.tick_ms;
  // SessionTrackerImpl.initializeNextSessionId at elapsed time 0.
  next_session = static_cast<std::int64_t>(static_cast<std::uint64_t>(cfg.server_id) << 56);
  // Every node made by the constructor has the open ACL (index 0); the
  // config node is read-only (ZOOKEEPER-2014) and its aversion is -1, as
  // DataTree.addConfigNode's setACL(..., -1) leaves it.
  [[maybe_unused]] std::uint32_t open = acls.intern(open_acl());
  assert(open == kOpenAcl);
  NodeId config = tree.find("/zookeeper/config");
  tree.at(config).acl = acls.intern(read_acl());
  tree.at(config).st.aversion = -1;
}

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(config)) {}
Server::~Server() = default;

const ServerConfig& Server::config() const { return impl_->cfg; }

SessionGrant Server::open_session(int requested_timeout_ms, TimeMs now, std::string client_ip) {
  Impl& m = *impl_;
  int timeout = std::clamp(requested_timeout_ms, m.cfg.min_session_timeout_ms,
                           m.cfg.max_session_timeout_ms);
  SessionId id{m.next_session++};
  m.sessions.add(id, timeout, now, std::move(client_ip));
  return SessionGrant{id, timeout, Zxid{m.next_zxid()}};
}

Outcome Server::close_session(SessionId session, TimeMs now) {
  return impl_->kill_session(session, now);
}

bool Server::touch(SessionId session, TimeMs now) { return impl_->sessions.touch(session, now); }

std::optional<TimeMs> Server::next_expiry() const { return impl_->sessions.next_deadline(); }

std::optional<TimeMs> Server::deadline(SessionId session) const {
  const detail::SessionInfo* info = impl_->sessions.find(session);
  if (!info) return std::nullopt;
  return info->deadline;
}

std::vector<Outcome> Server::expire_due(TimeMs now) {
  std::vector<Outcome> out;
  for (SessionId s : impl_->sessions.due(now)) out.push_back(impl_->kill_session(s, now));
  return out;
}

Outcome Server::expire(SessionId session, TimeMs now) { return impl_->kill_session(session, now); }

Error Server::add_auth(SessionId session, const std::string& scheme,
                       const std::string& credential) {
  detail::SessionInfo* info = impl_->sessions.find(session);
  if (!info) return Error::SessionExpired;
  auto id = detail::authenticate(scheme, credential);
  if (!id) return id.error();
  if (std::find(info->auth.begin(), info->auth.end(), *id) == info->auth.end()) {
    info->auth.push_back(*id);
  }
  return Error::Ok;
}

Outcome Server::apply(SessionId session, const Request& request, TimeMs now, ChildOrder* order) {
  Impl& m = *impl_;
  Outcome out;
  out.zxid = Zxid{m.last_zxid};
  detail::SessionInfo* info = m.sessions.find(session);
  if (!info) {
    out.error = Error::SessionExpired;
    return out;
  }
  if (wire_size(request) > m.cfg.max_request_bytes) {
    // NIOServerCnxn reads the length first and closes on "Len error".
    out.error = Error::ConnectionLoss;
    out.connection_dropped = true;
    return out;
  }
  m.sessions.touch(session, *info, now);
  const std::vector<Id>& auth = info->auth;
  auto write = [&](auto&& body) {
    Impl::Txn t{m.next_zxid(), now, session, &auth, false, std::move(m.spare_triggers), {}};
    out.error = body(t);
    out.zxid = Zxid{t.zxid};
    if (out.error == Error::Ok) m.fire(t.triggers, out.notifications);
    m.spare_triggers = std::move(t.triggers);
    m.spare_triggers.clear();
  };
  std::visit(
      [&](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, CreateRequest>) {
          write([&](Impl::Txn& t) {
            CreateResponse c;
            Error e = m.create(t, r, &c);
            if (e == Error::Ok) out.response = std::move(c);
            return e;
          });
        } else if constexpr (std::is_same_v<R, DeleteRequest>) {
          write([&](Impl::Txn& t) { return m.remove(t, r); });
        } else if constexpr (std::is_same_v<R, SetDataRequest> ||
                             std::is_same_v<R, SetAclRequest>) {
          write([&](Impl::Txn& t) {
            StatResponse s;
            Error e;
            if constexpr (std::is_same_v<R, SetDataRequest>) {
              e = m.set_data(t, r, &s.stat);
            } else {
              e = m.set_acl(t, r, &s.stat);
            }
            if (e == Error::Ok) out.response = s;
            return e;
          });
        } else if constexpr (std::is_same_v<R, CheckRequest>) {
          write([&](Impl::Txn& t) { return m.check(t, r); });
        } else if constexpr (std::is_same_v<R, MultiRequest>) {
          Impl::Txn t{m.next_zxid(), now, session, &auth, true, {}, {}};
          out = m.multi(t, r);
        } else {
          m.read(session, *info, request, order, out);
        }
      },
      request);
  return out;
}

std::vector<Outcome> Server::reap(TimeMs now) {
  Impl& m = *impl_;
  // ContainerManager.getCandidates, then one deleteContainer request each.
  std::vector<std::string> candidates;
  for (const std::string& path : m.containers) {
    const detail::Node& n = m.tree.at(m.tree.find(path));
    if (!n.children.empty()) continue;
    if (n.st.cversion > 0) {
      candidates.push_back(path);
    } else if (m.cfg.container_max_never_used_ms != 0 &&
               now - n.st.mtime > m.cfg.container_max_never_used_ms) {
      candidates.push_back(path);
    }
  }
  for (const std::string& path : m.ttls) {
    const detail::Node& n = m.tree.at(m.tree.find(path));
    if (!n.children.empty()) continue;
    std::int64_t ttl = n.st.ephemeral_owner & ~kTtlOwnerMask;
    if (ttl != 0 && now - n.st.mtime > ttl) candidates.push_back(path);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<Outcome> out;
  const std::vector<Id> no_auth;
  for (const std::string& path : candidates) {
    Impl::Txn t{m.next_zxid(), now, SessionId{0}, &no_auth, false, {}, {}};
    Outcome o;
    o.error = m.remove_extended(t, path);
    o.zxid = Zxid{t.zxid};
    if (o.error == Error::Ok) m.fire(t.triggers, o.notifications);
    out.push_back(std::move(o));
  }
  return out;
}

Zxid Server::last_zxid() const { return Zxid{impl_->last_zxid}; }

bool Server::session_alive(SessionId session) const {
  return impl_->sessions.find(session) != nullptr;
}

std::vector<SessionId> Server::sessions() const { return impl_->sessions.ids(); }

int Server::session_timeout_ms(SessionId session) const {
  const detail::SessionInfo* info = impl_->sessions.find(session);
  return info ? info->timeout_ms : 0;
}

std::vector<std::string> Server::ephemerals(SessionId session) const {
  const detail::SessionInfo* info = impl_->sessions.find(session);
  if (!info) return {};
  return impl_->ephemeral_paths(*info);
}

std::optional<NodeView> Server::node(const std::string& path) const {
  NodeId id = impl_->tree.find(path);
  if (id == kNoNode) return std::nullopt;
  const detail::Node& n = impl_->tree.at(id);
  return NodeView{path, n.data, impl_->tree.stat(id), impl_->acls.get(n.acl)};
}

void Server::connection_closed(SessionId session) {
  impl_->data_watches.remove_session(session);
  impl_->child_watches.remove_session(session);
}

std::optional<Stat> Server::stat(const std::string& path) const {
  NodeId id = impl_->tree.find(path);
  if (id == kNoNode) return std::nullopt;
  return impl_->tree.stat(id);
}

std::vector<std::string> Server::children(const std::string& path) const {
  NodeId id = impl_->tree.find(path);
  if (id == kNoNode) return {};
  return impl_->tree.child_names(id);
}

void Server::for_each_child(std::string_view path,
                            const std::function<void(std::string_view, const Stat&)>& f) const {
  const detail::DataTree& tree = impl_->tree;
  NodeId id = tree.find(path);
  if (id == kNoNode) return;
  for (NodeId c : tree.at(id).children) f(tree.at(c).name.view(), tree.stat(c));
}

std::size_t Server::node_count() const { return impl_->tree.size(); }

std::size_t Server::watch_count() const {
  return impl_->data_watches.size() + impl_->child_watches.size();
}

std::vector<std::string> Server::watches_of(SessionId session) const {
  std::vector<std::string> out;
  auto describe = [&](const char* standard, const detail::WatchManager& w) {
    for (const auto& [path, mode] : w.of_session(session)) {
      const char* kind = mode == detail::WatchMode::Standard     ? standard
                         : mode == detail::WatchMode::Persistent ? "persistent"
                                                                 : "recursive";
      out.push_back(std::string(kind) + " " + path);
    }
  };
  describe("data", impl_->data_watches);
  describe("child", impl_->child_watches);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Error Server::preset_node(const std::string& path, std::int32_t cversion) {
  if (path == "/" || validate_path(path) != Error::Ok) return Error::BadArguments;
  detail::DataTree& tree = impl_->tree;
  NodeId parent = tree.find("/");
  for (std::size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string_view prefix = std::string_view(path).substr(0, end);
    NodeId id = tree.find(prefix);
    if (id == kNoNode) id = tree.insert(prefix, parent, detail::Node{});
    parent = id;
    if (end == std::string::npos) break;
  }
  tree.at(parent).st.cversion = cversion;
  return Error::Ok;
}

Error Server::force_cversion(const std::string& path, std::int32_t cversion) {
  NodeId id = impl_->tree.find(path);
  if (id == kNoNode) return Error::NoNode;
  impl_->tree.at(id).st.cversion = cversion;
  return Error::Ok;
}

}  // namespace zksim
