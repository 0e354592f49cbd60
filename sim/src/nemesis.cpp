// World::Impl's faults at clients and the nemesis that draws them
// (fault.h, docs/harness.md): scripted faults and per-request strikes,
// op-chain and its follow-ups, the time-triggered windows. The faults of
// the ensemble's servers are server_faults.cpp.
#include "world_impl.h"

#include <algorithm>

namespace zksim {

std::optional<World::Impl::Strike> World::Impl::fault_for(Handle& h, const UpMsg& msg) {
  for (Armed& a : armed) {
    if (a.done || !a.fault.on || a.fault.client != msg.view) continue;
    const RequestMatch& m = *a.fault.on;
    if (m.kind >= 0 && m.kind != static_cast<std::int32_t>(msg.request->index())) continue;
    if (!path_of(*msg.request).starts_with(m.path_prefix)) continue;
    if (++a.seen < a.fault.nth) continue;
    a.done = true;
    return Strike{a.fault.kind};
  }
  if (!cfg.nemesis.per_request()) return std::nullopt;
  Handle::Storm& storm = h.storm;
  const auto kind = static_cast<std::int32_t>(msg.request->index());
  // The rest of a chain struck already draws nothing: the second drop of
  // reply-lost-twice takes the client's next request (not the library's
  // setWatches), calm or not.
  if (h.drop_next && kind != request_kind<SetWatchesRequest>) {
    h.drop_next = false;
    if (++storm.struck == kNemesisStorm) storm = Handle::Storm{.calm = kNemesisStorm};
    return Strike{FaultKind::DropAfterApply, false, OpChain::ReplyLostTwice, -1};
  }
  if (storm.calm > 0) {
    --storm.calm;
    return std::nullopt;
  }
  if (h.aimed && h.aimed->kind == kind) return fire_chain(h, *std::exchange(h.aimed, std::nullopt));
  // One decision per request; 0 (and every low value) means no fault.
  if (const std::optional<std::int32_t> k = cfg.nemesis.strike(decisions.pick(kNemesisChoices))) {
    if (*k == kOpChain) {
      // Aimed at a drawn kind: this request if it is one, else the next.
      Handle::Aimed a;
      a.kind = kOpChainKinds[decisions.pick(static_cast<std::uint32_t>(kOpChainKinds.size()))];
      a.chain = static_cast<OpChain>(decisions.pick(kOpChains));
      if (a.kind == kind) {
        h.aimed.reset();
        return fire_chain(h, a);
      }
      h.aimed = a;
      storm.struck = 0;
      return std::nullopt;
    }
    ++struck[static_cast<std::size_t>(*k)];
    if (++storm.struck == kNemesisStorm) storm = Handle::Storm{.calm = kNemesisStorm};
    return Strike{static_cast<FaultKind>(*k), true};
  }
  storm.struck = 0;
  return std::nullopt;
}

World::Impl::Strike World::Impl::fire_chain(Handle& h, Handle::Aimed a) {
  ++struck[static_cast<std::size_t>(kOpChain)];
  if (++h.storm.struck == kNemesisStorm) h.storm = Handle::Storm{.calm = kNemesisStorm};
  const FaultKind first =
      a.chain == OpChain::RequestLostPause ? FaultKind::DropBeforeApply : FaultKind::DropAfterApply;
  return Strike{first, false, a.chain, a.kind};
}

std::string World::Impl::chain_label(const Strike& s) {
  const std::string_view chain = op_chain_name(static_cast<std::int32_t>(*s.chain));
  if (s.aimed_kind < 0) return fmt::format("op-chain {}, its second drop", chain);
  return fmt::format("op-chain {} on {}", chain, request_kind_name(s.aimed_kind));
}

void World::Impl::follow_chain(Handle& h, const Strike& s) {
  const std::string label = chain_label(s);
  switch (*s.chain) {
    case OpChain::ReplyLost:
      return;
    case OpChain::ReplyLostTwice:
      if (s.aimed_kind >= 0) h.drop_next = true;
      return;
    case OpChain::RequestLostPause:
      apply_fault(FaultKind::Pause, h, cfg.nemesis.pause_ms, label);
      return;
    case OpChain::ReplyLostExpiry:
      apply_fault(FaultKind::ExpireSession, h, 0, label);
      return;
    case OpChain::ReplyLostOutage: {
      // Past the session timeout: the server expires the session (unless
      // its expiry comes late) before the client can reach it again.
      const auto timeout = static_cast<std::uint32_t>(std::max(h.timeout_ms, 1));
      cut_off(h, now() + h.timeout_ms + 1 + decisions.pick(timeout), label);
      return;
    }
  }
}

void World::Impl::apply_fault(FaultKind kind, Handle& h, TimeMs duration_ms, std::string_view cause) {
  if (kind == FaultKind::DropBeforeApply || kind == FaultKind::DropAfterApply) {
    record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
           static_cast<int>(kind), 0, 0, {},
           cause.empty() ? std::string("connection broken") : fmt::format("{}: connection broken", cause));
    if (h.conn) server_close(h.conn);
    return;
  }
  // A pause's detail starts with its length: readers of the trace parse it.
  std::string detail = duration_ms ? fmt::format("{} ms", duration_ms) : std::string();
  if (!cause.empty()) detail = detail.empty() ? std::string(cause) : fmt::format("{}, {}", detail, cause);
  record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
         static_cast<int>(kind), 0, 0, {}, detail);
  switch (kind) {
    case FaultKind::ExpireSession:
      if (h.session != SessionId{}) expire_session(h.session);
      break;
    case FaultKind::Pause:
      pause(h, duration_ms);
      break;
    case FaultKind::Crash:
      crash(h.process);
      break;
    case FaultKind::Delay:
      if (Conn* c = net.find(h.conn)) c->extra_delay_next = duration_ms;
      break;
    default:
      break;
  }
}

void World::Impl::start_timed_nemesis() {
  if (timed_running || !cfg.nemesis.timed()) return;
  timed_running = true;
  loop.call_at(now() + std::max<TimeMs>(cfg.nemesis.first_window_ms, 0), [this] { timed_window(); });
}

TimeMs World::Impl::timed_window_ms() const {
  return cfg.nemesis.window_ms > 0 ? cfg.nemesis.window_ms : kTimedWindowMs;
}

void World::Impl::timed_window() {
  if (!cfg.nemesis.timed()) {
    timed_running = false;
    return;
  }
  const TimeMs window_ms = timed_window_ms();
  loop.call_at(now() + window_ms, [this] { timed_window(); });
  // One decision a window; 0 (and every low value) means no fault, as for
  // the request-triggered classes.
  const std::optional<TimedFault> fault = cfg.nemesis.strike_timed(decisions.pick(kNemesisChoices));
  if (!fault) return;
  loop.call_at(now() + decisions.pick(static_cast<std::uint32_t>(window_ms)), [this, f = *fault] {
    if (cfg.nemesis.per_mille[static_cast<int>(f)]) strike_timed(f);
  });
}

void World::Impl::strike_timed(TimedFault fault) {
  const auto n = static_cast<std::uint32_t>(handles.size());
  if (n == 0) return;
  switch (fault) {
    case TimedFault::AnyTime: {
      Handle& h = *handles[decisions.pick(n)];
      if (!h.alive()) return;
      ++struck[static_cast<std::size_t>(fault)];
      // The mildest first: decision 0 drops the connection.
      constexpr FaultKind kinds[] = {FaultKind::DropBeforeApply, FaultKind::ExpireSession, FaultKind::Pause,
                                     FaultKind::Crash};
      apply_fault(kinds[decisions.pick(4)], h, cfg.nemesis.pause_ms);
      return;
    }
    case TimedFault::BlipAll: {
      // Decision 0: every client; otherwise each client is in with a decision.
      const bool everyone = decisions.pick(2) == 0;
      const TimeMs until = now() + drawn_outage_ms();
      bool hit = false;
      for (auto& hp : handles) {
        if (!everyone && decisions.pick(2) == 0) continue;
        if (!hp->alive()) continue;
        cut_off(*hp, until, "blip");
        hit = true;
      }
      if (hit) ++struck[static_cast<std::size_t>(fault)];
      return;
    }
    case TimedFault::LagBurst:
    case TimedFault::ServerCrash:
    case TimedFault::LeaderCrash:
    case TimedFault::Partition:
    case TimedFault::SessionMoved:
      strike_ensemble(fault);
      return;
    case TimedFault::Burst: {
      Handle* h = handles[decisions.pick(n)].get();
      if (!h->alive()) return;
      ++struck[static_cast<std::size_t>(fault)];
      // Two or three drops, each a few ms after the last: the first breaks
      // the connection, a later one the reconnection or the retry after it.
      const int drops = 2 + static_cast<int>(decisions.pick(2));
      TimeMs at = now();
      for (int i = 0; i < drops; ++i) {
        loop.call_at(at, [this, h] {
          if (h->alive()) cut_off(*h, now(), "burst");
        });
        at += 1 + decisions.pick(20);
      }
      return;
    }
  }
}

TimeMs World::Impl::drawn_outage_ms() {
  return 1 + decisions.pick(static_cast<std::uint32_t>(std::max<TimeMs>(cfg.nemesis.pause_ms, 1)));
}

void World::Impl::cut_off(Handle& h, TimeMs until, std::string_view why) {
  h.cut_until = std::max(h.cut_until, until);
  record(TraceKind::Fault, h.views.front(), h.session, leader().last_zxid().value,
         static_cast<int>(FaultKind::DropBeforeApply), 0, 0, {},
         until > now() ? fmt::format("{}: connection broken, none for {} ms", why, until - now())
                     : fmt::format("{}: connection broken", why));
  if (h.conn) server_close(h.conn);
}

void World::Impl::crash(int process) {
  for (auto& hp : handles) {
    Handle& h = *hp;
    if (h.process != process || h.crashed) continue;
    client_close(h);
    h.crashed = true;
    set_state(h, SessionState::Closed);
    h.watches = {};
    h.held.clear();
  }
  // The process's coroutines vanish where they stand.
  std::vector<std::coroutine_handle<>> doomed;
  for (auto it = roots.begin(); it != roots.end();) {
    if (it->second.process == process) {
      doomed.push_back(it->second.h);
      it = roots.erase(it);
    } else {
      ++it;
    }
  }
  for (auto h : doomed) h.destroy();
}

}  // namespace zksim
