// The rules of EtcdState, one test per rule, named after it. Expected values
// are etcd 3.4's (docs/etcd.md); tests/etcd/etcd_real_test.cpp checks the
// same rules against a real server.
#include "mutex_ops.h"
#include "zksim/etcd/state.h"

#include <gtest/gtest.h>

#include <ostream>

namespace zksim::etcd {

// For gtest's messages and values.
std::ostream& operator<<(std::ostream& os, Error e) { return os << fmt::format("{}", e); }

namespace {

using SortOrder = RangeRequest::SortOrder;
using SortTarget = RangeRequest::SortTarget;

class EtcdStateTest : public ::testing::Test {
 protected:
  std::int64_t put(const std::string& key, const std::string& value = "v", LeaseId lease = kNoLease) {
    auto r = state.put({.key = key, .value = value, .lease = lease});
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? r->header.revision : 0;
  }
  std::vector<KeyValue> get(RangeRequest request) {
    auto r = state.range(request);
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? r->kvs : std::vector<KeyValue>{};
  }
  std::vector<std::string> keys(RangeRequest request) {
    std::vector<std::string> out;
    for (const auto& kv : get(std::move(request))) out.push_back(kv.key);
    return out;
  }
  LeaseId grant(std::int64_t ttl_s) {
    auto r = state.lease_grant({.ttl = ttl_s});
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? r->id : kNoLease;
  }
  EtcdState state;
};

TEST(EtcdErrors, CarryEtcdsGrpcCodeAndMessage) {
  EXPECT_EQ(grpc_code(Error::LeaseNotFound), 5);
  EXPECT_EQ(error_message(Error::LeaseNotFound), "etcdserver: requested lease not found");
  EXPECT_EQ(grpc_code(Error::EmptyKey), 3);
  EXPECT_EQ(error_message(Error::EmptyKey), "etcdserver: key is not provided");
  EXPECT_EQ(grpc_code(Error::Compacted), 11);
  EXPECT_EQ(grpc_code(Error::LeaseExist), 9);
  EXPECT_EQ(grpc_code(Error::Ok), 0);
}

TEST(EtcdPrefixEnd, IncrementsTheLastByteBelow0xff) {
  EXPECT_EQ(prefix_end("a/"), "a0");
  EXPECT_EQ(prefix_end("a\xff"), "b");
  EXPECT_EQ(prefix_end("\xff\xff"), std::string(1, '\0'));
}

TEST_F(EtcdStateTest, AFreshClusterIsAtRevisionOne) {
  EXPECT_EQ(state.revision(), 1);
  auto r = state.range({.key = "a"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->header.revision, 1);
  EXPECT_TRUE(r->kvs.empty());
}

TEST_F(EtcdStateTest, PutCreatesAKeyAtTheNextRevision) {
  EXPECT_EQ(put("a", "v"), 2);
  EXPECT_EQ(get({.key = "a"}), (std::vector<KeyValue>{
                                   {.key = "a", .create_revision = 2, .mod_revision = 2, .version = 1, .value = "v"}}));
}

TEST_F(EtcdStateTest, PutOnAnExistingKeyKeepsCreateRevisionAndBumpsVersion) {
  put("a", "v");
  put("b");
  EXPECT_EQ(put("a", "w"), 4);
  EXPECT_EQ(get({.key = "a"}), (std::vector<KeyValue>{
                                   {.key = "a", .create_revision = 2, .mod_revision = 4, .version = 2, .value = "w"}}));
}

TEST_F(EtcdStateTest, PutReturnsThePreviousKeyValueWhenAsked) {
  auto first = state.put({.key = "a", .value = "v", .prev_kv = true});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->prev_kv);
  auto second = state.put({.key = "a", .value = "w", .prev_kv = true});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->prev_kv,
            (KeyValue{.key = "a", .create_revision = 2, .mod_revision = 2, .version = 1, .value = "v"}));
}

TEST_F(EtcdStateTest, PutWithAnUnknownLeaseFailsWithLeaseNotFound) {
  auto r = state.put({.key = "a", .lease = 123});
  EXPECT_EQ(r.error(), Error::LeaseNotFound);
  EXPECT_EQ(state.revision(), 1);
}

TEST_F(EtcdStateTest, PutIgnoreValueAndIgnoreLeaseKeepThemAndNeedAnExistingKey) {
  EXPECT_EQ(state.put({.key = "a", .ignore_value = true}).error(), Error::KeyNotFound);
  EXPECT_EQ(state.put({.key = "a", .value = "x", .ignore_value = true}).error(), Error::ValueProvided);
  EXPECT_EQ(state.put({.key = "a", .lease = 5, .ignore_lease = true}).error(), Error::LeaseProvided);
  const LeaseId lease = grant(10);
  put("a", "v", lease);
  ASSERT_TRUE(state.put({.key = "a", .ignore_value = true, .ignore_lease = true}).ok());
  EXPECT_EQ(get({.key = "a"}).at(0).value, "v");
  EXPECT_EQ(get({.key = "a"}).at(0).lease, lease);
}

TEST_F(EtcdStateTest, AnEmptyKeyIsInvalidArgument) {
  EXPECT_EQ(state.put({.key = ""}).error(), Error::EmptyKey);
  EXPECT_EQ(state.range({.key = ""}).error(), Error::EmptyKey);
  EXPECT_EQ(state.delete_range({.key = ""}).error(), Error::EmptyKey);
  EXPECT_EQ(state.txn({.compare = {{.key = ""}}}).error(), Error::EmptyKey);
}

TEST_F(EtcdStateTest, ADeleteThatDeletesNothingKeepsTheRevision) {
  put("a");
  auto r = state.delete_range({.key = "b"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->deleted, 0);
  EXPECT_EQ(r->header.revision, 2);
  EXPECT_EQ(state.revision(), 2);
}

TEST_F(EtcdStateTest, DeleteRangeOfAPrefixIsOneRevisionWithThePreviousKeyValues) {
  put("p/a", "1");
  put("p/b", "2");
  put("q", "3");
  auto r = state.delete_range({.key = "p/", .range_end = prefix_end("p/"), .prev_kv = true});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->deleted, 2);
  EXPECT_EQ(r->header.revision, 5);
  ASSERT_EQ(r->prev_kvs.size(), 2u);
  EXPECT_EQ(r->prev_kvs[1].value, "2");
  EXPECT_EQ(keys({.key = std::string(1, '\0'), .range_end = std::string(1, '\0')}), std::vector<std::string>{"q"});
}

TEST_F(EtcdStateTest, APutAfterADeleteStartsAgainAtVersionOne) {
  put("a");
  put("a");
  ASSERT_TRUE(state.delete_range({.key = "a"}).ok());
  put("a", "x");
  EXPECT_EQ(get({.key = "a"}), (std::vector<KeyValue>{
                                   {.key = "a", .create_revision = 5, .mod_revision = 5, .version = 1, .value = "x"}}));
}

TEST_F(EtcdStateTest, RangeOfAPrefixIsInKeyOrder) {
  put("p/b");
  put("p/a");
  put("pz");
  put("p/c");
  EXPECT_EQ(keys({.key = "p/", .range_end = prefix_end("p/")}), (std::vector<std::string>{"p/a", "p/b", "p/c"}));
  EXPECT_EQ(keys({.key = "p/b", .range_end = std::string(1, '\0')}),
            (std::vector<std::string>{"p/b", "p/c", "pz"}));
}

TEST_F(EtcdStateTest, RangeLimitSetsMoreAndCountCountsEveryKey) {
  for (auto k : {"a", "b", "c"}) put(k);
  auto r = state.range({.key = "a", .range_end = "z", .limit = 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kvs.size(), 2u);
  EXPECT_TRUE(r->more);
  EXPECT_EQ(r->count, 3);
}

TEST_F(EtcdStateTest, RangeSortsByEachTargetBothWays) {
  put("c", "1");
  put("a", "3");
  put("b", "2");
  put("c", "4");
  const RangeRequest all{.key = "a", .range_end = "z"};
  auto sorted = [&](SortTarget target, SortOrder order) {
    RangeRequest r = all;
    r.sort_target = target;
    r.sort_order = order;
    return keys(r);
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(sorted(SortTarget::Create, SortOrder::Ascend), (V{"c", "a", "b"}));
  EXPECT_EQ(sorted(SortTarget::Create, SortOrder::Descend), (V{"b", "a", "c"}));
  EXPECT_EQ(sorted(SortTarget::Mod, SortOrder::Ascend), (V{"a", "b", "c"}));
  EXPECT_EQ(sorted(SortTarget::Value, SortOrder::Descend), (V{"c", "a", "b"}));
  EXPECT_EQ(sorted(SortTarget::Key, SortOrder::Descend), (V{"c", "b", "a"}));
  EXPECT_EQ(sorted(SortTarget::Version, SortOrder::Descend), (V{"c", "a", "b"}));
  // A target other than the key with no order sorts ascending.
  EXPECT_EQ(sorted(SortTarget::Create, SortOrder::None), (V{"c", "a", "b"}));
}

TEST_F(EtcdStateTest, RangeRevisionFiltersApplyAfterCountingAndBeforeTheLimit) {
  for (auto k : {"a", "b", "c", "d"}) put(k);  // created at 2, 3, 4, 5
  auto r = state.range({.key = "a", .range_end = "z", .limit = 1, .sort_order = SortOrder::Descend,
                        .sort_target = SortTarget::Create, .max_create_revision = 4});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->count, 4);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "c");
  EXPECT_TRUE(r->more);
  EXPECT_EQ(keys({.key = "a", .range_end = "z", .min_mod_revision = 3, .max_mod_revision = 4}),
            (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(keys({.key = "a", .range_end = "z", .min_create_revision = 5}), (std::vector<std::string>{"d"}));
}

TEST_F(EtcdStateTest, RangeKeysOnlyDropsValuesAndCountOnlyDropsKeyValues) {
  put("a", "v");
  EXPECT_EQ(get({.key = "a", .keys_only = true}).at(0).value, "");
  auto r = state.range({.key = "a", .range_end = "z", .count_only = true});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
  EXPECT_EQ(r->count, 1);
}

TEST_F(EtcdStateTest, RangeAtAPastRevisionSeesTheStoreAsItWas) {
  put("a", "1");
  put("a", "2");
  ASSERT_TRUE(state.delete_range({.key = "a"}).ok());
  EXPECT_EQ(get({.key = "a", .revision = 2}).at(0).value, "1");
  EXPECT_EQ(get({.key = "a", .revision = 3}).at(0).value, "2");
  EXPECT_TRUE(get({.key = "a", .revision = 4}).empty());
  auto r = state.range({.key = "a", .revision = 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->header.revision, 4);
  EXPECT_EQ(state.range({.key = "a", .revision = 5}).error(), Error::FutureRev);
}

TEST_F(EtcdStateTest, ATxnIsOneRevisionAndItsReadsSeeItsWrites) {
  put("a");
  auto r = state.txn({.success = {PutRequest{.key = "x", .value = "1"}, PutRequest{.key = "y"},
                                  RangeRequest{.key = "x"}, DeleteRangeRequest{.key = "a"}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->succeeded);
  EXPECT_EQ(r->header.revision, 3);
  ASSERT_EQ(r->responses.size(), 4u);
  const auto& read = std::get<RangeResponse>(r->responses[2]);
  EXPECT_EQ(read.header.revision, 3);
  EXPECT_EQ(read.kvs.at(0), (KeyValue{.key = "x", .create_revision = 3, .mod_revision = 3, .version = 1, .value = "1"}));
  EXPECT_EQ(std::get<DeleteRangeResponse>(r->responses[3]).deleted, 1);
  EXPECT_EQ(get({.key = "y"}).at(0).mod_revision, 3);
}

TEST_F(EtcdStateTest, ATxnThatChangesNothingKeepsTheRevision) {
  put("a");
  auto r = state.txn({.success = {RangeRequest{.key = "a"}, DeleteRangeRequest{.key = "zz"}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->header.revision, 2);
  EXPECT_EQ(std::get<RangeResponse>(r->responses[0]).header.revision, 2);
  EXPECT_EQ(std::get<DeleteRangeResponse>(r->responses[1]).header.revision, 2);
}

TEST_F(EtcdStateTest, ATxnRunsTheFailureBranchWhenACompareFails) {
  put("a", "v");
  auto r = state.txn({.compare = {{.result = Compare::Result::Equal, .target = Compare::Target::Value,
                                   .key = "a", .value = "w"}},
                      .success = {PutRequest{.key = "s"}},
                      .failure = {PutRequest{.key = "f"}}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->succeeded);
  EXPECT_EQ(keys({.key = "a", .range_end = "z"}), (std::vector<std::string>{"a", "f"}));
}

TEST_F(EtcdStateTest, TxnComparesEveryTargetWithEveryResult) {
  const LeaseId lease = grant(10);
  put("a", "m", lease);  // create 2
  put("a", "m", lease);  // mod 3, version 2
  auto holds = [&](Compare::Target target, Compare::Result result, std::int64_t number, std::string value = "") {
    auto r = state.txn({.compare = {{.result = result, .target = target, .key = "a", .number = number,
                                     .value = std::move(value)}}});
    EXPECT_TRUE(r.ok());
    return r.ok() && r->succeeded;
  };
  using T = Compare::Target;
  using R = Compare::Result;
  EXPECT_TRUE(holds(T::Create, R::Equal, 2));
  EXPECT_TRUE(holds(T::Mod, R::Greater, 2));
  EXPECT_FALSE(holds(T::Mod, R::Less, 3));
  EXPECT_TRUE(holds(T::Version, R::NotEqual, 1));
  EXPECT_TRUE(holds(T::Lease, R::Equal, lease));
  EXPECT_TRUE(holds(T::Value, R::Less, 0, "n"));
  EXPECT_TRUE(holds(T::Value, R::Greater, 0, "l"));
}

TEST_F(EtcdStateTest, ACompareOnAMissingKeySeesZerosButAValueCompareFails) {
  auto holds = [&](Compare c) {
    auto r = state.txn({.compare = {std::move(c)}});
    return r.ok() && r->succeeded;
  };
  EXPECT_TRUE(holds({.result = Compare::Result::Equal, .target = Compare::Target::Create, .key = "nokey"}));
  EXPECT_TRUE(holds({.result = Compare::Result::Equal, .target = Compare::Target::Version, .key = "nokey"}));
  EXPECT_FALSE(holds({.result = Compare::Result::Equal, .target = Compare::Target::Value, .key = "nokey"}));
  EXPECT_FALSE(holds({.result = Compare::Result::NotEqual, .target = Compare::Target::Value, .key = "nokey",
                      .value = "x"}));
}

TEST_F(EtcdStateTest, ACompareOverARangeHoldsOnlyForEveryKey) {
  put("p/a", "1");
  put("p/b", "2");
  auto holds = [&](std::int64_t version_below) {
    auto r = state.txn({.compare = {{.result = Compare::Result::Less, .target = Compare::Target::Mod,
                                     .key = "p/", .range_end = prefix_end("p/"), .number = version_below}}});
    return r.ok() && r->succeeded;
  };
  EXPECT_FALSE(holds(3));
  EXPECT_TRUE(holds(4));
}

TEST_F(EtcdStateTest, ATxnRejectsAKeyPutTwiceOrPutInsideADeletedRange) {
  EXPECT_EQ(state.txn({.success = {PutRequest{.key = "a"}, PutRequest{.key = "a"}}}).error(), Error::DuplicateKey);
  EXPECT_EQ(state.txn({.failure = {DeleteRangeRequest{.key = "a", .range_end = "c"}, PutRequest{.key = "b"}}})
                .error(),
            Error::DuplicateKey);
  EXPECT_TRUE(state.txn({.success = {PutRequest{.key = "a"}}, .failure = {PutRequest{.key = "a"}}}).ok());
}

TEST_F(EtcdStateTest, ATxnRejectsMoreThanMaxTxnOps) {
  TxnRequest big;
  for (int i = 0; i < 129; ++i) big.success.push_back(RangeRequest{.key = "a"});
  EXPECT_EQ(state.txn(big).error(), Error::TooManyOps);
  big.success.pop_back();
  EXPECT_TRUE(state.txn(big).ok());
}

TEST_F(EtcdStateTest, ATxnChecksTheLeasesOfTheTakenBranchOnly) {
  EXPECT_EQ(state.txn({.success = {PutRequest{.key = "a", .lease = 99}}}).error(), Error::LeaseNotFound);
  auto r = state.txn({.success = {PutRequest{.key = "a"}}, .failure = {PutRequest{.key = "a", .lease = 99}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(state.revision(), 2);
}

TEST_F(EtcdStateTest, ATxnChecksTheRevisionsOfItsReads) {
  put("a");
  EXPECT_EQ(state.txn({.success = {RangeRequest{.key = "a", .revision = 3}}}).error(), Error::FutureRev);
  put("a");
  ASSERT_TRUE(state.compact({.revision = 3}).ok());
  EXPECT_EQ(state.txn({.success = {RangeRequest{.key = "a", .revision = 2}}}).error(), Error::Compacted);
}

TEST_F(EtcdStateTest, LeaseGrantRaisesTheTtlToTheMinimumAndRefusesTooLarge) {
  auto r = state.lease_grant({.ttl = 1, .id = 7});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id, 7);
  EXPECT_EQ(r->ttl, 2);
  EXPECT_EQ(state.lease_grant({.ttl = 9'000'000'001}).error(), Error::LeaseTtlTooLarge);
  EXPECT_EQ(state.lease_grant({.ttl = 5, .id = 7}).error(), Error::LeaseExist);
}

TEST_F(EtcdStateTest, LeaseIdsComeFromACounterSkippingIdsInUse) {
  ASSERT_TRUE(state.lease_grant({.ttl = 5, .id = 2}).ok());
  EXPECT_EQ(grant(5), 1);
  EXPECT_EQ(grant(5), 3);
}

TEST_F(EtcdStateTest, LeaseExpiryAtTheDeadlineDeletesItsKeysInOneRevision) {
  const LeaseId lease = grant(3);
  put("b", "v", lease);
  put("a", "v", lease);
  put("c");
  EXPECT_EQ(state.next_expiry_ms(), 3000);
  EXPECT_TRUE(state.advance_to(2999).empty());
  EXPECT_EQ(state.advance_to(3000), std::vector<LeaseId>{lease});
  EXPECT_EQ(state.revision(), 5);
  EXPECT_EQ(keys({.key = "a", .range_end = "z"}), std::vector<std::string>{"c"});
  auto w = state.watch({.key = "a", .range_end = "z", .start_revision = 5});
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0].kv, (KeyValue{.key = "a", .mod_revision = 5}));
  EXPECT_EQ(w.events[1].kv.key, "b");
  EXPECT_EQ(state.lease_time_to_live(lease, false).ttl, -1);
  EXPECT_FALSE(state.next_expiry_ms());
}

TEST_F(EtcdStateTest, ALeaseIsRevokedAtTheLessorsFirstLookAfterItsDeadline) {
  state.advance_to(100);
  const LeaseId lease = grant(2);
  put("a", "v", lease);
  EXPECT_TRUE(state.advance_to(2100).empty());  // expired, not yet revoked: its key is there
  EXPECT_EQ(keys({.key = "a"}), std::vector<std::string>{"a"});
  EXPECT_EQ(state.next_expiry_ms(), 2500);
  EXPECT_TRUE(state.advance_to(2499).empty());
  EXPECT_EQ(state.advance_to(2500), std::vector<LeaseId>{lease});
  EXPECT_TRUE(keys({.key = "a"}).empty());
}

TEST_F(EtcdStateTest, AKeepAliveOfAnExpiredLeaseAwaitingRevocationAnswersTtl0AndDoesNotRenewIt) {
  state.advance_to(100);
  const LeaseId lease = grant(2);
  state.advance_to(2200);
  EXPECT_EQ(state.lease_keep_alive(lease).ttl, 0);
  EXPECT_EQ(state.advance_to(2500), std::vector<LeaseId>{lease});
}

TEST_F(EtcdStateTest, LeaseKeepAliveResetsTheDeadlineToNowPlusTtl) {
  const LeaseId lease = grant(2);
  state.advance_to(1500);
  auto k = state.lease_keep_alive(lease);
  EXPECT_EQ(k.ttl, 2);
  EXPECT_EQ(state.next_expiry_ms(), 3500);
  EXPECT_TRUE(state.advance_to(3499).empty());
  EXPECT_EQ(state.lease_keep_alive(99).ttl, 0);
}

TEST_F(EtcdStateTest, LeaseRevokeDeletesItsKeysAndAnUnknownLeaseIsNotFound) {
  const LeaseId lease = grant(10);
  put("a", "v", lease);
  auto r = state.lease_revoke(lease);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->header.revision, 3);
  EXPECT_TRUE(get({.key = "a"}).empty());
  EXPECT_EQ(state.lease_revoke(lease).error(), Error::LeaseNotFound);
  const LeaseId empty = grant(10);
  ASSERT_TRUE(state.lease_revoke(empty).ok());
  EXPECT_EQ(state.revision(), 3);
}

TEST_F(EtcdStateTest, LeaseTimeToLiveTruncatesToWholeSecondsAndListsKeys) {
  const LeaseId lease = grant(5);
  put("b", "", lease);
  put("a", "", lease);
  state.advance_to(1);
  auto t = state.lease_time_to_live(lease, true);
  EXPECT_EQ(t.ttl, 4);
  EXPECT_EQ(t.granted_ttl, 5);
  EXPECT_EQ(t.keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(state.lease_time_to_live(42, true).ttl, -1);
}

TEST_F(EtcdStateTest, APutMovesItsKeyToTheNewLeaseOrToNone) {
  const LeaseId one = grant(10);
  const LeaseId two = grant(10);
  put("a", "", one);
  put("a", "", two);
  EXPECT_TRUE(state.lease_time_to_live(one, true).keys.empty());
  EXPECT_EQ(state.lease_time_to_live(two, true).keys, std::vector<std::string>{"a"});
  put("a");
  ASSERT_TRUE(state.lease_revoke(two).ok());
  EXPECT_EQ(get({.key = "a"}).size(), 1u);
}

TEST_F(EtcdStateTest, AWatchReplaysHistoryFromItsStartRevision) {
  put("a", "1");
  put("b", "x");
  put("a", "2");
  ASSERT_TRUE(state.delete_range({.key = "a"}).ok());
  auto w = state.watch({.key = "a", .start_revision = 3, .prev_kv = true});
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0].type, Event::Type::Put);
  EXPECT_EQ(w.events[0].kv.value, "2");
  EXPECT_EQ(w.events[0].prev_kv->value, "1");
  EXPECT_EQ(w.events[1].type, Event::Type::Delete);
  EXPECT_EQ(w.events[1].kv, (KeyValue{.key = "a", .mod_revision = 5}));
  EXPECT_EQ(w.events[1].prev_kv->value, "2");
  EXPECT_TRUE(state.watch({.key = "a"}).events.empty());
  EXPECT_EQ(state.watch({.key = "a", .range_end = "c", .start_revision = 1}).events.size(), 4u);
}

TEST_F(EtcdStateTest, AWatchFiltersPutsOrDeletes) {
  put("a");
  ASSERT_TRUE(state.delete_range({.key = "a"}).ok());
  auto no_put = state.watch({.key = "a", .start_revision = 1, .no_put = true});
  ASSERT_EQ(no_put.events.size(), 1u);
  EXPECT_EQ(no_put.events[0].type, Event::Type::Delete);
  EXPECT_EQ(state.watch({.key = "a", .start_revision = 1, .no_delete = true}).events.size(), 1u);
}

TEST_F(EtcdStateTest, CompactionForgetsTheHistoryBeforeItsRevision) {
  put("a", "1");  // 2
  put("a", "2");  // 3
  put("b");       // 4
  ASSERT_TRUE(state.delete_range({.key = "b"}).ok());  // 5
  EXPECT_EQ(state.compact({.revision = 6}).error(), Error::FutureRev);
  auto c = state.compact({.revision = 3});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->header.revision, 5);
  EXPECT_EQ(state.revision(), 5);
  EXPECT_EQ(state.compact({.revision = 3}).error(), Error::Compacted);
  EXPECT_EQ(state.range({.key = "a", .revision = 2}).error(), Error::Compacted);
  EXPECT_EQ(get({.key = "a", .revision = 3}).at(0).value, "2");
  EXPECT_EQ(get({.key = "b", .revision = 4}).size(), 1u);
  auto w = state.watch({.key = "a", .start_revision = 2});
  EXPECT_TRUE(w.canceled);
  EXPECT_EQ(w.compact_revision, 3);
  EXPECT_EQ(state.watch({.key = "a", .range_end = "z", .start_revision = 3}).events.size(), 3u);
}

TEST_F(EtcdStateTest, AStateIsAValueItsCopyEvolvesAlone) {
  put("a");
  EtcdState copy = state;
  put("b");
  EXPECT_EQ(copy.revision(), 2);
  EXPECT_EQ(state.revision(), 3);
}

// concurrency.Mutex for two sessions, request by request: the first owns
// the lock at once; the second's Get(WithLastCreate, WithMaxCreateRev)
// finds the first's key and watches it from the Get's revision; the
// first's Unlock is the DELETE that wakes it, and its next Get finds nobody.
TEST_F(EtcdStateTest, MutexLockAndUnlockForTwoContenders) {
  const LeaseId s1 = grant(60);
  const LeaseId s2 = grant(60);
  auto l1 = state.txn(test::lock_txn("lock", s1));
  ASSERT_TRUE(l1.ok());
  EXPECT_TRUE(l1->succeeded);
  const std::int64_t rev1 = l1->header.revision;
  EXPECT_EQ(std::get<RangeResponse>(l1->responses[1]).kvs.at(0).create_revision, rev1);  // owner

  auto l2 = state.txn(test::lock_txn("lock", s2));
  ASSERT_TRUE(l2.ok());
  const std::int64_t rev2 = l2->header.revision;
  const auto& owner = std::get<RangeResponse>(l2->responses[1]).kvs.at(0);
  EXPECT_EQ(owner.key, test::mutex_key("lock", s1));
  EXPECT_NE(owner.create_revision, rev2);  // waits

  auto ahead = state.range(test::wait_deletes_range("lock", rev2));
  ASSERT_TRUE(ahead.ok());
  ASSERT_EQ(ahead->kvs.size(), 1u);
  EXPECT_EQ(ahead->kvs[0].key, test::mutex_key("lock", s1));
  const WatchRequest watch{.key = ahead->kvs[0].key, .start_revision = ahead->header.revision};
  EXPECT_TRUE(state.watch(watch).events.empty());

  // Locking again from the same session takes the Else branch and keeps its revision.
  auto again = state.txn(test::lock_txn("lock", s1));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->succeeded);
  EXPECT_EQ(std::get<RangeResponse>(again->responses[0]).kvs.at(0).create_revision, rev1);

  ASSERT_TRUE(state.delete_range({.key = test::mutex_key("lock", s1)}).ok());  // Unlock
  auto woken = state.watch(watch);
  ASSERT_EQ(woken.events.size(), 1u);
  EXPECT_EQ(woken.events[0].type, Event::Type::Delete);
  auto none = state.range(test::wait_deletes_range("lock", rev2));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->kvs.empty());
}

}  // namespace
}  // namespace zksim::etcd
