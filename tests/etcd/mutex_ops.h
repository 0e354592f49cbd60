// The requests etcd's client/v3/concurrency.Mutex (3.4, mutex.go and key.go)
// makes, built as this model's requests, for tests that run them on the
// model and on a real etcd.
#pragma once

#include "zksim/etcd/types.h"

#include <fmt/format.h>

#include <string>

namespace zksim::etcd::test {

// NewMutex(s, pfx) uses pfx + "/"; a session's key is that plus its lease
// id in hex.
inline std::string mutex_key(const std::string& pfx, LeaseId lease) {
  return fmt::format("{}/{:x}", pfx, lease);
}

// Range options of clientv3.OpGet(pfx, WithFirstCreate()) and
// WithLastCreate(): the prefix, sorted by create revision, limit 1.
inline RangeRequest first_or_last_create(const std::string& pfx, RangeRequest::SortOrder order) {
  return {.key = pfx, .range_end = prefix_end(pfx), .limit = 1, .sort_order = order,
          .sort_target = RangeRequest::SortTarget::Create};
}

// Lock's one txn: If(CreateRevision(myKey) = 0)
// Then(Put(myKey, "", WithLease), Get(pfx, WithFirstCreate))
// Else(Get(myKey), Get(pfx, WithFirstCreate)).
inline TxnRequest lock_txn(const std::string& pfx, LeaseId lease) {
  const std::string key = mutex_key(pfx, lease);
  const std::string dir = pfx + "/";
  const RangeRequest owner = first_or_last_create(dir, RangeRequest::SortOrder::Ascend);
  return {.compare = {{.result = Compare::Result::Equal, .target = Compare::Target::Create, .key = key}},
          .success = {PutRequest{.key = key, .lease = lease}, owner},
          .failure = {RangeRequest{.key = key}, owner}};
}

// waitDeletes' Get(pfx, WithLastCreate(), WithMaxCreateRev(myRev - 1)): the
// newest waiter ahead of me; none means I hold the lock.
inline RangeRequest wait_deletes_range(const std::string& pfx, std::int64_t my_rev) {
  RangeRequest r = first_or_last_create(pfx + "/", RangeRequest::SortOrder::Descend);
  r.max_create_revision = my_rev - 1;
  return r;
}

}  // namespace zksim::etcd::test
