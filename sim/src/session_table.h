// Server-side sessions: negotiated timeouts, expiry deadlines in tick-sized
// buckets (ZooKeeper's ExpiryQueue), auth ids and owned ephemerals.
#pragma once

#include "data_tree.h"
#include "zksim/types.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace zksim::detail {

struct SessionInfo {
  int timeout_ms = 0;
  TimeMs deadline = 0;
  std::vector<Id> auth;                      // "ip:<client address>" first
  // Its ephemeral nodes, by tree id (unordered: whoever needs an order
  // sorts their paths).
  std::unordered_set<NodeId> ephemerals;
};

class SessionTable {
 public:
  explicit SessionTable(int tick_ms) : tick_ms_(tick_ms) {}

  void add(SessionId id, int timeout_ms, TimeMs now, std::string client_ip);
  // Pushes the deadline to the bucket after now + timeout, if later (a
  // touch never shortens it, as SessionTrackerImpl.touchSession); false if
  // unknown.
  bool touch(SessionId id, TimeMs now);
  // The same for a session already looked up. REQUIRES: info belongs to id.
  void touch(SessionId id, SessionInfo& info, TimeMs now);
  void remove(SessionId id);

  SessionInfo* find(SessionId id);
  const SessionInfo* find(SessionId id) const;
  std::optional<TimeMs> next_deadline() const;
  // Sessions whose deadline is <= now, by deadline then id.
  std::vector<SessionId> due(TimeMs now) const;
  // Live sessions, ascending.
  std::vector<SessionId> ids() const;

 private:
  TimeMs bucket_after(TimeMs t) const { return (t / tick_ms_ + 1) * tick_ms_; }
  int tick_ms_;
  struct IdHash {
    std::size_t operator()(SessionId id) const noexcept {
      return std::hash<std::int64_t>{}(id.value);
    }
  };
  // Looked up on every request; nothing iterates it in an order that matters
  // (ids() sorts).
  std::unordered_map<SessionId, SessionInfo, IdHash> sessions_;
  std::set<std::pair<TimeMs, SessionId>> deadlines_;
};

}  // namespace zksim::detail
