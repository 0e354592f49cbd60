// The ZooKeeper protocol in front of the simulated server, for `zksim
// serve`: bytes a client sent in, bytes to send back out. No sockets and no
// clock: the event loop around it reads the sockets and the wall clock and
// hands both in, so a run fed the same bytes at the same times answers the
// same. Each connection goes through the connect handshake, then each
// request is decoded (zksim/wire/request.h), applied to the server, and
// answered as the 3.8 server answers it (docs/wire.md). A connection whose
// first four bytes are a four-letter word ("ruok", "srvr", ...) gets that
// word's answer instead, and is closed.
//
// Faults (expire a session, drop a connection before or after applying its
// next request, hold a connection's replies, close it, set a sequence
// counter) are methods here, so that the control interface (control.h) and
// tests reach them the same way; each is recorded in the trace.
#pragma once

#include "zksim/fault.h"
#include "zksim/server.h"
#include "zksim/zk_trace.h"
#include "zksim/wire/jute.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zksim::wire {

using ConnectionId = std::int64_t;

// Bytes for one connection; `close` once they are sent.
struct Delivery {
  ConnectionId connection = 0;
  Bytes bytes;
  bool close = false;
  friend bool operator==(const Delivery&, const Delivery&) = default;
};

struct FrontendOptions {
  // The server's time when it started: `mntr`'s uptime and the trace's
  // times count from it.
  TimeMs origin = 0;
  // How often containers and TTL nodes are reaped
  // (znode.container.checkIntervalMs; ZooKeeper's default).
  TimeMs reap_interval_ms = 60000;
  // A connection that has not completed its handshake is closed once it
  // has sent nothing for this long (zookeeper.nio.sessionlessCnxnTimeout;
  // the real server's expiry queue closes it 10 to 20 s after, in buckets).
  TimeMs sessionless_timeout_ms = 10000;
  // The trace keeps the last this many events; older ones are counted.
  std::size_t trace_limit = 100000;
  // The port clients connect to, as `conf` reports it (clientPort).
  int client_port = 0;
  // What `envi` reports of the machine, by Environment.list's keys
  // ("host.name", "os.name", "os.arch", "os.version", "user.name",
  // "user.home", "user.dir", ...). A key not given reads "<NA>", as the
  // real server prints a system property it lacks; the JVM's own keys
  // (java.*, os.memory.*) have no value here. The serve loop fills it.
  std::map<std::string, std::string> environment;
};

// A connection as the control interface lists it.
struct ConnectionInfo {
  ConnectionId id = 0;
  std::string address;  // "ip:port" of the client
  SessionId session;    // 0 before the handshake
  int lane = -1;        // the session's lane in the trace (-1: none)
  int timeout_ms = 0;   // the session's negotiated timeout
};

// A fault's target: a session's connection, or the connection from a
// client address ("ip:port").
struct Target {
  SessionId session;
  std::string address;
};

class Frontend {
 public:
  // REQUIRES: `server` outlives the frontend.
  explicit Frontend(Server& server, FrontendOptions options = {});
  ~Frontend();
  Frontend(const Frontend&) = delete;
  Frontend& operator=(const Frontend&) = delete;

  // A client connected from `client_ip`:`client_port` at `now`.
  ConnectionId open(std::string client_ip = "127.0.0.1", int client_port = 0, TimeMs now = 0);
  // Bytes the client sent, read at `now`. Returns what to send, in order,
  // to this connection and to the connections of sessions whose watches
  // fired. After a delivery with `close` to a connection, it takes no more
  // bytes (receive returns nothing for it).
  std::vector<Delivery> receive(ConnectionId connection, ByteView bytes, TimeMs now);
  // The connection is gone: the client's side closed, the socket failed, or
  // the loop closed it after a delivery with `close`. Its session lives on
  // until it expires or the client reconnects to it. The frontend forgets
  // the connection.
  void lost(ConnectionId connection);
  // Time passed to `now`: expires the sessions that went silent (their
  // connections are closed, other sessions' watches fire), closes
  // connections silent too long before their handshake, releases held
  // replies whose pause ended, and reaps empty containers and TTL nodes.
  std::vector<Delivery> advance(TimeMs now);
  // When advance has something to do next, if ever.
  std::optional<TimeMs> next_deadline() const;

  // The session a connection is attached to (0 before the handshake).
  SessionId session_of(ConnectionId connection) const;
  // Every open connection, by id.
  std::vector<ConnectionInfo> connections() const;
  // The connection a target names: the session's current connection, or
  // the open connection from that address. nullopt if none.
  std::optional<ConnectionId> find(const Target& target) const;

  // --- faults ---
  // Expires the session now (Server::expire): its ephemerals go, others'
  // watches fire, its connection is closed. SessionExpired if not alive.
  Result<std::vector<Delivery>> expire(SessionId session, TimeMs now);
  // Closes the connection from the server's side; the session lives on.
  Result<std::vector<Delivery>> close(ConnectionId connection, TimeMs now);
  // Arms a drop for the session's next request matching `match` (pings,
  // auth and the codec's own requests are never matched): the connection
  // closes before the request is applied (DropBeforeApply), or after it is
  // applied with its reply and the session's own watch events lost
  // (DropAfterApply). Kinds other than these two are BadArguments;
  // SessionExpired if the session is not alive.
  Result<void> drop_next(SessionId session, FaultKind kind, RequestMatch match, TimeMs now);
  // Holds everything for the connection (replies, watch events, a close)
  // until `now + duration_ms`, then sends it in order. Requests are still
  // read and applied meanwhile, pings too, so the session stays alive.
  Result<void> pause(ConnectionId connection, TimeMs duration_ms, TimeMs now);
  // Server::force_cversion: the next sequential child of `path` gets
  // suffix `counter`. NoNode if absent.
  Result<void> set_sequence(const std::string& path, std::int32_t counter, TimeMs now);

  // --- the trace ---
  // What the server saw and did, oldest first: requests and replies per
  // session (pings aside), watch events sent, sessions opened, expired and
  // closed, faults. Each session has a lane (TraceEvent::client), in the
  // order sessions opened; times count from FrontendOptions::origin.
  std::vector<TraceEvent> trace() const;
  // Events dropped from the front of the trace (FrontendOptions::trace_limit).
  std::size_t trace_dropped() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The 16-byte session password the frontend gives a session: derived from
// the id alone (ZooKeeperServer.generatePasswd seeds a Random with the id
// and a secret), so a reconnect can be checked without keeping it.
std::string session_password(SessionId session);

}  // namespace zksim::wire
