// The requests a session sends to the server and the responses it gets,
// one struct per ZooKeeper operation. Paths are raw strings, as on the wire:
// the server applies ZooKeeper's own validation to them.
#pragma once

#include "zksim/error.h"
#include "zksim/types.h"

#include <cstdint>
#include <string>
#include <string_view>
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

// The requests, one list: each type, in the order of the Request variant
// (a request's "kind" in traces, faults and scenario files), with
// ZooKeeper's opcode for it (ZooDefs.OpCode in 3.8: the plain form;
// create2, createContainer and createTTL are creates too, getChildren2 a
// getChildren, multiRead a multi, setWatches2 a setWatches) and its name.
#define ZKSIM_REQUESTS(X, SEP)                                                                        \
  X(CreateRequest, 1, "create") SEP() X(DeleteRequest, 2, "delete") SEP()                              \
  X(SetDataRequest, 5, "setData") SEP() X(CheckRequest, 13, "check") SEP()                             \
  X(ExistsRequest, 3, "exists") SEP() X(GetDataRequest, 4, "getData") SEP()                            \
  X(GetChildrenRequest, 8, "getChildren") SEP() X(GetEphemeralsRequest, 103, "getEphemerals") SEP()    \
  X(GetAllChildrenNumberRequest, 104, "getAllChildrenNumber") SEP() X(SyncRequest, 9, "sync") SEP()    \
  X(GetAclRequest, 6, "getACL") SEP() X(SetAclRequest, 7, "setACL") SEP()                              \
  X(AddWatchRequest, 106, "addWatch") SEP() X(RemoveWatchesRequest, 18, "removeWatches") SEP()         \
  X(SetWatchesRequest, 101, "setWatches") SEP() X(MultiRequest, 14, "multi")
#define ZKSIM_REQUEST_TYPE(T, OPCODE, NAME) T
#define ZKSIM_REQUEST_COMMA() ,
#define ZKSIM_REQUEST_NOTHING()

using Request = std::variant<ZKSIM_REQUESTS(ZKSIM_REQUEST_TYPE, ZKSIM_REQUEST_COMMA)>;

#define ZKSIM_REQUEST_ONE(T, OPCODE, NAME) +1
inline constexpr std::int32_t kRequestKinds = 0 ZKSIM_REQUESTS(ZKSIM_REQUEST_ONE, ZKSIM_REQUEST_NOTHING);
#undef ZKSIM_REQUEST_ONE

// The name of request kind `kind` ("getChildren"), "?" outside the list.
std::string_view request_kind_name(std::int32_t kind);
// ZooKeeper's opcode of request kind `kind` (its plain form), -1 outside the list.
std::int32_t request_opcode(std::int32_t kind);

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

// The path a request names, for traces, watches and RequestMatch: a
// multi's first op's ("" for an empty multi), getEphemerals' prefix, ""
// for setWatches; a view into the request.
std::string_view path_of(const Request& r);

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
