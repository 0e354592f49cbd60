// Private state of zksim::Server, shared by server.cpp (sessions, reads,
// dispatch) and server_write.cpp (transactions).
#pragma once

#include "acl.h"
#include "data_tree.h"
#include "session_table.h"
#include "watch_table.h"
#include "zksim/server.h"

#include <set>
#include <string>
#include <vector>

namespace zksim {

struct Server::Impl {
  explicit Impl(ServerConfig c);

  // The open ACL's index in `acls`: the constructor interns it first.
  static constexpr std::uint32_t kOpenAcl = 0;

  ServerConfig cfg;
  detail::DataTree tree;
  detail::AclTable acls;
  detail::WatchManager data_watches;
  detail::WatchManager child_watches;
  detail::SessionTable sessions;
  std::set<std::string, std::less<>> containers;
  std::set<std::string, std::less<>> ttls;
  std::int64_t last_zxid = 0;
  std::int64_t next_session = 0;

  // A change whose watches fire when its transaction commits.
  struct Trigger {
    enum Kind { Created, Deleted, DataChanged } kind;
    std::string path;
  };
  // How to take back one change of a multi that fails later. Paths, not
  // node ids: ids are reused once freed.
  struct Undo {
    enum Kind { Created, Deleted, Changed } kind;
    std::string path;
    detail::Persisted parent_before;  // Created, Deleted
    detail::Node node_before;         // Deleted (whole node), Changed (st, data, acl)
  };
  struct Txn {
    std::int64_t zxid;
    TimeMs now;
    SessionId session;
    const std::vector<Id>* auth;
    bool record_undo = false;
    std::vector<Trigger> triggers;
    std::vector<Undo> undo;
  };
  // Scratch storage reused by every write: a transaction's triggers, and
  // fire()'s session lists.
  std::vector<Trigger> spare_triggers;
  std::vector<SessionId> fire_notify, fire_processed;

  // Reads and watch registration (server_read.cpp); no zxid.
  void read(SessionId session, const detail::SessionInfo& info, const Request& r,
            ChildOrder* order, Outcome& out);
  void set_watches(SessionId session, const SetWatchesRequest& r, Outcome& out);
  detail::NodeId readable(const std::string& path, int perm, const std::vector<Id>& auth,
                          Outcome& out) const;

  // Transactions (server_write.cpp). Each returns the op's error; on error
  // nothing has changed.
  Error create(Txn& t, const CreateRequest& r, CreateResponse* out);
  Error remove(Txn& t, const DeleteRequest& r);
  Error remove_extended(Txn& t, const std::string& path);  // deleteContainer
  Error set_data(Txn& t, const SetDataRequest& r, Stat* out);
  Error set_acl(Txn& t, const SetAclRequest& r, Stat* out);
  Error check(Txn& t, const CheckRequest& r);
  Outcome multi(Txn& t, const MultiRequest& r);
  void rollback(Txn& t);
  // Fires the watches of a committed transaction's changes.
  void fire(const std::vector<Trigger>& triggers, std::vector<Notification>& out);
  // Deletes a node known to exist and be childless (no checks).
  void delete_node(Txn& t, detail::NodeId id);
  Outcome kill_session(SessionId session, TimeMs now);

  // Lists node `id` at `path`, whose ephemeralOwner is `owner`, where its
  // owner says: containers, ttls (by path), its session's ephemerals (by
  // id), or nowhere; unindex_owner takes it off again.
  void index_owner(detail::NodeId id, const std::string& path, std::int64_t owner);
  void unindex_owner(detail::NodeId id, const std::string& path, std::int64_t owner);
  // The paths of a session's ephemerals, sorted.
  std::vector<std::string> ephemeral_paths(const detail::SessionInfo& info) const;
  std::int64_t next_zxid() { return ++last_zxid; }
};

// The request's size on the wire (jute encoding plus the request header),
// compared with jute.maxbuffer.
std::int64_t wire_size(const Request& request);

}  // namespace zksim
