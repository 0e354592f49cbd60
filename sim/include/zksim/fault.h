// Faults the simulated world can inject: scripted (at a time, or on the nth
// matching request of a client) or drawn by a seeded nemesis at a rate per
// class. Each class models something a real deployment does to a client.
#pragma once

#include "zksim/request.h"
#include "zksim/types.h"

#include <array>
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
// time-triggered ones of one server, which strike at times the nemesis
// draws, whether the clients are busy or idle:
//   any-time  one client, drawn among all, loses its connection, has its
//             session expired, pauses (pause_ms) or crashes;
//   blip-all  every client, or a drawn subset, loses its connection at
//             once and cannot reconnect for a drawn time up to pause_ms
//             (sessions whose timeout passes meanwhile expire on the server);
//   burst     one drawn client loses its connection two or three times, a
//             few milliseconds apart.
// Then op-chain, request-triggered again: a chain of faults aimed at one
// operation (kOpChain, OpChain below).
// Last the ensemble's (docs/ensemble.md); on a world of one server they do
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
// A decision's bands are taken per group (request-triggered, time-triggered)
// in list order, so a new class leaves the bands of the others where they
// are; one server's classes come before the ensemble's.
enum class TimedFault : std::int32_t {
  AnyTime = kFaultKinds, BlipAll, Burst,
  LagBurst = kFaultKinds + 4, ServerCrash, LeaderCrash, Partition, SessionMoved
};
// op-chain: the request-triggered class between them.
inline constexpr std::int32_t kOpChain = kFaultKinds + 3;
inline constexpr int kFaultClasses = kFaultKinds + 9;
// Whether `fault_class` is one of the ensemble's (needs servers > 1).
constexpr bool is_ensemble_class(std::int32_t fault_class) {
  return fault_class >= static_cast<std::int32_t>(TimedFault::LagBurst) && fault_class < kFaultClasses;
}
// The classes a world of one server feels: 0 to kClientFaultClasses - 1.
inline constexpr int kClientFaultClasses = static_cast<int>(TimedFault::LagBurst);
// Whether `fault_class` strikes at a request reaching the server (a rate
// per request) rather than in time windows (a rate per window).
constexpr bool is_request_class(std::int32_t fault_class) {
  return (fault_class >= 0 && fault_class < kFaultKinds) || fault_class == kOpChain;
}
constexpr bool is_timed_class(std::int32_t fault_class) {
  return fault_class >= kFaultKinds && fault_class < kFaultClasses && fault_class != kOpChain;
}
// "drop-before-apply", ..., "delay", "any-time", "blip-all", "burst",
// "op-chain", "lag-burst", ...; "?" outside [0, kFaultClasses).
std::string_view fault_class_name(std::int32_t fault_class);

// op-chain: when the nemesis strikes a client's request with it, it draws a
// request kind (kOpChainKinds) and a chain, and the chain strikes at that
// client's next request of that kind (the one at hand if it is one; a
// later strike of the class aims anew): a first fault on the request, then
// a follow-up. The chains, each grounded in a failure seen in practice, the
// mildest first (decision 0):
//   reply-lost          applied, its reply lost (drop-after-apply); nothing
//                       follows. ZooKeeper's FAQ ("How should I handle the
//                       CONNECTION_LOSS error?": a create whose link broke
//                       after it reached the server succeeds) and
//                       ZOOKEEPER-1262 (the lock recipe as documented cannot
//                       tell which sequential node such a create made).
//   reply-lost-twice    applied, its reply lost, and so is the reply to the
//                       client's next request (its retry, or the read that
//                       looks for what the first one did). CURATOR-335: a
//                       network event after the semaphore's node was created
//                       but before its getChildren orphaned the node (a
//                       deadlock).
//   request-lost-pause  not applied (drop-before-apply), then the client
//                       pauses for pause_ms: one stop-the-world pause
//                       (ZooKeeper's Troubleshooting page: GC pauses hang the
//                       client's threads; HBase's "a network partition or a
//                       long-running GC pause") broke the link before the
//                       request went out, and the client resumes later.
//   reply-lost-expiry   applied, its reply lost, and the server expires the
//                       session at once: the client learns Expired on
//                       reconnecting and cannot ask its old session what its
//                       request did (ZooKeeper's FAQ, "How should I handle
//                       SESSION_EXPIRED?").
//   reply-lost-outage   applied, its reply lost, and the client cannot
//                       reconnect for the session timeout plus a drawn 1 ms
//                       to the session timeout. A C client learns Expired on
//                       reconnecting. A client that gives a session up by
//                       itself (Curator's LOST) opens a new one while the
//                       server, whose expiry may come late, can still hold
//                       the old one and its nodes: CURATOR-498, where a
//                       protected create, retried in the new session, found
//                       the closing session's node and took it for its own.
// The trace names the chain and the kind on each of its faults.
enum class OpChain : std::int32_t { ReplyLost, ReplyLostTwice, RequestLostPause, ReplyLostExpiry, ReplyLostOutage };
inline constexpr int kOpChains = 5;
// "reply-lost", ...; "?" outside the list.
std::string_view op_chain_name(std::int32_t chain);
// The request kinds op-chain aims at, the ones recipes send; decision 0
// first (create).
inline constexpr std::array<std::int32_t, 10> kOpChainKinds = {
    request_kind<CreateRequest>,      request_kind<DeleteRequest>,   request_kind<GetChildrenRequest>,
    request_kind<GetDataRequest>,     request_kind<ExistsRequest>,   request_kind<SetDataRequest>,
    request_kind<MultiRequest>,       request_kind<SyncRequest>,     request_kind<AddWatchRequest>,
    request_kind<RemoveWatchesRequest>};

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
// a holder that sends nothing can be hit too; op-chain arms a chain for
// the requester's next request of a drawn kind. A time-triggered class
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
  bool per_request() const { return any_of(is_request_class); }
  bool timed() const { return any_of(is_timed_class); }
  bool any() const { return any_of([](std::int32_t) { return true; }); }
  // The request-triggered class (is_request_class) a nemesis decision
  // `choice` strikes with, or nullopt (no fault). Each class takes a band
  // of per_mille[k] choices, down from the top in list order, so 0 and
  // every low choice is no fault (unless the rates add up to 1000 or more).
  std::optional<std::int32_t> strike(std::uint32_t choice) const;
  // The same for a time window's decision, over the time-triggered classes.
  std::optional<TimedFault> strike_timed(std::uint32_t choice) const;
  // The smallest choice that strikes with request-triggered class
  // `fault_class`, or nullopt when none does (its rate is 0, or the classes
  // before it take every choice). With strike(0) this names every outcome
  // of a nemesis decision, which is what a bounded exhaustive search tries
  // instead of all 1000 choices.
  std::optional<std::uint32_t> choice_for(std::int32_t fault_class) const;
  std::optional<std::uint32_t> choice_for(FaultKind kind) const {
    return choice_for(static_cast<std::int32_t>(kind));
  }

 private:
  template <class Pred>
  bool any_of(Pred in_group) const {
    for (std::int32_t k = 0; k < kFaultClasses; ++k) {
      if (in_group(k) && per_mille[k]) return true;
    }
    return false;
  }
};
// The window of a World whose NemesisRates::window_ms is 0.
inline constexpr TimeMs kTimedWindowMs = 1000;

}  // namespace zksim
