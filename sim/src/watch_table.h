// One of ZooKeeper's two watch managers (data watches or child watches),
// with 3.8's rules: per (session, path) one mode, the last one set wins;
// a trigger reaches each session at most once; standard watches are
// one-shot; recursive watches also fire for descendants but never with
// NodeChildrenChanged.
#pragma once

#include "data_tree.h"
#include "node_reuse.h"
#include "zksim/types.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace zksim::detail {

enum class WatchMode : std::uint8_t { Standard, Persistent, PersistentRecursive };

class WatchManager {
 public:
  void add(std::string_view path, SessionId session, WatchMode mode);
  // Appends to `notify` the sessions to notify of `type` at `path`,
  // ascending, minus `suppress` (sorted). Fired one-shot watches are
  // removed. `processed`, if given, is set to every watcher found,
  // suppressed ones included, ascending (ZooKeeper's "processed" set).
  void trigger(std::string_view path, EventType type, const std::vector<SessionId>& suppress,
               std::vector<SessionId>& notify, std::vector<SessionId>* processed = nullptr);
  // removeWatcher: true if the session had a watch on exactly `path`.
  bool remove(std::string_view path, SessionId session);
  void remove_session(SessionId session);

  std::size_t size() const { return count_; }
  // (path, mode) of every watch the session holds, by path.
  std::vector<std::pair<std::string, WatchMode>> of_session(SessionId session) const;

 private:
  struct Entry {
    SessionId session;
    WatchMode mode;
    std::uint32_t at;  // index of the path in the session's list
  };
  using Table = std::unordered_map<std::string, std::vector<Entry>, StringHash, std::equal_to<>>;
  struct SessionHash {
    std::size_t operator()(SessionId s) const noexcept { return std::hash<std::int64_t>{}(s.value); }
  };
  // Drops the session's entry at `path` (REQUIRES: `it` is `path`'s node
  // and `e` one of its entries) and, if none is left, the path itself.
  void drop(Table::iterator it, std::vector<Entry>::iterator e);

  Table table_;
  NodeReuse<Table> reuse_;
  // Each session's watched paths, unordered: the keys of table_ (node-based,
  // so they stay put). A session's list lives until remove_session, so a
  // session that watches and fires again and again reuses its storage.
  std::unordered_map<SessionId, std::vector<const std::string*>, SessionHash> by_session_;
  std::size_t count_ = 0;
  std::size_t recursive_ = 0;
  std::vector<SessionId> found_;  // trigger's scratch, kept for its storage
};

}  // namespace zksim::detail
