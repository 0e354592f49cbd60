// etcd's concurrency.Mutex on a concurrency.Session (locks.h), as
// client/v3/concurrency/{mutex,session,key}.go of etcd 3.5 do it; the
// flawed variant is 3.4's Lock, which lacks the owner check after the wait.
#include "zksim/lease/locks.h"

#include <fmt/format.h>

namespace zksim::lease {
namespace {

using etcd::Compare;
using etcd::RangeRequest;

// concurrency.Session: a lease kept alive by a helper loop. The loop sends
// a keepalive every TTL/3 (clientv3's lessor) and gives up once no answer
// came for a whole TTL or the lease is gone: the session is then done.
struct Session {
  etcd::LeaseId lease = etcd::kNoLease;
  bool done = false;
  bool closed = false;  // closed by its owner: the loop stops
};

Task<> keep_alive_loop(Process& process, EtcdClient& etcd, std::shared_ptr<Session> s, TimeMs ttl_ms) {
  TimeMs deadline = process.clock_ms() + ttl_ms;
  while (!s->closed && !s->done) {
    co_await process.sleep(ttl_ms / 3);
    if (s->closed) break;
    std::optional<etcd::LeaseKeepAliveResponse> r = co_await etcd.lease_keep_alive(s->lease);
    if (r && r->ttl <= 0) s->done = true;
    if (r && r->ttl > 0) deadline = process.clock_ms() + r->ttl * 1000;
    if (process.clock_ms() >= deadline) s->done = true;
  }
}

RangeRequest first_create(const std::string& prefix) {
  return {.key = prefix, .range_end = etcd::prefix_end(prefix), .limit = 1,
          .sort_order = RangeRequest::SortOrder::Ascend, .sort_target = RangeRequest::SortTarget::Create};
}

class EtcdMutex final : public LeaseLock {
 public:
  EtcdMutex(Process& p, EtcdClient& e, EtcdMutexOptions o) : process_(p), etcd_(e), o_(std::move(o)) {}
  ~EtcdMutex() override {
    if (session_) session_->closed = true;
  }

  Task<std::optional<std::int64_t>> acquire() override {
    if (!session_ || session_->done) {
      if (session_) session_->closed = true;
      session_.reset();
      // (Requests are built before co_await: GCC 12 miscompiles a braced
      // temporary in a co_await's operand.)
      const etcd::LeaseGrantRequest grant{.ttl = o_.ttl_s};
      auto g = co_await etcd_.lease_grant(grant);
      if (!g || !*g) co_return std::nullopt;
      session_ = std::make_shared<Session>();
      session_->lease = (*g)->id;
      process_.spawn(keep_alive_loop(process_, etcd_, session_, (*g)->ttl * 1000));
    }
    const std::string pfx = o_.prefix + "/";
    key_ = fmt::format("{}{:x}", pfx, session_->lease);
    // tryAcquire: put my key if it is not there, and read the owner.
    etcd::TxnRequest t;
    t.compare.push_back({.result = Compare::Result::Equal, .target = Compare::Target::Create, .key = key_});
    t.success = {etcd::PutRequest{.key = key_, .lease = session_->lease}, first_create(pfx)};
    t.failure = {RangeRequest{.key = key_}, first_create(pfx)};
    auto r = co_await etcd_.txn(t);
    if (!r || !*r) co_return std::nullopt;
    const etcd::TxnResponse& resp = **r;
    std::int64_t my_rev = resp.header.revision;
    if (!resp.succeeded) my_rev = std::get<etcd::RangeResponse>(resp.responses[0]).kvs.at(0).create_revision;
    const auto& owner = std::get<etcd::RangeResponse>(resp.responses[1]).kvs;
    if (owner.empty() || owner[0].create_revision == my_rev) co_return my_rev;
    // waitDeletes: wait for every key created before mine to go.
    for (;;) {
      RangeRequest last = first_create(pfx);
      last.sort_order = RangeRequest::SortOrder::Descend;
      last.max_create_revision = my_rev - 1;
      auto before = co_await etcd_.range(last);
      if (!before || !*before) {
        co_await release();
        co_return std::nullopt;
      }
      if ((*before)->kvs.empty()) break;
      if (!co_await etcd_.wait_delete((*before)->kvs[0].key, (*before)->header.revision)) {
        co_await release();
        co_return std::nullopt;
      }
    }
    if (!o_.skip_owner_check) {
      // The session must not have expired meanwhile: my key must still be there.
      const RangeRequest get_mine{.key = key_};
      auto mine = co_await etcd_.range(get_mine);
      if (!mine || !*mine) {
        co_await release();
        co_return std::nullopt;
      }
      if ((*mine)->kvs.empty()) co_return std::nullopt;
    }
    co_return my_rev;
  }

  Task<bool> release() override {
    const etcd::DeleteRangeRequest del{.key = key_};
    auto r = co_await etcd_.delete_range(del);
    co_return !r || !*r || (*r)->deleted == 1;
  }

 private:
  Process& process_;
  EtcdClient& etcd_;
  EtcdMutexOptions o_;
  std::shared_ptr<Session> session_;
  std::string key_;
};

}  // namespace

std::unique_ptr<LeaseLock> make_etcd_mutex(Process& process, EtcdClient& etcd, EtcdMutexOptions options) {
  return std::make_unique<EtcdMutex>(process, etcd, std::move(options));
}

}  // namespace zksim::lease
