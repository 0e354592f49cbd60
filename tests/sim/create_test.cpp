// Rules of create: modes, sequential names, Stat fields, zxids.
#include "fixture.h"

namespace zksim::test {
namespace {

using CreateRules = ServerTest;

TEST_F(CreateRules, InitialTreeHasZooKeeperSystemNodes) {
  EXPECT_EQ(server.children("/"), (std::vector<std::string>{"zookeeper"}));
  EXPECT_EQ(server.children("/zookeeper"), (std::vector<std::string>{"config", "quota"}));
  Stat root = stat("/");
  EXPECT_EQ(root.czxid, 0);
  EXPECT_EQ(root.cversion, -1);  // 2 * 0 creates - 1 child
  EXPECT_EQ(root.numChildren, 1);
  EXPECT_EQ(stat("/zookeeper").cversion, -2);
  EXPECT_EQ(stat("/zookeeper/config").aversion, -1);
  EXPECT_EQ(server.node("/zookeeper/config")->acl, read_acl());
}

// The checkers' string-free walk sees the children children() names, each
// with the stat stat() gives, and nothing under a missing path.
TEST_F(CreateRules, ForEachChildVisitsEachChildWithItsStat) {
  ASSERT_EQ(create("/d").error, Error::Ok);
  ASSERT_EQ(create("/d/x", CreateMode::PersistentSequential).error, Error::Ok);
  ASSERT_EQ(create("/d/y").error, Error::Ok);
  std::vector<std::string> seen;
  server.for_each_child("/d", [&](std::string_view name, const Stat& s) {
    seen.emplace_back(name);
    EXPECT_EQ(s.czxid, stat("/d/" + std::string(name)).czxid);
  });
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, server.children("/d"));
  int missing = 0;
  server.for_each_child("/nope", [&](std::string_view, const Stat&) { ++missing; });
  EXPECT_EQ(missing, 0);
}

TEST_F(CreateRules, PersistentNodeStatFields) {
  now = 5000;
  Outcome o = create("/a", CreateMode::Persistent, "hello");
  ASSERT_EQ(o.error, Error::Ok);
  Stat s = std::get<CreateResponse>(o.response).stat;
  EXPECT_EQ(s.czxid, o.zxid.value);
  EXPECT_EQ(s.mzxid, o.zxid.value);
  EXPECT_EQ(s.pzxid, o.zxid.value);
  EXPECT_EQ(s.ctime, 5000);
  EXPECT_EQ(s.mtime, 5000);
  EXPECT_EQ(s.version, 0);
  EXPECT_EQ(s.cversion, 0);
  EXPECT_EQ(s.aversion, 0);
  EXPECT_EQ(s.ephemeralOwner, 0);
  EXPECT_EQ(s.dataLength, 5);
  EXPECT_EQ(s.numChildren, 0);
  EXPECT_EQ(s, stat("/a"));
}

TEST_F(CreateRules, CreateBumpsParentCversionAndPzxidNotMzxid) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  Stat before = stat("/p");
  Outcome o = create("/p/c");
  Stat after = stat("/p");
  EXPECT_EQ(after.cversion, before.cversion + 1);
  EXPECT_EQ(after.pzxid, o.zxid.value);
  EXPECT_EQ(after.mzxid, before.mzxid);
  EXPECT_EQ(after.mtime, before.mtime);
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.numChildren, 1);
}

TEST_F(CreateRules, EphemeralOwnerIsTheSession) {
  Outcome o = create("/e", CreateMode::Ephemeral);
  ASSERT_EQ(o.error, Error::Ok);
  EXPECT_EQ(stat("/e").ephemeralOwner, s1.value);
  EXPECT_EQ(server.ephemerals(s1), (std::vector<std::string>{"/e"}));
}

TEST_F(CreateRules, SequentialSuffixIsTenDigitParentCversion) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  EXPECT_EQ(created_path(create("/q/n-", CreateMode::PersistentSequential)), "/q/n-0000000000");
  EXPECT_EQ(created_path(create("/q/n-", CreateMode::EphemeralSequential)), "/q/n-0000000001");
  ASSERT_EQ(create("/q/plain").error, Error::Ok);  // any child create advances the counter
  EXPECT_EQ(created_path(create("/q/n-", CreateMode::PersistentSequential)), "/q/n-0000000003");
}

// The suffix counts child creates; the cversion a client sees is
// 2 * creates - children, so a delete moves cversion but not the suffix.
TEST_F(CreateRules, SequentialCounterDoesNotAdvanceOnDelete) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(create("/q/x").error, Error::Ok);
  ASSERT_EQ(err(DeleteRequest{"/q/x"}), Error::Ok);
  EXPECT_EQ(stat("/q").cversion, 2);
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n0000000001");
}

TEST_F(CreateRules, VisibleCversionIsTwiceCreatesMinusChildren) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(create("/q/a").error, Error::Ok);
  EXPECT_EQ(stat("/q").cversion, 1);
  ASSERT_EQ(create("/q/b").error, Error::Ok);
  EXPECT_EQ(stat("/q").cversion, 2);
  ASSERT_EQ(err(DeleteRequest{"/q/a"}), Error::Ok);
  EXPECT_EQ(stat("/q").cversion, 3);
  ASSERT_EQ(err(DeleteRequest{"/q/b"}), Error::Ok);
  EXPECT_EQ(stat("/q").cversion, 4);
  EXPECT_EQ(created_path(create("/q/s", CreateMode::PersistentSequential)), "/q/s0000000002");
  EXPECT_EQ(stat("/q").cversion, 5);
}

TEST_F(CreateRules, SequentialCounterDoesNotAdvanceOnFailedCreate) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(create("/q/x").error, Error::Ok);
  ASSERT_EQ(create("/q/x").error, Error::NodeExists);
  EXPECT_EQ(stat("/q").cversion, 1);
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n0000000001");
}

TEST_F(CreateRules, SequentialNameThatExistsFailsAndStaysStuck) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(create("/q/n0000000001").error, Error::Ok);  // cversion becomes 1
  EXPECT_EQ(create("/q/n", CreateMode::PersistentSequential).error, Error::NodeExists);
  EXPECT_EQ(create("/q/n", CreateMode::PersistentSequential).error, Error::NodeExists);
  ASSERT_EQ(create("/q/other").error, Error::Ok);  // only a successful child create moves it
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n0000000002");
}

TEST_F(CreateRules, SequentialTrailingSlashNamesByNumberOnly) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  EXPECT_EQ(created_path(create("/q/", CreateMode::PersistentSequential)), "/q/0000000000");
}

TEST_F(CreateRules, SequentialSuffixPrintsNegativeAfterOverflow) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(server.force_cversion("/q", -5), Error::Ok);
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n-000000005");
  ASSERT_EQ(server.force_cversion("/q", INT32_MIN), Error::Ok);
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n-2147483648");
}

// DataTree.createNode only moves cversion forward, so at 2^31-1 the parent
// keeps its cversion and pzxid, and the next sequential create repeats the name.
TEST_F(CreateRules, SequentialCounterSticksAtIntMax) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  ASSERT_EQ(server.force_cversion("/q", INT32_MAX), Error::Ok);
  Stat before = stat("/q");
  EXPECT_EQ(created_path(create("/q/n", CreateMode::PersistentSequential)), "/q/n2147483647");
  EXPECT_EQ(stat("/q").pzxid, before.pzxid);
  EXPECT_EQ(create("/q/n", CreateMode::PersistentSequential).error, Error::NodeExists);
}

TEST_F(CreateRules, CreateOfRootIsNodeExists) { EXPECT_EQ(create("/").error, Error::NodeExists); }

TEST_F(CreateRules, EveryWriteConsumesAZxidEvenWhenItFails) {
  Zxid z0 = server.last_zxid();
  EXPECT_EQ(create("/a").error, Error::Ok);
  EXPECT_EQ(create("/a").error, Error::NodeExists);
  EXPECT_EQ(err(DeleteRequest{"/missing"}), Error::NoNode);
  EXPECT_EQ(err(SetDataRequest{"/a", "x", Version{7}}), Error::BadVersion);
  EXPECT_EQ(create("/missing/child").error, Error::NoNode);
  EXPECT_EQ(server.last_zxid().value, z0.value + 5);
  Outcome failed = create("/a");
  EXPECT_EQ(failed.zxid.value, z0.value + 6);
}

TEST_F(CreateRules, ReadsAndSyncDoNotConsumeZxids) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  Zxid z = server.last_zxid();
  EXPECT_EQ(run(ExistsRequest{"/a"}).zxid, z);
  EXPECT_EQ(err(GetDataRequest{"/a"}), Error::Ok);
  EXPECT_EQ(err(GetChildrenRequest{"/a"}), Error::Ok);
  EXPECT_EQ(err(SyncRequest{"/a"}), Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/nope"}), Error::NoNode);
  EXPECT_EQ(server.last_zxid(), z);
}

TEST_F(CreateRules, SessionOpenAndCloseConsumeZxids) {
  Zxid z = server.last_zxid();
  SessionGrant g = server.open_session(4000, now);
  EXPECT_EQ(g.zxid.value, z.value + 1);
  EXPECT_EQ(server.close_session(g.id, now).zxid.value, z.value + 2);
}

TEST_F(CreateRules, ChildrenOfEphemeralsAreRefused) {
  ASSERT_EQ(create("/e", CreateMode::Ephemeral).error, Error::Ok);
  EXPECT_EQ(create("/e/c").error, Error::NoChildrenForEphemerals);
  EXPECT_EQ(create("/e/c", CreateMode::Ephemeral).error, Error::NoChildrenForEphemerals);
}

TEST_F(CreateRules, CreateWithEmptyAclIsInvalidAcl) {
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {}}), Error::InvalidAcl);
}

TEST_F(CreateRules, TtlOnlyWithTtlModes) {
  EXPECT_EQ(err(CreateRequest{.path = "/a", .ttl_ms = 100}), Error::BadArguments);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .mode = CreateMode::PersistentWithTtl}),
            Error::BadArguments);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .mode = CreateMode::PersistentWithTtl, .ttl_ms = 0}),
            Error::BadArguments);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .mode = CreateMode::PersistentWithTtl,
                              .ttl_ms = kMaxTtlMs + 1}),
            Error::BadArguments);
}

TEST_F(CreateRules, TtlNodesNeedExtendedTypes) {
  Server plain(ServerConfig{.extended_types = false});
  SessionId s = plain.open_session(4000, 0).id;
  EXPECT_EQ(plain.apply(s, CreateRequest{.path = "/t", .mode = CreateMode::PersistentWithTtl,
                                         .ttl_ms = 100}, 0).error,
            Error::Unimplemented);
}

TEST_F(CreateRules, OversizedRequestDropsTheConnectionUnapplied) {
  Zxid z = server.last_zxid();
  std::string big(1024 * 1024, 'x');
  Outcome o = create("/big", CreateMode::Persistent, big);
  EXPECT_EQ(o.error, Error::ConnectionLoss);
  EXPECT_TRUE(o.connection_dropped);
  EXPECT_FALSE(server.node("/big"));
  EXPECT_EQ(server.last_zxid(), z);
  // Just under the limit is accepted: 8 header + (4+4 path) + (4+n data) + acl + 4 flags.
  std::int64_t acl = 4 + (4 + 4 + 5 + 4 + 6);
  std::string fits(static_cast<std::size_t>(0xfffff - 8 - 8 - 4 - acl - 4), 'x');
  EXPECT_EQ(create("/fit", CreateMode::Persistent, fits).error, Error::Ok);
  EXPECT_EQ(create("/fi2", CreateMode::Persistent, fits + "x").error, Error::ConnectionLoss);
}

TEST_F(CreateRules, GroundTruthStatIsTheNodesStatAndAbsentForMissingNodes) {
  ASSERT_EQ(create("/a", CreateMode::Persistent, "x").error, Error::Ok);
  ASSERT_TRUE(server.stat("/a"));
  EXPECT_EQ(*server.stat("/a"), server.node("/a")->stat);
  EXPECT_FALSE(server.stat("/missing"));
}

}  // namespace
}  // namespace zksim::test
