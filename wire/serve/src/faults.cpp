// The frontend's faults: what the control interface (control.h) injects.
// Each goes through the simulated server's own entry point where it has one
// (Server::expire, Server::force_cversion) and is recorded in the trace as
// the simulated world records its faults (FaultKind codes, the same
// details), so `zksim timeline` draws them alike.
#include "frontend_impl.h"

#include <fmt/format.h>

namespace zksim::wire {

std::optional<FaultKind> Frontend::Impl::take_drop(SessionId session, const Request& request) {
  auto it = drops.find(session);
  if (it == drops.end()) return std::nullopt;
  std::vector<ArmedDrop>& armed = it->second;
  for (auto d = armed.begin(); d != armed.end(); ++d) {
    if (d->match.kind >= 0 && d->match.kind != static_cast<std::int32_t>(request.index())) continue;
    if (!path_of(request).starts_with(d->match.path_prefix)) continue;
    const FaultKind kind = d->kind;
    armed.erase(d);
    if (armed.empty()) drops.erase(it);
    return kind;
  }
  return std::nullopt;
}

void Frontend::Impl::hold(std::vector<Delivery>& out) {
  if (pauses.empty()) return;
  std::erase_if(out, [&](Delivery& d) {
    if (!pauses.count(d.connection)) return false;
    connections.at(d.connection).held.push_back(std::move(d));
    return true;
  });
}

void Frontend::Impl::release(TimeMs t, std::vector<Delivery>& out) {
  for (auto it = pauses.begin(); it != pauses.end();) {
    if (it->second > t) {
      ++it;
      continue;
    }
    Connection& c = connections.at(it->first);
    for (Delivery& d : c.held) out.push_back(std::move(d));
    c.held.clear();
    it = pauses.erase(it);
  }
}

std::optional<ConnectionId> Frontend::find(const Target& target) const {
  if (target.session.value != 0) {
    auto it = impl_->connection_of.find(target.session);
    if (it != impl_->connection_of.end()) return it->second;
    return std::nullopt;
  }
  for (const auto& [id, c] : impl_->connections) {
    if (!c.closed && c.address() == target.address) return id;
  }
  return std::nullopt;
}

Result<std::vector<Delivery>> Frontend::expire(SessionId session, TimeMs now) {
  Impl& m = *impl_;
  m.now = now;
  if (!m.server.session_alive(session)) return Error::SessionExpired;
  std::vector<Delivery> out;
  m.release(now, out);
  m.record(TraceKind::Fault, session, m.server.last_zxid().value, static_cast<std::int32_t>(FaultKind::ExpireSession));
  const Outcome o = m.server.expire(session, now);
  m.record(TraceKind::Server, session, o.zxid.value, static_cast<std::int32_t>(ServerAction::SessionExpired));
  m.notify(o, out);
  m.close_dead(out);
  m.hold(out);
  return out;
}

Result<std::vector<Delivery>> Frontend::close(ConnectionId connection, TimeMs now) {
  Impl& m = *impl_;
  m.now = now;
  auto it = m.connections.find(connection);
  if (it == m.connections.end() || it->second.closed) return Error::BadArguments;
  std::vector<Delivery> out;
  m.release(now, out);
  // As the world records a connection broken outside any request.
  m.record(TraceKind::Fault, it->second.session, m.server.last_zxid().value,
           static_cast<std::int32_t>(FaultKind::DropBeforeApply), 0, 0, {}, "connection broken");
  m.close(connection, out);
  m.hold(out);
  return out;
}

Result<void> Frontend::drop_next(SessionId session, FaultKind kind, RequestMatch match, TimeMs now) {
  Impl& m = *impl_;
  m.now = now;
  if (kind != FaultKind::DropBeforeApply && kind != FaultKind::DropAfterApply) return Error::BadArguments;
  if (!m.server.session_alive(session)) return Error::SessionExpired;
  m.record(TraceKind::Annotation, session, m.server.last_zxid().value, 0, 0, 0, match.path_prefix,
           fmt::format("armed: {} on the next {}{}", fault_kind_name(static_cast<std::int32_t>(kind)),
                       match.kind < 0 ? std::string_view("request") : request_kind_name(match.kind),
                       match.path_prefix.empty() ? "" : " under " + match.path_prefix));
  m.drops[session].push_back(Impl::ArmedDrop{kind, std::move(match)});
  return {};
}

Result<void> Frontend::pause(ConnectionId connection, TimeMs duration_ms, TimeMs now) {
  Impl& m = *impl_;
  m.now = now;
  auto it = m.connections.find(connection);
  if (it == m.connections.end() || it->second.closed || duration_ms < 0) return Error::BadArguments;
  m.record(TraceKind::Fault, it->second.session, m.server.last_zxid().value,
           static_cast<std::int32_t>(FaultKind::Pause), 0, 0, {}, fmt::format("{} ms", duration_ms));
  TimeMs& until = m.pauses[connection];
  until = std::max(until, now + duration_ms);
  return {};
}

Result<void> Frontend::set_sequence(const std::string& path, std::int32_t counter, TimeMs now) {
  Impl& m = *impl_;
  m.now = now;
  const Error e = m.server.force_cversion(path, counter);
  if (e != Error::Ok) return e;
  m.record(TraceKind::Annotation, SessionId{}, m.server.last_zxid().value, 0, 0, 0, path,
           fmt::format("sequence counter of {} set to {}", path, counter));
  return {};
}

std::vector<TraceEvent> Frontend::trace() const { return {impl_->trace.begin(), impl_->trace.end()}; }

std::size_t Frontend::trace_dropped() const { return impl_->trace_dropped; }

}  // namespace zksim::wire
