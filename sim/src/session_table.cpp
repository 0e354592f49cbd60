#include "session_table.h"

#include <algorithm>

namespace zksim::detail {

void SessionTable::add(SessionId id, int timeout_ms, TimeMs now, std::string client_ip) {
  SessionInfo info;
  info.timeout_ms = timeout_ms;
  info.deadline = bucket_after(now + timeout_ms);
  info.auth.push_back(Id{"ip", std::move(client_ip)});
  deadlines_.emplace(info.deadline, id);
  sessions_[id] = std::move(info);
}

bool SessionTable::touch(SessionId id, TimeMs now) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  touch(id, it->second, now);
  return true;
}

void SessionTable::touch(SessionId id, SessionInfo& info, TimeMs now) {
  // Only ever later: a touch the world dates back (the last ping it
  // infers) never shortens what a later one gave.
  TimeMs deadline = bucket_after(now + info.timeout_ms);
  if (deadline > info.deadline) {
    deadlines_.erase({info.deadline, id});
    info.deadline = deadline;
    deadlines_.emplace(deadline, id);
  }
}

void SessionTable::remove(SessionId id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  deadlines_.erase({it->second.deadline, id});
  sessions_.erase(it);
}

SessionInfo* SessionTable::find(SessionId id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

const SessionInfo* SessionTable::find(SessionId id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

std::optional<TimeMs> SessionTable::next_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

std::vector<SessionId> SessionTable::due(TimeMs now) const {
  std::vector<SessionId> out;
  for (const auto& [deadline, id] : deadlines_) {
    if (deadline > now) break;
    out.push_back(id);
  }
  return out;
}

std::vector<SessionId> SessionTable::ids() const {
  std::vector<SessionId> out;
  out.reserve(sessions_.size());
  for (const auto& [id, info] : sessions_) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace zksim::detail
