// EtcdState: one etcd 3.4 cluster's state as a pure state machine — the
// revisioned KV with its history, Txn, leases and the history watches read.
// A cluster is linearizable, so one state stands for all its members.
//
// Deterministic: it reads no clock (time is what advance_to() said last),
// draws nothing at random, and every ordered output comes from ordered
// containers. Semantics are etcd 3.4's (etcdserver/apply.go, mvcc/,
// lease/lessor.go, etcdserver/api/v3rpc/{key,lease,watch}.go), measured
// against Debian's etcd-server 3.4.23: see docs/etcd.md.
#pragma once

#include "zksim/etcd/types.h"
#include "zksim/types.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace zksim::etcd {

namespace detail {
struct Store;  // the state's contents, private to src/state.cpp
}  // namespace detail

struct Options {
  // etcd's minimum lease TTL, ceil(1.5 * election timeout): 2 s with the
  // default --election-timeout=1000. A shorter TTL is raised to it.
  std::int64_t min_lease_ttl_s = 2;
  // --max-txn-ops (128 by default).
  std::int64_t max_txn_ops = 128;
  // etcd's lessor looks for expired leases every 500 ms (lessor.go, runLoop
  // and revokeExpiredLeases): a lease is revoked at the first look at or
  // after its deadline, up to half a second late, and until then it and its
  // keys are still there. The looks fall at multiples of this period from
  // time 0 (a real server's from its start). 0: revoked at the deadline.
  TimeMs revoke_period_ms = 500;
};

class EtcdState {
 public:
  // A fresh cluster: revision 1, no keys, no leases, time 0.
  explicit EtcdState(Options options = {});
  ~EtcdState();
  EtcdState(const EtcdState& other);
  EtcdState& operator=(const EtcdState& other);
  EtcdState(EtcdState&&) noexcept;
  EtcdState& operator=(EtcdState&&) noexcept;

  // Moves the state's clock to `now_ms` (never back: an earlier time is
  // ignored) and revokes every lease whose deadline had come by the
  // lessor's last look (Options::revoke_period_ms), in order of deadline
  // then id, each as etcd revokes one: its keys deleted in one revision
  // (none if it has no keys). Returns the leases revoked.
  // The host calls it before each request, and at next_expiry_ms().
  std::vector<LeaseId> advance_to(TimeMs now_ms);
  // When the next lease will be revoked (the lessor's first look at or
  // after the earliest deadline), if any lease exists.
  std::optional<TimeMs> next_expiry_ms() const;
  TimeMs now_ms() const;
  // The store's revision: 1 when fresh, +1 for each write that changed a key.
  std::int64_t revision() const;
  // The revision of the last compaction (0: never compacted).
  std::int64_t compact_revision() const;

  Result<RangeResponse> range(const RangeRequest& request) const;
  // Every put is a new revision; a delete that deletes nothing is not.
  Result<PutResponse> put(const PutRequest& request);
  Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& request);
  // All of the chosen branch in one revision (or none if it changed no key).
  Result<TxnResponse> txn(const TxnRequest& request);
  // Forgets history before `revision`: reads and watches from before it
  // fail (Compacted). Does not change the revision.
  Result<CompactionResponse> compact(const CompactionRequest& request);

  // Lease ids: the request's, or when it is 0 the lowest unused id counted
  // up from 1 (etcd draws one from a time-seeded generator; nothing in etcd's
  // API depends on its value but uniqueness, so a counter keeps runs equal).
  Result<LeaseGrantResponse> lease_grant(const LeaseGrantRequest& request);
  Result<LeaseRevokeResponse> lease_revoke(LeaseId id);
  // Renews the lease to now + its TTL; an unknown lease answers TTL 0, and
  // so does an expired one awaiting revocation, which it does not renew
  // (etcd's Renew waits for that revocation, up to half a second, then
  // answers not found; the model answers at once).
  LeaseKeepAliveResponse lease_keep_alive(LeaseId id);
  // An unknown lease answers TTL -1 (not an error, as etcd).
  LeaseTimeToLiveResponse lease_time_to_live(LeaseId id, bool keys) const;

  // What a watch created now has delivered once it caught up: every event
  // since start_revision on the range. The host keeps a watch's position
  // and asks again from the revision after the last event it delivered.
  WatchResponse watch(const WatchRequest& request) const;

 private:
  std::unique_ptr<detail::Store> impl_;
};

}  // namespace zksim::etcd
