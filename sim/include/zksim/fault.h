// Faults the simulated world can inject: scripted (at a time, or on the nth
// matching request of a client) or drawn by a seeded nemesis at a rate per
// class. Each class models something a real deployment does to a client.
#pragma once

#include "zksim/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zksim {

enum class FaultKind : std::int32_t {
  // The connection breaks before the request reaches the server: not applied.
  DropBeforeApply = 0,
  // The server applies the request, then the connection breaks: the reply
  // (and any watch event queued before it) is lost; the client sees ConnectionLoss.
  DropAfterApply = 1,
  // The server expires the session now, while the client thinks it is fine;
  // the client learns of it only through its connection.
  ExpireSession = 2,
  // The client stops (no pings, no processing) for `duration_ms`: a GC pause.
  Pause = 3,
  // The client's process dies; its session lingers until it times out.
  Crash = 4,
  // The next message to the client arrives `duration_ms` late (FIFO kept).
  Delay = 5,
};
inline constexpr int kFaultKinds = 6;

// The nemesis's fault classes: first the six request-triggered ones (class
// k strikes FaultKind k as a request reaches the server), then the
// time-triggered ones, which strike at times the nemesis draws, whether the
// clients are busy or idle:
//   any-time  one client, drawn among all, loses its connection, has its
//             session expired, pauses (pause_ms) or crashes;
//   blip-all  every client, or a drawn subset, loses its connection at
//             once and cannot reconnect for a drawn time up to pause_ms
//             (sessions whose timeout passes meanwhile expire on the server);
//   burst     one drawn client loses its connection two or three times, a
//             few milliseconds apart.
// The ensemble's (docs/ensemble.md); on a world of one server they do
// nothing, and draw nothing but the window's decision:
//   lag-burst     a drawn follower receives no commit for a drawn time up
//                 to pause_ms, then all of them;
//   server-crash  a drawn server crashes and restarts a drawn time up to
//                 pause_ms later; if it led, a new leader is elected;
//   leader-crash  the leader crashes as the next write reaches it (or at
//                 the window's end if none does): that write is committed
//                 or lost, its reply lost either way; a new leader is
//                 elected and the old one restarts later;
//   partition     a drawn follower is cut off from the leader for a drawn
//                 time up to pause_ms: stale meanwhile, its clients' writes
//                 held; past WorldConfig::partition_detect_ms it drops its
//                 clients (held writes lost) and refuses them until healed;
//   session-moved the session of a follower's client moves to its next
//                 server as the next write from a follower's client is on
//                 its way to the leader (or, if none comes by the window's
//                 end, a drawn client's): the leader refuses that write
//                 (SESSIONMOVED) or had applied it, its reply lost either way.
// New classes go last, so that the bands of the others stay where they are.
enum class TimedFault : std::int32_t {
  AnyTime = kFaultKinds, BlipAll, Burst, LagBurst, ServerCrash, LeaderCrash, Partition, SessionMoved
};
inline constexpr int kFaultClasses = kFaultKinds + 8;
// Whether `fault_class` is one of the ensemble's (needs servers > 1).
constexpr bool is_ensemble_class(std::int32_t fault_class) {
  return fault_class >= static_cast<std::int32_t>(TimedFault::LagBurst) && fault_class < kFaultClasses;
}
// The classes a world of one server feels: 0 to kClientFaultClasses - 1.
inline constexpr int kClientFaultClasses = static_cast<int>(TimedFault::LagBurst);
// "drop-before-apply", ..., "delay", "any-time", "blip-all", "burst"; "?"
// outside [0, kFaultClasses).
std::string_view fault_class_name(std::int32_t fault_class);

// Which requests a request-triggered fault counts.
struct RequestMatch {
  std::int32_t kind = -1;      // index in Request; -1: any
  std::string path_prefix;     // "" matches every path
};

struct ScriptedFault {
  FaultKind kind = FaultKind::DropBeforeApply;
  // The client's id in the world; kAllClients: every client at once (a
  // fault at a time only).
  std::int32_t client = 0;
  std::optional<TimeMs> at;              // fire at this simulated time...
  std::optional<RequestMatch> on;        // ...or when the client's nth matching request
  std::int32_t nth = 1;                  //    reaches the server (1-based)
  TimeMs duration_ms = 0;                // Pause, Delay
};
inline constexpr std::int32_t kAllClients = -1;

// Storms end. Once the nemesis has struck kNemesisStorm requests of one
// client in a row (handles made by World::share count as that client),
// the client's next kNemesisStorm requests reach the server untouched,
// drawing no decision; then its rates apply again.
// Why: at 1000 per mille every request is struck, none is ever served, and
// a run could end only at its time limit, after some 33,000 reconnects per
// client (a drop costs about 18 simulated ms). With the calm, a client's
// struck requests are at most its served requests plus one storm, so a
// run's work follows its useful work. At the rates runs use the cap never
// binds: 16 strikes in a row have odds of 0.18^16, about 1e-12, per
// request with every class at 30 per mille. Scripted faults neither count
// nor wait for a calm.
inline constexpr int kNemesisStorm = 16;

// The nemesis's decision on a request, or on a time window, is
// pick(kNemesisChoices).
inline constexpr std::uint32_t kNemesisChoices = 1000;

// The nemesis's rates, in thousandths, by fault class. A request-triggered
// class strikes with its rate when a request reaches the server (storms
// end: see kNemesisStorm); drops and delays hit the requester; expiry,
// pause and crash hit a client chosen by a decision (0: the requester), so
// a holder that sends nothing can be hit too. A time-triggered class
// strikes with its rate in each window of window_ms, at a drawn instant of
// it; the first window opens at first_window_ms. All zero: no nemesis.
struct NemesisRates {
  std::uint32_t per_mille[kFaultClasses] = {};
  TimeMs pause_ms = 0;   // how long a random Pause (or blip) lasts, at most
  TimeMs delay_ms = 0;   // how late a random Delay makes the next message
  // 0: kTimedWindowMs in a World; the harness (scenarios::run) sizes it to
  // the workload's round instead, so that runs of any length are struck.
  TimeMs window_ms = 0;
  TimeMs first_window_ms = 0;
  bool per_request() const { return any_of(0, kFaultKinds); }
  bool timed() const { return any_of(kFaultKinds, kFaultClasses); }
  bool any() const { return any_of(0, kFaultClasses); }
  // The request-triggered class a nemesis decision `choice` strikes with,
  // or nullopt (no fault). Each class takes a band of per_mille[k] choices,
  // down from the top in FaultKind order, so 0 and every low choice is no
  // fault (unless the rates add up to 1000 or more).
  std::optional<FaultKind> strike(std::uint32_t choice) const;
  // The same for a time window's decision, over the time-triggered classes.
  std::optional<TimedFault> strike_timed(std::uint32_t choice) const;
  // The smallest choice that strikes with `kind`, or nullopt when none does
  // (its rate is 0, or the classes before it take every choice). With
  // strike(0) this names every outcome of a nemesis decision, which is what
  // a bounded exhaustive search tries instead of all 1000 choices.
  std::optional<std::uint32_t> choice_for(FaultKind kind) const;

 private:
  bool any_of(int from, int to) const {
    for (int k = from; k < to; ++k) {
      if (per_mille[k]) return true;
    }
    return false;
  }
};
// The window of a World whose NemesisRates::window_ms is 0.
inline constexpr TimeMs kTimedWindowMs = 1000;

}  // namespace zksim
