// What the simulated client refuses before sending, and what it reports of
// a multi, as ZooKeeper's C client (3.8) does (measured by the conformance
// suite against the real backend).
#include "world_fixture.h"

#include <gtest/gtest.h>

namespace zksim::test {
namespace {

class ClientChecks : public ::testing::Test {
 protected:
  SeededDecisions decisions{1};
  World world{quiet(), decisions};
  Client& zk = world.open("a");
};

TEST_F(ClientChecks, MultiCreateResultCarriesThePathOnly) {
  run(world, zk, [](Client& c) -> Task<> {
    std::vector<MultiOp> ops;
    ops.push_back(CreateRequest{.path = "/a", .data = "xy"});
    ops.push_back(SetDataRequest{.path = "/a", .data = "z"});
    MultiResult r = co_await c.multi(std::move(ops));
    EXPECT_EQ(r.error, Error::Ok);
    EXPECT_EQ(std::get<CreateResponse>(r.results[0].value).path, "/a");
    EXPECT_EQ(std::get<CreateResponse>(r.results[0].value).stat, Stat{});
    EXPECT_EQ(std::get<StatResponse>(r.results[1].value).stat.version, 1);
  }(zk));
}

TEST_F(ClientChecks, MultiWithAPathTheClientRefusesIsMarshallingError) {
  run(world, zk, [](Client& c) -> Task<> {
    std::vector<MultiOp> ops;
    ops.push_back(CreateRequest{.path = "/a"});
    ops.push_back(CreateRequest{.path = "/b/"});
    MultiResult r = co_await c.multi(std::move(ops));
    EXPECT_EQ(r.error, Error::MarshallingError);
    EXPECT_TRUE(r.results.empty());
    EXPECT_EQ((co_await c.exists("/a")).error(), Error::NoNode);
  }(zk));
}

TEST_F(ClientChecks, MultiWithATtlOrContainerCreateIsUnimplemented) {
  run(world, zk, [](Client& c, World& w) -> Task<> {
    auto before = w.server().last_zxid();
    std::vector<MultiOp> ttl;
    ttl.push_back(CreateRequest{.path = "/t", .mode = CreateMode::PersistentWithTtl, .ttl_ms = 1000});
    EXPECT_EQ((co_await c.multi(std::move(ttl))).error, Error::Unimplemented);
    std::vector<MultiOp> container;
    container.push_back(CreateRequest{.path = "/k", .mode = CreateMode::Container});
    EXPECT_EQ((co_await c.multi(std::move(container))).error, Error::Unimplemented);
    EXPECT_EQ(w.server().last_zxid(), before);
  }(zk, world));
}

TEST_F(ClientChecks, InvalidTtlIsRefusedBeforeSending) {
  run(world, zk, [](Client& c, World& w) -> Task<> {
    auto before = w.server().last_zxid();
    const std::vector<std::int64_t> ttls = {0, -1, kMaxTtlMs + 1};
    for (std::int64_t ttl : ttls) {
      auto r = co_await c.create("/t", "", CreateMode::PersistentWithTtl, open_acl(), ttl);
      EXPECT_EQ(r.error(), Error::BadArguments) << ttl;
    }
    EXPECT_EQ(w.server().last_zxid(), before);
  }(zk, world));
}

TEST_F(ClientChecks, TtlWithANonTtlModeIsRefusedBeforeSending) {
  run(world, zk, [](Client& c, World& w) -> Task<> {
    auto before = w.server().last_zxid();
    auto r = co_await c.create("/p", "", CreateMode::Persistent, open_acl(), 1000);
    EXPECT_EQ(r.error(), Error::BadArguments);
    EXPECT_EQ(w.server().last_zxid(), before);
  }(zk, world));
}

}  // namespace
}  // namespace zksim::test
