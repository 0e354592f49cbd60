#include "zksim/zk_trace.h"

#include "zksim/error.h"
#include "zksim/fault.h"
#include "zksim/request.h"

#include <fmt/format.h>

#include <array>

namespace zksim {
namespace {

constexpr std::array<std::string_view, 4> kStateNames = {"connecting", "connected", "expired",
                                                         "closed"};

constexpr std::array<std::string_view, 13> kServerNames = {
    "session-opened",   "session-expired",  "session-closed",   "reaped",   "connection-refused",
    "server-crashed",   "server-restarted", "leader-elected",   "lag-burst",
    "follower-cut",     "follower-looking", "follower-rejoined", "write-refused"};

template <std::size_t N>
std::string_view name_in(const std::array<std::string_view, N>& names, std::int32_t i) {
  return i >= 0 && static_cast<std::size_t>(i) < N ? names[static_cast<std::size_t>(i)] : "?";
}

}  // namespace

bool is_fault(const TraceEvent& e) {
  if (e.kind == TraceKind::Fault) return true;
  return e.kind == TraceKind::Server && (e.code == static_cast<std::int32_t>(ServerAction::ServerCrashed) ||
                                         e.code == static_cast<std::int32_t>(ServerAction::LagBurst) ||
                                         e.code == static_cast<std::int32_t>(ServerAction::FollowerCut));
}

std::string_view fault_kind_name(std::int32_t kind) { return kind < kFaultKinds ? fault_class_name(kind) : "?"; }
std::string_view session_state_name(std::int32_t state) { return name_in(kStateNames, state); }

std::string render_event(const TraceEvent& e) {
  std::string who = e.client < 0 ? "server" : fmt::format("c{}", e.client);
  std::string head = fmt::format("t={:<6} {:<6} {:#018x} z={:#x}", e.time, who,
                                 static_cast<std::uint64_t>(e.session.value), e.zxid);
  switch (e.kind) {
    case TraceKind::Request:
      return fmt::format("{} -> {} {} #{}{}", head, request_kind_name(e.code), e.path, e.xid,
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Response:
      return fmt::format("{} <- {} {} #{} {}{}", head, request_kind_name(e.code2), e.path, e.xid,
                         error_name(static_cast<Error>(e.code)),
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Watch:
      return fmt::format("{} !! {} {}", head, event_type_name(static_cast<EventType>(e.code)),
                         e.path);
    case TraceKind::State:
      return fmt::format("{} == {}", head, name_in(kStateNames, e.code));
    case TraceKind::Fault:
      return fmt::format("{} ** fault {}{}", head, fault_kind_name(e.code),
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Server:
      return fmt::format("{} ## {}{}", head, name_in(kServerNames, e.code),
                         e.path.empty() ? "" : " " + e.path);
    case TraceKind::Annotation:
      return fmt::format("{} // {}", head, e.detail);
    case TraceKind::Listener:
      return fmt::format("{} => listeners told {}", head, keeper_state_name(static_cast<KeeperState>(e.code)));
  }
  return head;
}

std::string render_trace(const Trace& trace) {
  std::string out;
  for (const TraceEvent& e : trace.events()) {
    out += render_event(e);
    out += '\n';
  }
  return out;
}

}  // namespace zksim
