// What the events of the ZooKeeper world's trace (zksim/trace.h) mean: the
// codes of the server's own actions, which events are faults, and the text
// of an event and of a trace. Request events carry request kinds
// (zksim/request.h).
#pragma once

#include "zksim/request.h"
#include "zksim/trace.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace zksim {

// ConnectionRefused: a server behind the client's last seen zxid, down or
// in an election closed its connection attempt; zxid is the server's,
// detail says why. ServerCrashed, ServerRestarted, LeaderElected, LagBurst
// and the three steps of a partition (docs/ensemble.md): code2 is the
// server's index. A partition: the follower is cut off from the leader
// (FollowerCut), notices it and drops its clients (FollowerLooking, only if
// the cut lasts partition_detect_ms), and is back, caught up (FollowerRejoined).
// WriteRefused: a write a cut follower held reached the leader after its
// session had moved to another server (SESSIONMOVED); code2 the follower.
enum class ServerAction : std::int32_t {
  SessionOpened, SessionExpired, SessionClosed, Reaped, ConnectionRefused,
  ServerCrashed, ServerRestarted, LeaderElected, LagBurst,
  FollowerCut, FollowerLooking, FollowerRejoined, WriteRefused,
};

// Whether `e` tells of a fault: one struck at a client (TraceKind::Fault)
// or at a server (a crash, a lag burst).
bool is_fault(const TraceEvent& e);

// One line per event: "t=12 c1 0x..01 z=0x5 response create /a ZOK".
std::string render_event(const TraceEvent& e);
// Every kept event, a line each.
std::string render_trace(const Trace& trace);

// Names used in the rendering of traces (request kinds: request_kind_name,
// request.h): a fault's kind ("pause", ...).
std::string_view fault_kind_name(std::int32_t kind);
// "connecting", "connected", "expired", "closed" (a SessionState's code).
std::string_view session_state_name(std::int32_t state);

}  // namespace zksim
