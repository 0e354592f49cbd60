// The simulated ZooKeeper server as a pure state machine: every input
// (session, request, simulated time) is an argument, every effect (the
// response, the watch events, the zxid) is in the returned Outcome. It reads
// no clock, thread or random source, and iterates nothing whose order is
// unspecified, so the same inputs give the same outputs on every platform.
//
//   zksim::Server server;
//   auto s = server.open_session(/*timeout_ms=*/6000, /*now=*/0);
//   auto out = server.apply(s.id, zksim::CreateRequest{.path = "/lock"}, /*now=*/5);
//   // out.error == Error::Ok, out.zxid is the transaction's zxid
#pragma once

#include "zksim/request.h"
#include "zksim/result.h"
#include "zksim/types.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zksim {

struct ServerConfig {
  int tick_ms = 2000;
  int min_session_timeout_ms = -1;  // -1: 2 ticks
  int max_session_timeout_ms = -1;  // -1: 20 ticks
  // jute.maxbuffer: a request packet larger than this closes the connection
  // before it is read (0xfffff, ZooKeeper's default).
  std::int64_t max_request_bytes = 0xfffff;
  bool extended_types = true;  // zookeeper.extendedTypesEnabled (TTL nodes)
  // znode.container.maxNeverUsedIntervalMs: 0 keeps never-used containers.
  std::int64_t container_max_never_used_ms = 0;
  // The high byte of session ids (ZooKeeper's server id).
  int server_id = 1;
};

// A watch event addressed to one session.
struct Notification {
  SessionId session;
  WatchedEvent event;
};

struct Outcome {
  // For a multi: the failing op's error, as the C client reports it (the
  // wire header itself says 0 and the per-op results carry the errors).
  Error error = Error::Ok;
  // The reply header's zxid: the transaction's for a write (failed writes are
  // transactions too), the last committed one for a read.
  Zxid zxid;
  Response response;
  // Watch events the operation fired, in the order ZooKeeper fires them.
  std::vector<Notification> notifications;
  // The server closed the connection instead of answering (oversized request).
  bool connection_dropped = false;
};

// Chooses the order of getChildren results (ZooKeeper promises none). The
// server hands over the names in byte order.
class ChildOrder {
 public:
  virtual ~ChildOrder() = default;
  virtual void arrange(std::vector<std::string>& names) = 0;
};

struct SessionGrant {
  SessionId id;
  int timeout_ms = 0;  // negotiated
  Zxid zxid;           // of the createSession transaction
};

// A node as the server holds it: for checkers and tests, not for recipes.
struct NodeView {
  std::string path;
  std::string data;
  Stat stat;
  AclList acl;
};

class Server {
 public:
  explicit Server(ServerConfig config = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const ServerConfig& config() const;

  // --- sessions ---
  // Opens a session (a createSession transaction). The timeout is clamped to
  // [min, max]; the client's address feeds the "ip" ACL scheme.
  SessionGrant open_session(int requested_timeout_ms, TimeMs now,
                            std::string client_ip = "127.0.0.1");
  // Closes a session: one transaction deleting its ephemerals; the closing
  // session's watches are dropped first, so only others are notified.
  // SessionExpired if the session is not alive.
  Outcome close_session(SessionId session, TimeMs now);
  // The session's connection closed (the session itself lives on): its
  // watches go with it, as DataTree.removeCnxn does; the client's
  // setWatches on its next connection brings them back.
  void connection_closed(SessionId session);
  // Heard from the session (any packet, pings included): pushes its deadline.
  // False if the session is not alive.
  bool touch(SessionId session, TimeMs now);
  // The earliest deadline of a live session, for lazy scheduling.
  std::optional<TimeMs> next_expiry() const;
  // When the session expires unless it is heard from; nullopt if not alive.
  std::optional<TimeMs> deadline(SessionId session) const;
  // Expires every session whose deadline is <= now, one transaction each.
  std::vector<Outcome> expire_due(TimeMs now);
  // Expires one session now, whatever its deadline (a fault).
  Outcome expire(SessionId session, TimeMs now);
  // addAuth: the session gains an id. AuthFailed for unknown schemes
  // (only "digest" is modelled) or malformed credentials; the real server
  // then closes the connection, which is the caller's to model.
  Error add_auth(SessionId session, const std::string& scheme, const std::string& credential);

  // --- operations ---
  // Applies one request of a live session at `now` and touches the session.
  // SessionExpired for a session that is not alive.
  Outcome apply(SessionId session, const Request& request, TimeMs now,
                ChildOrder* order = nullptr);

  // One pass of ZooKeeper's ContainerManager: deletes empty containers that
  // once had children, and empty TTL nodes unmodified for longer than their
  // TTL. One transaction per deleted node.
  std::vector<Outcome> reap(TimeMs now);

  // --- ground truth, for checkers and tests ---
  Zxid last_zxid() const;
  bool session_alive(SessionId session) const;
  std::vector<SessionId> sessions() const;
  int session_timeout_ms(SessionId session) const;  // 0 if not alive
  std::vector<std::string> ephemerals(SessionId session) const;  // sorted
  std::optional<NodeView> node(const std::string& path) const;
  std::optional<Stat> stat(const std::string& path) const;  // node() without copies
  std::vector<std::string> children(const std::string& path) const;  // sorted
  // Calls f(name, stat) for each child of `path`, in no set order, building
  // no strings: for checkers that ask at every step.
  void for_each_child(std::string_view path,
                      const std::function<void(std::string_view name, const Stat& stat)>& f) const;
  std::size_t node_count() const;
  // Watches held on the server, all sessions, all kinds.
  std::size_t watch_count() const;
  // "data /a", "child /a", "persistent /a", "recursive /a" lines of a session.
  std::vector<std::string> watches_of(SessionId session) const;

  // --- fault hooks ---
  // Sets a node's sequence counter (the count of child creates behind its
  // cversion), and so the next sequential suffix under it (e.g. near 2^31
  // to test wrap-around). NoNode if absent.
  Error force_cversion(const std::string& path, std::int32_t cversion);
  // Makes the persistent node `path` (and its missing parents) with no
  // transaction, every Stat field 0 as in a snapshot's tree, its sequence
  // counter at `cversion`: a directory that was there before the run.
  // BadArguments for an invalid path or "/".
  Error preset_node(const std::string& path, std::int32_t cversion);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zksim
