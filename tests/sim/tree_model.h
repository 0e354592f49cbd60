// An independent, deliberately simple model of ZooKeeper 3.8's data tree,
// sessions and standard (one-shot) watches, for differential testing of
// zksim::Server. It shares only the public vocabulary (zksim/*.h) with the
// server and none of its code: nodes live in one map keyed by full path,
// children are found by scanning keys, and a multi runs on a copy of the
// tree that replaces the original only when every op succeeds.
//
// Scope: create (all modes), delete, setData, check, setACL, exists,
// getData, getChildren, sync and multi; sessions opened and closed (never
// expired); ACLs made only of world:anyone entries (any other scheme is
// InvalidAcl, as no session here authenticates); no persistent watches.
#pragma once

#include "zksim/request.h"
#include "zksim/server.h"
#include "zksim/types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace zksim::model {

struct ModelNode {
  std::string data;
  Stat stat;  // dataLength and numChildren are derived when read
  AclList acl;
};

class TreeModel {
 public:
  // The tree of a fresh server ("/", "/zookeeper", its "quota" and "config"),
  // no sessions, zxid 0. `tick_ms` is the server's tick (timeout bounds).
  explicit TreeModel(int tick_ms = 2000);

  // createSession: one zxid; ids are (server id 1) << 56, then +1 each; the
  // timeout is clamped to [2, 20] ticks.
  SessionGrant open_session(int requested_timeout_ms, TimeMs now);
  // closeSession: SessionExpired if not alive; else drops the session's
  // watches, then deletes its ephemerals (by path) in one transaction.
  Outcome close_session(SessionId session, TimeMs now);
  // One request. SessionExpired (no zxid) for a session that is not alive.
  // Throws std::logic_error for a request kind outside the model's scope.
  Outcome apply(SessionId session, const Request& request, TimeMs now);

  // --- observers, shaped like Server's ground-truth accessors ---
  std::int64_t last_zxid() const { return last_zxid_; }
  std::vector<std::string> paths() const;  // sorted
  std::optional<NodeView> node(const std::string& path) const;
  std::vector<std::string> children(const std::string& path) const;  // byte order
  std::vector<SessionId> sessions() const;                           // ascending
  std::vector<std::string> ephemerals(SessionId session) const;      // sorted
  // "data <path>" and "child <path>" lines, sorted.
  std::vector<std::string> watches_of(SessionId session) const;

  using Nodes = std::map<std::string, ModelNode>;
  // A change whose watches fire once its transaction commits.
  struct Trigger {
    EventType type;  // NodeCreated, NodeDeleted or NodeDataChanged
    std::string path;
  };
  struct Txn {
    std::int64_t zxid;
    TimeMs now;
    SessionId session;
    std::vector<Trigger> triggers;
  };

 private:
  using Watches = std::set<std::pair<std::string, SessionId>>;  // (path, session)

  Outcome read(SessionId session, const Request& request);
  Outcome write(SessionId session, const Request& request, TimeMs now);
  Outcome multi(SessionId session, const MultiRequest& request, TimeMs now);
  // The sessions watching `path` in `w`, ascending (one trigger); their watches are removed.
  std::vector<SessionId> take(Watches& w, const std::string& path);
  std::vector<Notification> fire(const std::vector<Trigger>& triggers);

  int tick_ms_;
  Nodes nodes_;
  Watches data_watches_;
  Watches child_watches_;
  std::set<SessionId> live_;
  std::int64_t last_zxid_ = 0;
  std::int64_t next_session_ = std::int64_t{1} << 56;
};

}  // namespace zksim::model
