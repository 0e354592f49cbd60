// The frontend's state, shared by its parts: the protocol (frontend.cpp),
// the four-letter words (four_letter.cpp) and the faults (faults.cpp).
#pragma once

#include "zksim/fault.h"
#include "zksim/zk_trace.h"
#include "zksim/wire/frontend.h"
#include "zksim/wire/opcode.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zksim::wire {

// A connection's counters, as ServerCnxn keeps them for `cons` and `stat`.
// Latencies are not kept: the simulated server answers within the call
// that reads the request, so each is 0 ms.
struct CnxnStats {
  std::int64_t received = 0;  // frames read, a four-letter word included
  std::int64_t sent = 0;      // frames sent
  std::string last_op = "NA";
  std::int64_t last_cxid = -1;  // -1: none yet (cons then leaves lcxid out)
  std::int64_t last_zxid = -1;
  TimeMs last_response = 0;
};

// The server's counters (ServerStats), for `srvr`, `stat` and `mntr`.
struct ServerCounters {
  std::int64_t received = 0;
  std::int64_t sent = 0;
  std::int64_t auth_failed = 0;
  // Reply and notification sizes (header and body, not the length
  // prefix): -1 until the first.
  std::int64_t last_response_size = -1;
  std::int64_t min_response_size = -1;
  std::int64_t max_response_size = -1;
};

struct Frontend::Impl {
  struct Connection {
    std::string ip;
    int port = 0;
    TimeMs opened = 0;
    TimeMs last_heard = 0;  // the last bytes from the client
    Bytes inbox;
    SessionId session;
    bool connected = false;    // the handshake is done
    bool closed = false;       // the frontend closed it; the loop has not said it is gone
    bool four_letter = false;  // it asked a four-letter word
    CnxnStats stats;
    // Deliveries held while a pause (pauses) is in force.
    std::vector<Delivery> held;
    std::string address() const { return ip + ":" + std::to_string(port); }
  };

  Impl(Server& s, FrontendOptions o) : server(s), options(o), next_reap(o.origin + o.reap_interval_ms) {}

  Server& server;
  FrontendOptions options;
  std::map<ConnectionId, Connection> connections;
  std::map<SessionId, ConnectionId> connection_of;
  // whoAmI's list: the ids the session authenticated as, in order.
  std::map<SessionId, std::vector<ClientInfo>> auth_ids;
  ConnectionId next_id = 1;
  TimeMs next_reap;
  static constexpr TimeMs kNever = INT64_MAX;
  // When the earliest pre-handshake connection falls silent for too long
  // (kNever: none waits), so that advance looks only then.
  TimeMs next_sessionless = kNever;
  ServerCounters counters;
  // Nodes whose data is null: the real server keeps a null from create or
  // setData and returns it as null, the simulated tree keeps strings. Every
  // create and setData of a path sets or clears its entry, so an entry
  // outlives its node only while no node is there to read.
  std::set<std::string> null_data;
  // The sessions DataTree.ephemerals has an entry for, as `dump` lists
  // them: each live session that created an ephemeral node; deleting its
  // nodes leaves the entry (empty), only the session's end removes it.
  std::set<SessionId> had_ephemerals;

  // Drops armed by drop_next, per session, in the order armed.
  struct ArmedDrop {
    FaultKind kind = FaultKind::DropBeforeApply;
    RequestMatch match;
  };
  std::map<SessionId, std::vector<ArmedDrop>> drops;
  // Connections with a pause in force, and until when.
  std::map<ConnectionId, TimeMs> pauses;

  // The trace: the last options.trace_limit events, and how many went before.
  std::deque<TraceEvent> trace;
  std::size_t trace_dropped = 0;
  std::map<SessionId, int> lane_of;
  TimeMs now = 0;  // of the call being served: the trace's clock
  void record(TraceKind kind, SessionId session, std::int64_t zxid, std::int32_t code, std::int32_t code2 = 0,
              std::int32_t xid = 0, std::string_view path = {}, std::string_view detail = {});
  // A session's lane, or -1 for none (the server's lane).
  int lane(SessionId session) const {
    auto it = lane_of.find(session);
    return it == lane_of.end() ? -1 : it->second;
  }

  // --- sending (frontend.cpp): every frame out goes through these, which count it ---
  // `response`: a reply or notification, whose size the server's stats keep.
  void send(ConnectionId id, Bytes bytes, std::vector<Delivery>& out, bool response = true);
  // Sends `last` (if any), then closes; the session's watches go with the connection.
  void close(ConnectionId id, std::vector<Delivery>& out, Bytes last = {});
  void detach(ConnectionId id, Connection& c);
  // The watch events an operation fired go to the connections of the
  // sessions they are for.
  void notify(const Outcome& o, std::vector<Delivery>& out);
  // ServerCnxn.updateStatsForResponse: the connection's last operation.
  void answered(Connection& c, OpCode code, std::int32_t xid, TimeMs now);
  void expire(TimeMs now, std::vector<Delivery>& out);
  // Closes the connections of sessions that are no longer alive.
  void close_dead(std::vector<Delivery>& out);
  // A pre-handshake connection was heard from at `t`: its silence is due later.
  void heard(Connection& c, TimeMs t) {
    c.last_heard = t;
    if (!c.connected) next_sessionless = std::min(next_sessionless, t + options.sessionless_timeout_ms);
  }

  void handshake(ConnectionId id, Connection& c, ByteView body, TimeMs now, std::vector<Delivery>& out);
  void request(ConnectionId id, Connection& c, ByteView body, TimeMs now, std::vector<Delivery>& out);
  void execute(ConnectionId id, Connection& c, const RequestFrame& f, TimeMs now,
               std::vector<Delivery>& out);
  void remember_nulls(const RequestFrame& f, const Outcome& o);
  // A create of an ephemeral node (alone or in a multi) that succeeded.
  void note_ephemerals(SessionId s, const Request& r, const Outcome& o);

  // --- faults (faults.cpp) ---
  // The drop armed for this request of the session, if one matches; it is then disarmed.
  std::optional<FaultKind> take_drop(SessionId session, const Request& request);
  // Moves deliveries to paused connections into their `held` queues.
  void hold(std::vector<Delivery>& out);
  // Sends what paused connections held once their pause is over.
  void release(TimeMs now, std::vector<Delivery>& out);

  // --- four-letter words (four_letter.cpp) ---
  // The reply to the word in the first four bytes of a connection, or
  // nullopt when they are no word the 3.8 server knows (they are then a
  // frame length). Counts the word as a packet received.
  std::optional<std::string> four_letter(Connection& asking, ByteView word, TimeMs now);
};

// ServerCnxn's short name of an operation (cons' "lop").
const char* last_op_name(OpCode code);

}  // namespace zksim::wire
