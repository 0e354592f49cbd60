#include "zksim/etcd/state.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace zksim::etcd {
namespace {

// etcd's lease.MaxLeaseTTL.
constexpr std::int64_t kMaxLeaseTtlS = 9'000'000'000;

// One revision of a key: a put's key-value, or a delete's tombstone.
struct Record {
  std::int64_t main = 0;
  bool tombstone = false;
  KeyValue kv;
};

struct Lease {
  std::int64_t ttl_s = 0;
  TimeMs deadline_ms = 0;
  std::set<std::string> keys;
};

// Whether `key` lies in the range (key, range_end) of etcd's API.
bool in_range(const std::string& key, const std::string& begin, const std::string& end) {
  if (end.empty()) return key == begin;
  if (end == std::string(1, '\0')) return key >= begin;
  return key >= begin && key < end;
}

bool is_write(const RequestOp& op) { return !std::holds_alternative<RangeRequest>(op); }

}  // namespace

namespace detail {

struct Store {
  Options options;
  TimeMs now_ms = 0;
  std::int64_t revision = 1;
  std::int64_t compacted = 0;
  // Every key's records in revision order; a key whose history compaction
  // emptied is gone.
  std::map<std::string, std::vector<Record>> keys;
  // Every change since the compacted revision, in (revision, order in its
  // txn) order, without prev_kv: what watches replay.
  std::vector<Event> log;
  std::map<LeaseId, Lease> leases;
  std::set<std::pair<TimeMs, LeaseId>> deadlines;
  LeaseId next_lease_id = 1;

  // mvcc's compactMainRev as the txn check reads it: -1 before any compaction.
  std::int64_t first_revision() const { return compacted == 0 ? -1 : compacted; }

  // The key as of revision `rev`, if it existed then.
  const KeyValue* visible(const std::vector<Record>& records, std::int64_t rev) const {
    auto it = std::upper_bound(records.begin(), records.end(), rev,
                               [](std::int64_t r, const Record& rec) { return r < rec.main; });
    if (it == records.begin()) return nullptr;
    --it;
    return it->tombstone ? nullptr : &it->kv;
  }
  const KeyValue* visible(const std::string& key, std::int64_t rev) const {
    auto it = keys.find(key);
    return it == keys.end() ? nullptr : visible(it->second, rev);
  }

  // The keys of the range as of `rev`, in key order.
  std::vector<KeyValue> collect(const std::string& begin, const std::string& end,
                                std::int64_t rev) const {
    std::vector<KeyValue> out;
    for (auto it = keys.lower_bound(begin); it != keys.end(); ++it) {
      if (!in_range(it->first, begin, end)) break;
      if (const KeyValue* kv = visible(it->second, rev)) out.push_back(*kv);
    }
    return out;
  }

  // applierV3backend.Range over a read at `current` (the store's revision,
  // or a write txn's own).
  Result<RangeResponse> range_at(const RangeRequest& r, std::int64_t current) const {
    if (r.revision > current) return Error::FutureRev;
    const std::int64_t rev = r.revision <= 0 ? current : r.revision;
    if (rev < compacted) return Error::Compacted;
    RangeResponse resp;
    resp.header.revision = current;
    std::vector<KeyValue> kvs = collect(r.key, r.range_end, rev);
    resp.count = static_cast<std::int64_t>(kvs.size());
    if (r.count_only) return resp;
    std::erase_if(kvs, [&](const KeyValue& kv) {
      return (r.max_mod_revision != 0 && kv.mod_revision > r.max_mod_revision) ||
             (r.min_mod_revision != 0 && kv.mod_revision < r.min_mod_revision) ||
             (r.max_create_revision != 0 && kv.create_revision > r.max_create_revision) ||
             (r.min_create_revision != 0 && kv.create_revision < r.min_create_revision);
    });
    auto order = r.sort_order;
    if (r.sort_target != RangeRequest::SortTarget::Key && order == RangeRequest::SortOrder::None) {
      order = RangeRequest::SortOrder::Ascend;
    }
    if (order != RangeRequest::SortOrder::None) {
      // Ties keep key order either way (etcd's sort.Sort is an insertion
      // sort, stable, below 12 keys; beyond that it does not say).
      auto less = [&](const KeyValue& a, const KeyValue& b) {
        switch (r.sort_target) {
          case RangeRequest::SortTarget::Key: return a.key < b.key;
          case RangeRequest::SortTarget::Version: return a.version < b.version;
          case RangeRequest::SortTarget::Create: return a.create_revision < b.create_revision;
          case RangeRequest::SortTarget::Mod: return a.mod_revision < b.mod_revision;
          case RangeRequest::SortTarget::Value: return a.value < b.value;
        }
        return false;
      };
      if (order == RangeRequest::SortOrder::Descend) {
        std::stable_sort(kvs.begin(), kvs.end(), [&](const auto& a, const auto& b) { return less(b, a); });
      } else {
        std::stable_sort(kvs.begin(), kvs.end(), less);
      }
    }
    if (r.limit > 0 && static_cast<std::int64_t>(kvs.size()) > r.limit) {
      kvs.resize(static_cast<std::size_t>(r.limit));
      resp.more = true;
    }
    if (r.keys_only) {
      for (auto& kv : kvs) kv.value.clear();
    }
    resp.kvs = std::move(kvs);
    return resp;
  }

  void detach(const std::string& key, LeaseId lease) {
    if (lease == kNoLease) return;
    if (auto it = leases.find(lease); it != leases.end()) it->second.keys.erase(key);
  }
  void forget_lease(std::map<LeaseId, Lease>::iterator it) {
    deadlines.erase({it->second.deadline_ms, it->first});
    leases.erase(it);
  }
  void revoke(LeaseId id);
};

}  // namespace detail

namespace {

// One write transaction (mvcc's storeTxnWrite): its changes all carry
// revision begin + 1, and its reads see them.
class Write {
 public:
  explicit Write(detail::Store& s) : s_(s), begin_(s.revision) {}
  std::int64_t read_revision() const { return changes_ > 0 ? begin_ + 1 : begin_; }
  // The revision the store has once the txn ends.
  std::int64_t end_revision() const { return read_revision(); }

  void put(const std::string& key, const std::string& value, LeaseId lease) {
    const std::int64_t rev = begin_ + 1;
    auto& records = s_.keys[key];
    const KeyValue* prev = s_.visible(records, rev);
    KeyValue kv{.key = key,
                .create_revision = prev ? prev->create_revision : rev,
                .mod_revision = rev,
                .version = prev ? prev->version + 1 : 1,
                .value = value,
                .lease = lease};
    if (prev) s_.detach(key, prev->lease);
    if (lease != kNoLease) s_.leases.at(lease).keys.insert(key);
    records.push_back(Record{.main = rev, .tombstone = false, .kv = kv});
    s_.log.push_back(Event{.type = Event::Type::Put, .kv = std::move(kv)});
    ++changes_;
  }

  std::int64_t delete_range(const std::string& begin, const std::string& end) {
    const std::vector<KeyValue> doomed = s_.collect(begin, end, read_revision());
    const std::int64_t rev = begin_ + 1;
    for (const KeyValue& kv : doomed) {
      s_.detach(kv.key, kv.lease);
      s_.keys[kv.key].push_back(Record{.main = rev, .tombstone = true, .kv = {}});
      s_.log.push_back(Event{.type = Event::Type::Delete, .kv = {.key = kv.key, .mod_revision = rev}});
      ++changes_;
    }
    return static_cast<std::int64_t>(doomed.size());
  }

  void end() { s_.revision = end_revision(); }

 private:
  detail::Store& s_;
  std::int64_t begin_;
  int changes_ = 0;
};

// applierV3backend.Put within `w`. REQUIRES: the request passed its checks.
PutResponse apply_put(detail::Store& s, Write& w, const PutRequest& p) {
  PutResponse resp;
  const KeyValue* prev = s.visible(p.key, w.read_revision());
  std::string value = p.value;
  LeaseId lease = p.lease;
  if (prev) {
    if (p.ignore_value) value = prev->value;
    if (p.ignore_lease) lease = prev->lease;
    if (p.prev_kv) resp.prev_kv = *prev;
  }
  w.put(p.key, value, lease);
  resp.header.revision = w.end_revision();
  return resp;
}

DeleteRangeResponse apply_delete(detail::Store& s, Write& w, const DeleteRangeRequest& d) {
  DeleteRangeResponse resp;
  if (d.prev_kv) resp.prev_kvs = s.collect(d.key, d.range_end, w.read_revision());
  resp.deleted = w.delete_range(d.key, d.range_end);
  resp.header.revision = w.end_revision();
  return resp;
}

// The gRPC layer's checks (v3rpc/key.go), before anything is applied.
Error check_put(const PutRequest& p) {
  if (p.key.empty()) return Error::EmptyKey;
  if (p.ignore_value && !p.value.empty()) return Error::ValueProvided;
  if (p.ignore_lease && p.lease != kNoLease) return Error::LeaseProvided;
  return Error::Ok;
}

Error check_op(const RequestOp& op) {
  if (const auto* p = std::get_if<PutRequest>(&op)) return check_put(*p);
  if (const auto* r = std::get_if<RangeRequest>(&op)) return r->key.empty() ? Error::EmptyKey : Error::Ok;
  return std::get<DeleteRangeRequest>(op).key.empty() ? Error::EmptyKey : Error::Ok;
}

// checkIntervals: no put may share a key with another put, nor fall in a
// delete's range, in one branch.
Error check_intervals(const std::vector<RequestOp>& ops) {
  std::vector<std::pair<std::string, std::string>> dels;
  for (const auto& op : ops) {
    if (const auto* d = std::get_if<DeleteRangeRequest>(&op)) dels.emplace_back(d->key, d->range_end);
  }
  std::set<std::string> puts;
  for (const auto& op : ops) {
    const auto* p = std::get_if<PutRequest>(&op);
    if (!p) continue;
    const bool in_delete = std::any_of(dels.begin(), dels.end(), [&](const auto& d) {
      // adt's affine intervals: a point, or [begin, end) compared as bytes.
      return d.second.empty() ? p->key == d.first : (p->key >= d.first && p->key < d.second);
    });
    if (in_delete || !puts.insert(p->key).second) return Error::DuplicateKey;
  }
  return Error::Ok;
}

// applyCompare: every key of the range must satisfy the compare; no key
// compares as a zero KeyValue, except that a value compare then fails.
bool compare_holds(const detail::Store& s, const Compare& c) {
  std::vector<KeyValue> kvs = s.collect(c.key, c.range_end, s.revision);
  if (kvs.empty()) {
    if (c.target == Compare::Target::Value) return false;
    kvs.emplace_back();
  }
  return std::all_of(kvs.begin(), kvs.end(), [&](const KeyValue& kv) {
    int result = 0;
    auto cmp = [](auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); };
    switch (c.target) {
      case Compare::Target::Value: result = cmp(kv.value, c.value); break;
      case Compare::Target::Create: result = cmp(kv.create_revision, c.number); break;
      case Compare::Target::Mod: result = cmp(kv.mod_revision, c.number); break;
      case Compare::Target::Version: result = cmp(kv.version, c.number); break;
      case Compare::Target::Lease: result = cmp(kv.lease, c.number); break;
    }
    switch (c.result) {
      case Compare::Result::Equal: return result == 0;
      case Compare::Result::NotEqual: return result != 0;
      case Compare::Result::Greater: return result > 0;
      case Compare::Result::Less: return result < 0;
    }
    return true;
  });
}

}  // namespace

// lessor.Revoke: the lease's keys deleted in key order, in one revision.
void detail::Store::revoke(LeaseId id) {
  const auto it = leases.find(id);
  const std::vector<std::string> doomed(it->second.keys.begin(), it->second.keys.end());
  Write w(*this);
  for (const auto& key : doomed) w.delete_range(key, "");
  forget_lease(it);
  w.end();
}

EtcdState::EtcdState(Options options) : impl_(std::make_unique<detail::Store>()) { impl_->options = options; }
EtcdState::~EtcdState() = default;
EtcdState::EtcdState(const EtcdState& other) : impl_(std::make_unique<detail::Store>(*other.impl_)) {}
EtcdState& EtcdState::operator=(const EtcdState& other) {
  if (this != &other) impl_ = std::make_unique<detail::Store>(*other.impl_);
  return *this;
}
EtcdState::EtcdState(EtcdState&&) noexcept = default;
EtcdState& EtcdState::operator=(EtcdState&&) noexcept = default;

namespace {
// The lessor's last look at or before `t`, and its first at or after.
TimeMs look_before(TimeMs t, TimeMs period) { return period > 0 ? t / period * period : t; }
TimeMs look_after(TimeMs t, TimeMs period) { return period > 0 ? (t + period - 1) / period * period : t; }
}  // namespace

std::vector<LeaseId> EtcdState::advance_to(TimeMs now_ms) {
  detail::Store& s = *impl_;
  s.now_ms = std::max(s.now_ms, now_ms);
  std::vector<LeaseId> revoked;
  const TimeMs looked = look_before(s.now_ms, s.options.revoke_period_ms);
  while (!s.deadlines.empty() && s.deadlines.begin()->first <= looked) {
    const LeaseId id = s.deadlines.begin()->second;
    s.revoke(id);
    revoked.push_back(id);
  }
  return revoked;
}

std::optional<TimeMs> EtcdState::next_expiry_ms() const {
  if (impl_->deadlines.empty()) return std::nullopt;
  return look_after(impl_->deadlines.begin()->first, impl_->options.revoke_period_ms);
}
TimeMs EtcdState::now_ms() const { return impl_->now_ms; }
std::int64_t EtcdState::revision() const { return impl_->revision; }
std::int64_t EtcdState::compact_revision() const { return impl_->compacted; }

Result<RangeResponse> EtcdState::range(const RangeRequest& request) const {
  if (request.key.empty()) return Error::EmptyKey;
  return impl_->range_at(request, impl_->revision);
}

Result<PutResponse> EtcdState::put(const PutRequest& request) {
  detail::Store& s = *impl_;
  if (Error e = check_put(request); e != Error::Ok) return e;
  if (request.lease != kNoLease && !s.leases.contains(request.lease)) return Error::LeaseNotFound;
  if ((request.ignore_value || request.ignore_lease) && !s.visible(request.key, s.revision)) {
    return Error::KeyNotFound;
  }
  Write w(s);
  PutResponse resp = apply_put(s, w, request);
  w.end();
  return resp;
}

Result<DeleteRangeResponse> EtcdState::delete_range(const DeleteRangeRequest& request) {
  if (request.key.empty()) return Error::EmptyKey;
  Write w(*impl_);
  DeleteRangeResponse resp = apply_delete(*impl_, w, request);
  w.end();
  return resp;
}

Result<TxnResponse> EtcdState::txn(const TxnRequest& request) {
  detail::Store& s = *impl_;
  // kvServer.Txn: checkTxnRequest, then checkIntervals on each branch.
  const auto ops = static_cast<std::int64_t>(
      std::max({request.compare.size(), request.success.size(), request.failure.size()}));
  if (ops > s.options.max_txn_ops) return Error::TooManyOps;
  for (const auto& c : request.compare) {
    if (c.key.empty()) return Error::EmptyKey;
  }
  for (const auto* branch : {&request.success, &request.failure}) {
    for (const auto& op : *branch) {
      if (Error e = check_op(op); e != Error::Ok) return e;
    }
  }
  for (const auto* branch : {&request.success, &request.failure}) {
    if (Error e = check_intervals(*branch); e != Error::Ok) return e;
  }

  // applierV3backend.Txn: compares, then the chosen branch's puts are
  // checked (if the txn writes at all), then its ranges, then all applied.
  const bool succeeded = std::all_of(request.compare.begin(), request.compare.end(),
                                     [&](const Compare& c) { return compare_holds(s, c); });
  const auto& chosen = succeeded ? request.success : request.failure;
  const bool writes = std::any_of(request.success.begin(), request.success.end(), is_write) ||
                      std::any_of(request.failure.begin(), request.failure.end(), is_write);
  if (writes) {
    for (const auto& op : chosen) {
      const auto* p = std::get_if<PutRequest>(&op);
      if (!p) continue;
      if ((p->ignore_value || p->ignore_lease) && !s.visible(p->key, s.revision)) return Error::KeyNotFound;
      if (p->lease != kNoLease && !s.leases.contains(p->lease)) return Error::LeaseNotFound;
    }
  }
  for (const auto& op : chosen) {
    const auto* r = std::get_if<RangeRequest>(&op);
    if (!r || r->revision == 0) continue;
    if (r->revision > s.revision) return Error::FutureRev;
    if (r->revision < s.first_revision()) return Error::Compacted;
  }

  TxnResponse resp;
  resp.succeeded = succeeded;
  Write w(s);
  for (const auto& op : chosen) {
    if (const auto* r = std::get_if<RangeRequest>(&op)) {
      resp.responses.emplace_back(s.range_at(*r, w.read_revision()).value());
    } else if (const auto* p = std::get_if<PutRequest>(&op)) {
      resp.responses.emplace_back(apply_put(s, w, *p));
    } else {
      resp.responses.emplace_back(apply_delete(s, w, std::get<DeleteRangeRequest>(op)));
    }
  }
  resp.header.revision = w.end_revision();
  w.end();
  return resp;
}

Result<CompactionResponse> EtcdState::compact(const CompactionRequest& request) {
  detail::Store& s = *impl_;
  const std::int64_t rev = request.revision;
  if (rev <= s.compacted) return Error::Compacted;
  if (rev > s.revision) return Error::FutureRev;
  s.compacted = rev;
  // Each key keeps its latest record at or before rev, unless that is a
  // tombstone, and everything after.
  for (auto it = s.keys.begin(); it != s.keys.end();) {
    auto& records = it->second;
    auto keep = std::upper_bound(records.begin(), records.end(), rev,
                                 [](std::int64_t r, const Record& rec) { return r < rec.main; });
    if (keep != records.begin()) {
      --keep;
      if (keep->tombstone) ++keep;
    }
    records.erase(records.begin(), keep);
    it = records.empty() ? s.keys.erase(it) : std::next(it);
  }
  // The history from rev on, less the deletes at rev itself: etcd's
  // compaction drops a tombstone at the compaction revision.
  std::erase_if(s.log, [&](const Event& e) {
    return e.kv.mod_revision < rev || (e.kv.mod_revision == rev && e.type == Event::Type::Delete);
  });
  CompactionResponse resp;
  resp.header.revision = s.revision;
  return resp;
}

Result<LeaseGrantResponse> EtcdState::lease_grant(const LeaseGrantRequest& request) {
  detail::Store& s = *impl_;
  if (request.ttl > kMaxLeaseTtlS) return Error::LeaseTtlTooLarge;
  LeaseId id = request.id;
  if (id == kNoLease) {
    while (s.leases.contains(s.next_lease_id)) ++s.next_lease_id;
    id = s.next_lease_id++;
  } else if (s.leases.contains(id)) {
    return Error::LeaseExist;
  }
  const std::int64_t ttl = std::max(request.ttl, s.options.min_lease_ttl_s);
  const TimeMs deadline = s.now_ms + ttl * 1000;
  s.leases[id] = Lease{.ttl_s = ttl, .deadline_ms = deadline, .keys = {}};
  s.deadlines.insert({deadline, id});
  LeaseGrantResponse resp;
  resp.header.revision = s.revision;
  resp.id = id;
  resp.ttl = ttl;
  return resp;
}

Result<LeaseRevokeResponse> EtcdState::lease_revoke(LeaseId id) {
  detail::Store& s = *impl_;
  if (!s.leases.contains(id)) return Error::LeaseNotFound;
  s.revoke(id);
  LeaseRevokeResponse resp;
  resp.header.revision = s.revision;
  return resp;
}

LeaseKeepAliveResponse EtcdState::lease_keep_alive(LeaseId id) {
  detail::Store& s = *impl_;
  LeaseKeepAliveResponse resp;
  resp.header.revision = s.revision;
  resp.id = id;
  auto it = s.leases.find(id);
  if (it == s.leases.end() || it->second.deadline_ms <= s.now_ms) return resp;
  Lease& lease = it->second;
  s.deadlines.erase({lease.deadline_ms, id});
  lease.deadline_ms = s.now_ms + lease.ttl_s * 1000;
  s.deadlines.insert({lease.deadline_ms, id});
  resp.ttl = lease.ttl_s;
  return resp;
}

LeaseTimeToLiveResponse EtcdState::lease_time_to_live(LeaseId id, bool keys) const {
  const detail::Store& s = *impl_;
  LeaseTimeToLiveResponse resp;
  resp.header.revision = s.revision;
  resp.id = id;
  auto it = s.leases.find(id);
  if (it == s.leases.end()) {
    resp.ttl = -1;
    return resp;
  }
  resp.ttl = (it->second.deadline_ms - s.now_ms) / 1000;
  resp.granted_ttl = it->second.ttl_s;
  if (keys) resp.keys.assign(it->second.keys.begin(), it->second.keys.end());
  return resp;
}

WatchResponse EtcdState::watch(const WatchRequest& request) const {
  const detail::Store& s = *impl_;
  WatchResponse resp;
  resp.header.revision = s.revision;
  const std::string key = request.key.empty() ? std::string(1, '\0') : request.key;
  const std::int64_t start = request.start_revision == 0 ? s.revision + 1 : request.start_revision;
  // watchableStore.syncWatchers compares with compactMainRev, -1 before
  // any compaction: only a negative start is "compacted" then.
  if (start < s.first_revision()) {
    resp.canceled = true;
    resp.compact_revision = s.first_revision();
    return resp;
  }
  auto it = std::lower_bound(s.log.begin(), s.log.end(), start,
                             [](const Event& e, std::int64_t r) { return e.kv.mod_revision < r; });
  for (; it != s.log.end(); ++it) {
    if (!in_range(it->kv.key, key, request.range_end)) continue;
    if ((it->type == Event::Type::Put && request.no_put) ||
        (it->type == Event::Type::Delete && request.no_delete)) {
      continue;
    }
    Event event = *it;
    // v3rpc's sendLoop: the key as of the revision before, unless compacted.
    if (request.prev_kv && event.kv.mod_revision - 1 >= s.compacted) {
      if (const KeyValue* prev = s.visible(event.kv.key, event.kv.mod_revision - 1)) event.prev_kv = *prev;
    }
    resp.events.push_back(std::move(event));
  }
  return resp;
}

}  // namespace zksim::etcd
