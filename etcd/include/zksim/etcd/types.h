// Vocabulary of the modelled etcd v3 (3.4) API: its errors (gRPC status code
// and message, exactly as the server sends them), key-values, events, and
// the requests and responses of KV, Txn, Lease, Watch and Compaction with
// the fields of api/etcdserverpb/rpc.proto the model honours. Field names
// are rpc.proto's.
#pragma once

#include "zksim/result.h"

#include <fmt/format.h>

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace zksim::etcd {

// etcd's errors (etcdserver/api/v3rpc/rpctypes/error.go): name, gRPC code,
// message. The one definition: the enum and both lookups come from it.
#define ZKSIM_ETCD_ERRORS(X)                                                                  \
  X(Ok, 0, "")                                                                                \
  X(EmptyKey, 3, "etcdserver: key is not provided")                                           \
  X(KeyNotFound, 3, "etcdserver: key not found")                                              \
  X(ValueProvided, 3, "etcdserver: value is provided")                                        \
  X(LeaseProvided, 3, "etcdserver: lease is provided")                                        \
  X(TooManyOps, 3, "etcdserver: too many operations in txn request")                          \
  X(DuplicateKey, 3, "etcdserver: duplicate key given in txn request")                        \
  X(Compacted, 11, "etcdserver: mvcc: required revision has been compacted")                  \
  X(FutureRev, 11, "etcdserver: mvcc: required revision is a future revision")                \
  X(LeaseNotFound, 5, "etcdserver: requested lease not found")                                \
  X(LeaseExist, 9, "etcdserver: lease already exists")                                        \
  X(LeaseTtlTooLarge, 11, "etcdserver: too large lease TTL")

enum class Error : int {
#define ZKSIM_ETCD_ERROR_ENUM(name, code, message) name,
  ZKSIM_ETCD_ERRORS(ZKSIM_ETCD_ERROR_ENUM)
#undef ZKSIM_ETCD_ERROR_ENUM
};

// The gRPC status code etcd answers with (3 InvalidArgument, 5 NotFound,
// 9 FailedPrecondition, 11 OutOfRange; 0 for Ok).
int grpc_code(Error e) noexcept;
// The status message ("etcdserver: requested lease not found"; empty for Ok).
std::string_view error_message(Error e) noexcept;

// A response, or the error that took its place (core's Result over etcd's
// errors).
template <class T>
using Result = zksim::Result<T, Error>;

using LeaseId = std::int64_t;  // 0 = no lease
inline constexpr LeaseId kNoLease = 0;

// mvccpb.KeyValue. A deleted key's event carries only key and mod_revision.
struct KeyValue {
  std::string key;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;  // puts since the key was (re)created, from 1
  std::string value;
  LeaseId lease = kNoLease;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// The cluster-wide part of ResponseHeader the model knows: the store's
// revision as of the response. (cluster_id, member_id and raft_term belong
// to a real cluster's identity, not to its state.)
struct Header {
  std::int64_t revision = 0;
  friend bool operator==(const Header&, const Header&) = default;
};

// Key ranges, as everywhere in etcd's API: range_end empty means the one
// key `key`; "\0" means every key >= key; otherwise [key, range_end). The
// prefix of `p` is [p, prefix_end(p)).
std::string prefix_end(std::string_view prefix);

struct RangeRequest {
  enum class SortOrder { None = 0, Ascend = 1, Descend = 2 };
  enum class SortTarget { Key = 0, Version = 1, Create = 2, Mod = 3, Value = 4 };
  std::string key;
  std::string range_end;
  std::int64_t limit = 0;     // 0 = no limit
  std::int64_t revision = 0;  // 0 = current; else read the store as of that revision
  SortOrder sort_order = SortOrder::None;
  SortTarget sort_target = SortTarget::Key;
  bool keys_only = false;
  bool count_only = false;
  std::int64_t min_mod_revision = 0;  // 0 = no filter, for each of the four
  std::int64_t max_mod_revision = 0;
  std::int64_t min_create_revision = 0;
  std::int64_t max_create_revision = 0;
};
struct RangeResponse {
  Header header;
  std::vector<KeyValue> kvs;
  bool more = false;        // the limit cut kvs short
  std::int64_t count = 0;   // keys in the range, before the revision filters and the limit
  friend bool operator==(const RangeResponse&, const RangeResponse&) = default;
};

struct PutRequest {
  std::string key;
  std::string value;
  LeaseId lease = kNoLease;
  bool prev_kv = false;
  bool ignore_value = false;  // keep the key's value (the key must exist)
  bool ignore_lease = false;  // keep the key's lease (the key must exist)
};
struct PutResponse {
  Header header;
  std::optional<KeyValue> prev_kv;
  friend bool operator==(const PutResponse&, const PutResponse&) = default;
};

struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};
struct DeleteRangeResponse {
  Header header;
  std::int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
  friend bool operator==(const DeleteRangeResponse&, const DeleteRangeResponse&) = default;
};

// Compare: `target` of every key in the range (one key when range_end is
// empty) against `number` (version, create, mod, lease) or `value`.
struct Compare {
  enum class Result { Equal = 0, Greater = 1, Less = 2, NotEqual = 3 };
  enum class Target { Version = 0, Create = 1, Mod = 2, Value = 3, Lease = 4 };
  Result result = Result::Equal;
  Target target = Target::Version;
  std::string key;
  std::string range_end;
  std::int64_t number = 0;
  std::string value;
};

using RequestOp = std::variant<RangeRequest, PutRequest, DeleteRangeRequest>;
using ResponseOp = std::variant<RangeResponse, PutResponse, DeleteRangeResponse>;

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<RequestOp> success;
  std::vector<RequestOp> failure;
};
struct TxnResponse {
  Header header;
  bool succeeded = false;
  std::vector<ResponseOp> responses;
  friend bool operator==(const TxnResponse&, const TxnResponse&) = default;
};

struct CompactionRequest {
  std::int64_t revision = 0;
};
struct CompactionResponse {
  Header header;
  friend bool operator==(const CompactionResponse&, const CompactionResponse&) = default;
};

struct LeaseGrantRequest {
  std::int64_t ttl = 0;  // seconds
  LeaseId id = kNoLease;  // 0 = the model picks one (see EtcdState::lease_grant)
};
struct LeaseGrantResponse {
  Header header;
  LeaseId id = kNoLease;
  std::int64_t ttl = 0;  // the TTL granted, in seconds
  friend bool operator==(const LeaseGrantResponse&, const LeaseGrantResponse&) = default;
};
struct LeaseRevokeResponse {
  Header header;
  friend bool operator==(const LeaseRevokeResponse&, const LeaseRevokeResponse&) = default;
};
struct LeaseKeepAliveResponse {
  Header header;
  LeaseId id = kNoLease;
  std::int64_t ttl = 0;  // 0 when the lease does not exist
  friend bool operator==(const LeaseKeepAliveResponse&, const LeaseKeepAliveResponse&) = default;
};
struct LeaseTimeToLiveResponse {
  Header header;
  LeaseId id = kNoLease;
  std::int64_t ttl = 0;          // whole seconds left (truncated); -1 when the lease does not exist
  std::int64_t granted_ttl = 0;
  std::vector<std::string> keys;  // attached keys, sorted, when asked for
  friend bool operator==(const LeaseTimeToLiveResponse&, const LeaseTimeToLiveResponse&) = default;
};

// mvccpb.Event.
struct Event {
  enum class Type { Put = 0, Delete = 1 };
  Type type = Type::Put;
  KeyValue kv;
  std::optional<KeyValue> prev_kv;
  friend bool operator==(const Event&, const Event&) = default;
};

struct WatchRequest {
  std::string key;  // empty means "\0", the smallest key
  std::string range_end;
  std::int64_t start_revision = 0;  // 0 = from the next revision on
  bool prev_kv = false;
  bool no_put = false;  // the NOPUT and NODELETE filters
  bool no_delete = false;
};
// What a watch created now delivers: the events from start_revision up to
// the current revision, in revision order; or, when start_revision is below
// the compacted revision, nothing but canceled and compact_revision.
struct WatchResponse {
  Header header;
  bool canceled = false;
  std::int64_t compact_revision = 0;
  std::vector<Event> events;
  friend bool operator==(const WatchResponse&, const WatchResponse&) = default;
};

}  // namespace zksim::etcd

template <>
struct fmt::formatter<zksim::etcd::Error> : fmt::formatter<std::string_view> {
  auto format(zksim::etcd::Error e, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(
        e == zksim::etcd::Error::Ok ? std::string_view("OK") : zksim::etcd::error_message(e), ctx);
  }
};
