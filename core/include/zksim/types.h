// Vocabulary of the simulated ZooKeeper: ids, versions, Stat, create modes,
// ACLs, and the watch event vocabulary. Numbers are ZooKeeper's own.
#pragma once

#include <fmt/format.h>

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace zksim {

// A distinct integer type: Tag keeps SessionId, Zxid and Version apart.
template <class Tag, class Rep>
struct Strong {
  Rep value{};
  constexpr Strong() = default;
  constexpr explicit Strong(Rep v) : value(v) {}
  friend constexpr auto operator<=>(const Strong&, const Strong&) = default;
};

using SessionId = Strong<struct SessionIdTag, std::int64_t>;  // 0 = no session
using Zxid = Strong<struct ZxidTag, std::int64_t>;
using Version = Strong<struct VersionTag, std::int32_t>;      // -1 = any version

inline constexpr Version kAnyVersion{-1};

// Simulated time in milliseconds since the start of the world.
using TimeMs = std::int64_t;

// Every field of ZooKeeper's Stat (zookeeper.jute), in its order.
struct Stat {
  std::int64_t czxid = 0;           // zxid of the create
  std::int64_t mzxid = 0;           // zxid of the last setData (or the create)
  std::int64_t ctime = 0;           // ms
  std::int64_t mtime = 0;           // ms
  std::int32_t version = 0;         // setData count
  std::int32_t cversion = 0;        // child creates + deletes (2 * creates - numChildren)
  std::int32_t aversion = 0;        // setACL count
  std::int64_t ephemeralOwner = 0;  // session id of an ephemeral; 0 otherwise (containers, TTL too)
  std::int32_t dataLength = 0;
  std::int32_t numChildren = 0;
  std::int64_t pzxid = 0;           // zxid of the last child create/delete
  friend bool operator==(const Stat&, const Stat&) = default;
};

// ZooKeeper's create flags (CreateMode.toFlag / ZOO_* in zookeeper.h).
enum class CreateMode : int {
  Persistent = 0,
  Ephemeral = 1,
  PersistentSequential = 2,
  EphemeralSequential = 3,
  Container = 4,
  PersistentWithTtl = 5,
  PersistentSequentialWithTtl = 6,
};

constexpr bool is_sequential(CreateMode m) {
  return m == CreateMode::PersistentSequential || m == CreateMode::EphemeralSequential ||
         m == CreateMode::PersistentSequentialWithTtl;
}
constexpr bool is_ephemeral(CreateMode m) {
  return m == CreateMode::Ephemeral || m == CreateMode::EphemeralSequential;
}
constexpr bool is_ttl(CreateMode m) {
  return m == CreateMode::PersistentWithTtl || m == CreateMode::PersistentSequentialWithTtl;
}

// ephemeralOwner markers of extended types (EphemeralType in ZooKeeper).
inline constexpr std::int64_t kContainerOwner = INT64_MIN;  // 0x8000000000000000
inline constexpr std::int64_t kTtlOwnerMask = static_cast<std::int64_t>(0xFF00000000000000ULL);
inline constexpr std::int64_t kMaxTtlMs = 0x000000FFFFFFFFFFLL;

// ACL permissions (ZooDefs.Perms).
namespace perms {
inline constexpr int kRead = 1;
inline constexpr int kWrite = 2;
inline constexpr int kCreate = 4;
inline constexpr int kDelete = 8;
inline constexpr int kAdmin = 16;
inline constexpr int kAll = 31;
}  // namespace perms

struct Id {
  std::string scheme;  // "world", "auth", "digest", "ip"
  std::string id;      // "anyone", "user:base64(sha1(user:password))", "10.0.0.0/8", ...
  friend auto operator<=>(const Id&, const Id&) = default;
};

struct Acl {
  int perms = perms::kAll;
  Id id;
  friend auto operator<=>(const Acl&, const Acl&) = default;
};

using AclList = std::vector<Acl>;

// world:anyone with every permission (ZooDefs.Ids.OPEN_ACL_UNSAFE).
AclList open_acl();
// world:anyone read only (ZooDefs.Ids.READ_ACL_UNSAFE).
AclList read_acl();
// auth ids of the creator with every permission (ZooDefs.Ids.CREATOR_ALL_ACL).
AclList creator_all_acl();

// Watch event types and session states, numbered as the C client numbers them.
enum class EventType : int {
  None = -1,  // ZOO_SESSION_EVENT: a state change, no path
  NodeCreated = 1,
  NodeDeleted = 2,
  NodeDataChanged = 3,
  NodeChildrenChanged = 4,
};

enum class KeeperState : int {
  Disconnected = 0,
  SyncConnected = 3,
  Expired = -112,
  AuthFailed = -113,
};

// A WatchedEvent as it crosses the wire.
struct WatchedEvent {
  EventType type = EventType::None;
  KeeperState state = KeeperState::SyncConnected;
  std::string path;
  friend bool operator==(const WatchedEvent&, const WatchedEvent&) = default;
};

// addWatch modes (AddWatchMode).
enum class AddWatchMode : int { Persistent = 0, PersistentRecursive = 1 };

// removeWatches kinds (WatcherType).
enum class WatcherType : int { Children = 1, Data = 2, Any = 3 };

std::string_view event_type_name(EventType t);
std::string_view keeper_state_name(KeeperState s);

}  // namespace zksim

template <class Tag, class Rep>
struct fmt::formatter<zksim::Strong<Tag, Rep>> : fmt::formatter<Rep> {
  auto format(zksim::Strong<Tag, Rep> s, format_context& ctx) const {
    return fmt::formatter<Rep>::format(s.value, ctx);
  }
};
