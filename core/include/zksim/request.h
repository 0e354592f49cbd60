// The requests a session sends to the server and the responses it gets,
// one struct per ZooKeeper operation. Paths are raw strings, as on the wire:
// the server applies ZooKeeper's own validation to them.
#pragma once

#include "zksim/error.h"
#include "zksim/types.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace zksim {

struct CreateRequest {
  std::string path;
  std::string data;
  AclList acl = open_acl();
  CreateMode mode = CreateMode::Persistent;
  std::int64_t ttl_ms = -1;  // > 0 for the TTL modes, -1 otherwise
};
struct DeleteRequest {
  std::string path;
  Version version = kAnyVersion;
};
struct SetDataRequest {
  std::string path;
  std::string data;
  Version version = kAnyVersion;
};
// Multi only: fails with BadVersion unless the node's version matches.
struct CheckRequest {
  std::string path;
  Version version = kAnyVersion;
};
struct ExistsRequest {
  std::string path;
  bool watch = false;
};
struct GetDataRequest {
  std::string path;
  bool watch = false;
};
struct GetChildrenRequest {
  std::string path;
  bool watch = false;
};
struct GetEphemeralsRequest {
  std::string prefix = "/";
};
struct GetAllChildrenNumberRequest {
  std::string path;
};
struct SyncRequest {
  std::string path;
};
struct GetAclRequest {
  std::string path;
};
struct SetAclRequest {
  std::string path;
  AclList acl;
  Version version = kAnyVersion;  // compared with aversion
};
struct AddWatchRequest {
  std::string path;
  AddWatchMode mode = AddWatchMode::Persistent;
};
struct RemoveWatchesRequest {
  std::string path;
  WatcherType type = WatcherType::Any;
};
// Sent by a client on reconnect: re-registers its watches, and fires the
// ones whose change it missed since `relative_zxid`.
struct SetWatchesRequest {
  std::int64_t relative_zxid = 0;
  std::vector<std::string> data, exist, child, persistent, persistent_recursive;
};

using MultiOp = std::variant<CreateRequest, DeleteRequest, SetDataRequest, CheckRequest>;
struct MultiRequest {
  std::vector<MultiOp> ops;
};

using Request =
    std::variant<CreateRequest, DeleteRequest, SetDataRequest, CheckRequest, ExistsRequest,
                 GetDataRequest, GetChildrenRequest, GetEphemeralsRequest,
                 GetAllChildrenNumberRequest, SyncRequest, GetAclRequest, SetAclRequest,
                 AddWatchRequest, RemoveWatchesRequest, SetWatchesRequest, MultiRequest>;

namespace detail {
template <class T, class V>
struct IndexIn;
template <class T, class... Ts>
struct IndexIn<T, std::variant<Ts...>> {
  static constexpr std::int32_t value = [] {
    constexpr bool same[] = {std::is_same_v<T, Ts>...};
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(sizeof...(Ts)); ++i) {
      if (same[i]) return i;
    }
    return -1;
  }();
};
}  // namespace detail

// The index of a request type in Request: the "kind" traces and faults use.
template <class T>
inline constexpr std::int32_t request_kind = detail::IndexIn<T, Request>::value;

struct CreateResponse {
  std::string path;  // with the sequential suffix, if any
  Stat stat;
};
struct StatResponse {  // exists, setData, setACL
  Stat stat;
};
struct DataResponse {
  std::string data;
  Stat stat;
};
struct ChildrenResponse {
  std::vector<std::string> children;  // in the order the caller's ChildOrder chose
  Stat stat;
};
struct PathsResponse {  // getEphemerals
  std::vector<std::string> paths;
};
struct CountResponse {  // getAllChildrenNumber
  std::int32_t count = 0;
};
struct SyncResponse {
  std::string path;
};
struct AclResponse {
  AclList acl;
  Stat stat;
};
// One op of a multi: before the failing op Ok, the failing op its error,
// after it RuntimeInconsistency (ZooKeeper's per-op report).
struct OpResult {
  Error error = Error::Ok;
  std::variant<std::monostate, CreateResponse, StatResponse> value;
};
struct MultiResponse {
  std::vector<OpResult> results;
};

using Response = std::variant<std::monostate, CreateResponse, StatResponse, DataResponse,
                              ChildrenResponse, PathsResponse, CountResponse, SyncResponse,
                              AclResponse, MultiResponse>;

}  // namespace zksim
