// The etcd model against a real etcd 3.4 (Debian's etcd-server), label
// lease-real. One server for the binary, started fresh, and one model that
// has seen every request the server has: each request runs on both and the
// model's answer, written as the gateway's JSON, must equal the server's
// (revisions included). Lease time is real time: the model's clock is the
// time since the server started, and expiry is compared only well after
// the deadline (etcd's lessor looks for expired leases every 500 ms).
#include "etcd_server.h"
#include "gateway.h"
#include "mutex_ops.h"
#include "zksim/etcd/state.h"

#include <curl/curl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

namespace zksim::etcd {
namespace {

using test::Gateway;
using test::json;
using test::to_json;
using Clock = std::chrono::steady_clock;
using SortOrder = RangeRequest::SortOrder;
using SortTarget = RangeRequest::SortTarget;

const std::string kAll(1, '\0');  // as key and range_end: every key

struct Shared {
  zksim::test::EtcdServer server;
  EtcdState model;
  Clock::time_point started;
};
Shared& shared() {
  static Shared s;
  return s;
}

class EtcdServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_TRUE(shared().server.start()) << shared().server.error();
    shared().started = Clock::now();
  }
  void TearDown() override { shared().server.stop(); }
};

class EtcdReal : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(shared().server.endpoint().empty()) << "no server";
    real_.emplace(shared().server.endpoint());
  }
  // Sessions end: every lease the test granted is revoked on both sides,
  // so that no expiry lands in a later test; then both stores agree.
  void TearDown() override {
    if (!real_) return;
    for (LeaseId id : leases_) {
      tick();
      auto m = model().lease_revoke(id);
      same("revoke at teardown", m, real_->call("/v3/lease/revoke", {{"ID", std::to_string(id)}}));
    }
    range({.key = kAll, .range_end = kAll, .count_only = true});
  }

  static EtcdState& model() { return shared().model; }
  // The model's clock follows the server's.
  static void tick() {
    model().advance_to(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - shared().started).count());
  }
  static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

  // The model's response when it is not an error (the comparison is done:
  // a caller may ignore it).
  template <class T>
  std::optional<T> same(const std::string& what, Result<T> model_answer, const json& real_answer) {
    EXPECT_EQ(to_json(model_answer).dump(), real_answer.dump()) << what;
    if (!model_answer.ok()) return std::nullopt;
    return std::move(model_answer).value();
  }

  std::optional<RangeResponse> range(const RangeRequest& r) {
    tick();
    auto m = model().range(r);
    return same("range " + to_json(r).dump(), std::move(m), real_->call("/v3/kv/range", to_json(r)));
  }
  std::optional<PutResponse> put(const PutRequest& r) {
    tick();
    auto m = model().put(r);
    return same("put " + to_json(r).dump(), std::move(m), real_->call("/v3/kv/put", to_json(r)));
  }
  std::optional<DeleteRangeResponse> del(const DeleteRangeRequest& r) {
    tick();
    auto m = model().delete_range(r);
    return same("delete " + to_json(r).dump(), std::move(m), real_->call("/v3/kv/deleterange", to_json(r)));
  }
  std::optional<TxnResponse> txn(const TxnRequest& r) {
    tick();
    auto m = model().txn(r);
    return same("txn " + to_json(r).dump(), std::move(m), real_->call("/v3/kv/txn", to_json(r)));
  }
  std::optional<CompactionResponse> compact(std::int64_t revision) {
    tick();
    auto m = model().compact({.revision = revision});
    return same("compact " + std::to_string(revision), std::move(m),
                real_->call("/v3/kv/compaction", {{"revision", std::to_string(revision)}}));
  }
  // Lease ids are always given: the server would draw its own.
  std::optional<LeaseGrantResponse> grant(LeaseId id, std::int64_t ttl) {
    tick();
    const LeaseGrantRequest r{.ttl = ttl, .id = id};
    auto m = model().lease_grant(r);
    if (m.ok()) leases_.push_back(id);
    return same("grant " + to_json(r).dump(), std::move(m), real_->call("/v3/lease/grant", to_json(r)));
  }
  std::optional<LeaseRevokeResponse> revoke(LeaseId id) {
    tick();
    auto m = model().lease_revoke(id);
    std::erase(leases_, id);
    return same("revoke " + std::to_string(id), std::move(m),
                real_->call("/v3/lease/revoke", {{"ID", std::to_string(id)}}));
  }
  LeaseKeepAliveResponse keep_alive(LeaseId id) {
    tick();
    auto m = model().lease_keep_alive(id);
    EXPECT_EQ(to_json(m).dump(), real_->call("/v3/lease/keepalive", {{"ID", std::to_string(id)}}).dump())
        << "keepalive " << id;
    return m;
  }
  // The whole seconds left are the server's at another instant than the
  // model's: they may differ by one. The server lists the keys in its hash
  // map's order: they are compared as sets. The rest must be equal.
  LeaseTimeToLiveResponse time_to_live(LeaseId id) {
    tick();
    auto m = model().lease_time_to_live(id, true);
    json r = real_->call("/v3/lease/timetolive", {{"ID", std::to_string(id)}, {"keys", true}});
    json mj = to_json(m);
    const auto ttl = [](const json& j) { return std::stoll(j.value("TTL", "0")); };
    EXPECT_LE(std::abs(ttl(mj) - ttl(r)), 1) << "timetolive " << id << ": " << mj.dump() << " vs " << r.dump();
    mj.erase("TTL");
    r.erase("TTL");
    for (json* j : {&mj, &r}) {
      if (j->contains("keys")) std::sort((*j)["keys"].begin(), (*j)["keys"].end());
    }
    EXPECT_EQ(mj.dump(), r.dump()) << "timetolive " << id;
    return m;
  }
  // A watch created now: what it delivers up to the current revision.
  WatchResponse watch(const WatchRequest& r) {
    tick();
    auto m = model().watch(r);
    const std::int64_t last = m.events.empty() ? 0 : m.events.back().kv.mod_revision;
    EXPECT_EQ(to_json(m).dump(), real_->watch(r, last).dump()) << "watch " << to_json(r).dump();
    return m;
  }

  std::optional<Gateway> real_;
  std::vector<LeaseId> leases_;
};

TEST_F(EtcdReal, PutKeepsCreateRevisionBumpsVersionAndReturnsPrevKv) {
  put({.key = "kv/a", .value = "1"});
  put({.key = "kv/a", .value = "2", .prev_kv = true});
  put({.key = "kv/b", .value = "x", .prev_kv = true});
  range({.key = "kv/a"});
  put({.key = "", .value = "v"});
  put({.key = "kv/c", .lease = 0x7777});
  put({.key = "kv/c", .ignore_value = true});
  put({.key = "kv/a", .value = "v", .ignore_value = true});
  put({.key = "kv/a", .lease = 5, .ignore_lease = true});
  put({.key = "kv/a", .prev_kv = true, .ignore_value = true});
}

TEST_F(EtcdReal, DeleteRangeIsOneRevisionAndADeleteOfNothingIsNone) {
  for (auto k : {"del/a", "del/b", "del/c", "delz"}) put({.key = k, .value = k});
  del({.key = "del/nothing"});
  del({.key = "del/", .range_end = prefix_end("del/"), .prev_kv = true});
  del({.key = "delz", .prev_kv = true});
  put({.key = "delz", .value = "again"});
  range({.key = "delz"});
  del({.key = ""});
}

TEST_F(EtcdReal, RangeLimitsSortsFiltersAndCounts) {
  put({.key = "r/c", .value = "1"});
  put({.key = "r/a", .value = "3"});
  put({.key = "r/b", .value = "2"});
  put({.key = "r/c", .value = "4"});
  const std::string end = prefix_end("r/");
  for (int target = 0; target <= 4; ++target) {
    for (int order = 0; order <= 2; ++order) {
      range({.key = "r/", .range_end = end, .sort_order = SortOrder(order), .sort_target = SortTarget(target)});
    }
  }
  range({.key = "r/", .range_end = end, .limit = 2});
  range({.key = "r/", .range_end = end, .limit = 3});
  range({.key = "r/", .range_end = end, .limit = 1, .sort_order = SortOrder::Descend,
         .sort_target = SortTarget::Create, .max_create_revision = model().revision() - 1});
  const std::int64_t now = model().revision();
  range({.key = "r/", .range_end = end, .min_mod_revision = now - 1, .max_mod_revision = now});
  range({.key = "r/", .range_end = end, .min_create_revision = now - 2, .max_create_revision = now - 1});
  range({.key = "r/", .range_end = end, .keys_only = true});
  range({.key = "r/", .range_end = end, .limit = 1, .count_only = true});
  range({.key = "r/b", .range_end = kAll, .limit = 2});
  range({.key = "r/c", .revision = now - 3});
  range({.key = "r/c", .revision = now});
  range({.key = "r/c", .revision = now + 1});
  range({.key = ""});
}

TEST_F(EtcdReal, TxnIsOneRevisionAndItsReadsSeeItsWrites) {
  put({.key = "t/a", .value = "v"});
  txn({.success = {PutRequest{.key = "t/x", .value = "1"}, RangeRequest{.key = "t/x"},
                   DeleteRangeRequest{.key = "t/a", .prev_kv = true}, PutRequest{.key = "t/y", .prev_kv = true},
                   RangeRequest{.key = "t/", .range_end = prefix_end("t/")}}});
  txn({.success = {RangeRequest{.key = "t/x"}, DeleteRangeRequest{.key = "t/none"}}});
  txn({.success = {DeleteRangeRequest{.key = "t/none"}, RangeRequest{.key = "t/x"}}});
  txn({});
}

TEST_F(EtcdReal, TxnComparesEveryTargetAndResult) {
  ASSERT_TRUE(grant(0x101, 30));
  put({.key = "c/a", .value = "m", .lease = 0x101});
  put({.key = "c/a", .value = "m", .lease = 0x101});
  put({.key = "c/b", .value = "z"});
  const std::int64_t create = model().range({.key = "c/a"})->kvs.at(0).create_revision;
  for (int target = 0; target <= 4; ++target) {
    for (int result = 0; result <= 3; ++result) {
      for (std::int64_t number : {std::int64_t{0}, std::int64_t{2}, create, std::int64_t{0x101}}) {
        for (const std::string& key : {std::string("c/a"), std::string("c/none")}) {
          txn({.compare = {{.result = Compare::Result(result), .target = Compare::Target(target), .key = key,
                            .number = number, .value = number == 0 ? "m" : "n"}},
               .success = {RangeRequest{.key = "c/a"}},
               .failure = {RangeRequest{.key = "c/b"}}});
        }
      }
    }
  }
  // Over a range: every key must hold.
  txn({.compare = {{.result = Compare::Result::Greater, .target = Compare::Target::Value, .key = "c/",
                    .range_end = prefix_end("c/"), .value = "a"}}});
  txn({.compare = {{.result = Compare::Result::Less, .target = Compare::Target::Value, .key = "c/",
                    .range_end = prefix_end("c/"), .value = "n"}}});
  txn({.compare = {{.result = Compare::Result::Equal, .target = Compare::Target::Create, .key = ""}}});
}

TEST_F(EtcdReal, TxnRefusesDuplicateKeysTooManyOpsAndUnknownLeases) {
  txn({.success = {PutRequest{.key = "d/a"}, PutRequest{.key = "d/a"}}});
  txn({.success = {DeleteRangeRequest{.key = "d/a", .range_end = "d/c"}, PutRequest{.key = "d/b"}}});
  txn({.success = {PutRequest{.key = "d/a"}}, .failure = {PutRequest{.key = "d/a"}}});
  TxnRequest big;
  for (int i = 0; i < 129; ++i) big.success.push_back(RangeRequest{.key = "d/a"});
  txn(big);
  big.success.pop_back();
  txn(big);
  txn({.success = {PutRequest{.key = "d/a", .lease = 0x999}}});
  txn({.success = {PutRequest{.key = "d/a"}}, .failure = {PutRequest{.key = "d/a", .lease = 0x999}}});
  txn({.success = {PutRequest{.key = "d/q", .ignore_value = true}}});
  txn({.success = {RangeRequest{.key = "d/a", .revision = model().revision() + 1}}});
}

TEST_F(EtcdReal, LeasesGrantKeepAliveTimeToLiveAndRevoke) {
  grant(0x201, 1);  // raised to the minimum, 2 s
  grant(0x201, 5);
  grant(0x202, 9'000'000'001);
  grant(0x202, 30);
  put({.key = "l/b", .lease = 0x202});
  put({.key = "l/a", .lease = 0x202});
  put({.key = "l/c", .lease = 0x201});
  put({.key = "l/c", .lease = 0x202});  // moves to 0x202
  time_to_live(0x201);
  time_to_live(0x202);
  time_to_live(0x203);
  keep_alive(0x202);
  keep_alive(0x203);
  revoke(0x202);
  range({.key = "l/", .range_end = prefix_end("l/")});
  revoke(0x202);
  revoke(0x201);  // no keys: no revision
}

TEST_F(EtcdReal, AnExpiredLeaseIsRevokedWithItsKeysAndKeepAliveDefersIt) {
  ASSERT_TRUE(grant(0x301, 2));
  ASSERT_TRUE(grant(0x302, 2));
  put({.key = "e/a", .lease = 0x301});
  put({.key = "e/b", .lease = 0x301});
  put({.key = "e/c", .lease = 0x302});
  const std::int64_t before = model().revision();
  sleep_ms(1000);
  keep_alive(0x302);
  // 0x301 is past its deadline and revoked (with the lessor's 500 ms
  // check); 0x302 was renewed 1.3 s ago with 2 s.
  sleep_ms(1300 + 500);
  range({.key = "e/", .range_end = prefix_end("e/")});
  time_to_live(0x301);
  watch({.key = "e/", .range_end = prefix_end("e/"), .start_revision = before + 1});
  sleep_ms(1500);
  range({.key = "e/", .range_end = prefix_end("e/")});
  keep_alive(0x302);
  put({.key = "e/d", .lease = 0x302});
  std::erase(leases_, 0x301);
  std::erase(leases_, 0x302);
}

TEST_F(EtcdReal, AWatchReplaysHistoryFromItsStartRevision) {
  const std::int64_t start = model().revision() + 1;
  put({.key = "w/a", .value = "1"});
  put({.key = "w/b", .value = "1"});
  put({.key = "w/a", .value = "2"});
  del({.key = "w/a"});
  txn({.success = {PutRequest{.key = "w/c"}, DeleteRangeRequest{.key = "w/b"}}});
  watch({.key = "w/a", .start_revision = start});
  watch({.key = "w/a", .start_revision = start + 2, .prev_kv = true});
  watch({.key = "w/", .range_end = prefix_end("w/"), .start_revision = start, .prev_kv = true});
  watch({.key = "w/", .range_end = prefix_end("w/"), .start_revision = start, .no_put = true});
  watch({.key = "w/", .range_end = prefix_end("w/"), .start_revision = start, .no_delete = true});
  watch({.key = "w/a"});
  watch({.key = "w/a", .start_revision = -5});
}

TEST_F(EtcdReal, CompactionForgetsHistoryBeforeItsRevision) {
  put({.key = "h/a", .value = "1"});
  put({.key = "h/a", .value = "2"});
  put({.key = "h/b"});
  del({.key = "h/b"});
  const std::int64_t at = model().revision();  // the delete of h/b
  put({.key = "h/c"});
  compact(at + 5);
  compact(at);
  compact(at);
  compact(at - 1);
  range({.key = "h/a", .revision = at - 1});
  range({.key = "h/a", .revision = at});
  watch({.key = "h/", .range_end = prefix_end("h/"), .start_revision = at - 2});
  watch({.key = "h/", .range_end = prefix_end("h/"), .start_revision = at});
  txn({.success = {RangeRequest{.key = "h/a", .revision = at - 1}}});
}

// concurrency.Mutex's requests (tests/etcd/mutex_ops.h) for two sessions on
// one lock: the first holds it at once, the second waits on the first's key
// from its Get's revision, the first's Unlock wakes it, and the second's
// next Get finds nobody ahead.
TEST_F(EtcdReal, MutexLockAndUnlockForTwoContenders) {
  const LeaseId s1 = 0x694d1, s2 = 0x694d2;  // NewSession: Grant(60)
  ASSERT_TRUE(grant(s1, 60));
  ASSERT_TRUE(grant(s2, 60));
  auto l1 = txn(test::lock_txn("mutex", s1));
  ASSERT_TRUE(l1);
  auto l2 = txn(test::lock_txn("mutex", s2));
  ASSERT_TRUE(l2);
  const std::int64_t rev2 = l2->header.revision;
  auto ahead = range(test::wait_deletes_range("mutex", rev2));
  ASSERT_TRUE(ahead);
  ASSERT_EQ(ahead->kvs.size(), 1u);
  const WatchRequest wait{.key = ahead->kvs[0].key, .start_revision = ahead->header.revision};
  watch(wait);
  txn(test::lock_txn("mutex", s1));  // the holder locks again: the Else branch
  del({.key = test::mutex_key("mutex", s1)});  // s1's Unlock
  watch(wait);
  auto none = range(test::wait_deletes_range("mutex", rev2));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->kvs.empty());
  del({.key = test::mutex_key("mutex", s2)});  // s2's Unlock
  revoke(s1);  // Session.Close
  revoke(s2);
}

}  // namespace
}  // namespace zksim::etcd

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  ::testing::AddGlobalTestEnvironment(new zksim::etcd::EtcdServerEnvironment);
  const int rc = RUN_ALL_TESTS();
  curl_global_cleanup();
  return rc;
}
