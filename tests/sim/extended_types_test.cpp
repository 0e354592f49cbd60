// Containers and TTL nodes, reaped by ZooKeeper's ContainerManager on
// simulated time.
#include "fixture.h"

namespace zksim::test {
namespace {

using ExtendedTypes = ServerTest;

CreateRequest ttl_node(const std::string& path, std::int64_t ttl,
                       CreateMode mode = CreateMode::PersistentWithTtl) {
  return CreateRequest{.path = path, .mode = mode, .ttl_ms = ttl};
}

// The server marks them internally (0x8000000000000000, 0xFF00000000000000 | ttl)
// but DataNode.copyStat shows clients 0 (measured).
TEST_F(ExtendedTypes, ContainerAndTtlNodesShowNoOwner) {
  ASSERT_EQ(create("/c", CreateMode::Container).error, Error::Ok);
  EXPECT_EQ(stat("/c").ephemeralOwner, 0);
  Outcome o = run(ttl_node("/t", 1234));
  ASSERT_EQ(o.error, Error::Ok);
  EXPECT_EQ(std::get<CreateResponse>(o.response).stat.ephemeralOwner, 0);
  EXPECT_EQ(stat("/t").ephemeralOwner, 0);
}

TEST_F(ExtendedTypes, SequentialTtlNodeGetsASuffix) {
  Outcome o = run(ttl_node("/t-", 1000, CreateMode::PersistentSequentialWithTtl));
  ASSERT_EQ(o.error, Error::Ok);
  EXPECT_EQ(created_path(o), "/t-0000000000");  // "zookeeper" was added without a cversion bump
}

TEST_F(ExtendedTypes, ContainersAndTtlNodesMayHaveChildren) {
  ASSERT_EQ(create("/c", CreateMode::Container).error, Error::Ok);
  EXPECT_EQ(create("/c/x").error, Error::Ok);
  ASSERT_EQ(err(ttl_node("/t", 1000)), Error::Ok);
  EXPECT_EQ(create("/t/x", CreateMode::Ephemeral).error, Error::Ok);
}

TEST_F(ExtendedTypes, NeverUsedContainerIsKept) {
  ASSERT_EQ(create("/c", CreateMode::Container).error, Error::Ok);
  EXPECT_TRUE(server.reap(now + 1'000'000).empty());
  EXPECT_TRUE(server.node("/c"));
}

TEST_F(ExtendedTypes, NeverUsedContainerGoesAfterMaxNeverUsedInterval) {
  Server s(ServerConfig{.container_max_never_used_ms = 500});
  SessionId id = s.open_session(4000, 0).id;
  ASSERT_EQ(s.apply(id, CreateRequest{.path = "/c", .mode = CreateMode::Container}, 0).error,
            Error::Ok);
  EXPECT_TRUE(s.reap(500).empty());
  EXPECT_EQ(s.reap(501).size(), 1u);
  EXPECT_FALSE(s.node("/c"));
}

TEST_F(ExtendedTypes, EmptiedContainerIsReapedInOneTransaction) {
  ASSERT_EQ(create("/c", CreateMode::Container).error, Error::Ok);
  ASSERT_EQ(create("/c/x").error, Error::Ok);
  EXPECT_TRUE(server.reap(now).empty());  // has a child
  ASSERT_EQ(err(DeleteRequest{"/c/x"}), Error::Ok);
  SessionId watcher = server.open_session(4000, now).id;
  ASSERT_EQ(err(ExistsRequest{"/c", true}, watcher), Error::Ok);
  Zxid z = server.last_zxid();
  std::vector<Outcome> reaped = server.reap(now);
  ASSERT_EQ(reaped.size(), 1u);
  EXPECT_EQ(reaped[0].error, Error::Ok);
  EXPECT_EQ(reaped[0].zxid.value, z.value + 1);
  EXPECT_FALSE(server.node("/c"));
  ASSERT_EQ(reaped[0].notifications.size(), 1u);
  EXPECT_EQ(reaped[0].notifications[0].session, watcher);
  EXPECT_EQ(reaped[0].notifications[0].event.type, EventType::NodeDeleted);
}

TEST_F(ExtendedTypes, TtlNodeReapedOnlyAfterTtlSinceLastModification) {
  now = 0;
  ASSERT_EQ(err(ttl_node("/t", 1000)), Error::Ok);
  EXPECT_TRUE(server.reap(1000).empty());  // elapsed must exceed the TTL
  now = 900;
  ASSERT_EQ(err(SetDataRequest{"/t", "touch"}), Error::Ok);  // mtime resets the clock
  EXPECT_TRUE(server.reap(1500).empty());
  EXPECT_EQ(server.reap(1901).size(), 1u);
  EXPECT_FALSE(server.node("/t"));
}

TEST_F(ExtendedTypes, TtlNodeWithChildrenIsKept) {
  now = 0;
  ASSERT_EQ(err(ttl_node("/t", 10)), Error::Ok);
  ASSERT_EQ(create("/t/x").error, Error::Ok);
  EXPECT_TRUE(server.reap(100).empty());
}

}  // namespace
}  // namespace zksim::test
