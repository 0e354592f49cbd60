// Rules of multi: atomic, one zxid, ZooKeeper's per-op result list.
#include "fixture.h"

namespace zksim::test {
namespace {

using MultiRules = ServerTest;

TEST_F(MultiRules, SuccessfulMultiAppliesAllOpsWithOneZxid) {
  ASSERT_EQ(create("/v").error, Error::Ok);
  Zxid z = server.last_zxid();
  Outcome o = run(MultiRequest{{CreateRequest{.path = "/a"}, CreateRequest{.path = "/a/b"},
                                SetDataRequest{"/v", "x", Version{0}}, CheckRequest{"/v", Version{1}},
                                DeleteRequest{"/a/b"}}});
  ASSERT_EQ(o.error, Error::Ok);
  EXPECT_EQ(o.zxid.value, z.value + 1);
  EXPECT_EQ(server.last_zxid().value, z.value + 1);
  auto& results = std::get<MultiResponse>(o.response).results;
  ASSERT_EQ(results.size(), 5u);
  for (const OpResult& r : results) EXPECT_EQ(r.error, Error::Ok);
  EXPECT_EQ(std::get<CreateResponse>(results[0].value).path, "/a");
  EXPECT_EQ(std::get<CreateResponse>(results[0].value).stat.czxid, o.zxid.value);
  EXPECT_EQ(std::get<StatResponse>(results[2].value).stat.version, 1);
  EXPECT_TRUE(server.node("/a"));
  EXPECT_FALSE(server.node("/a/b"));
  EXPECT_EQ(stat("/a").cversion, 2);  // one create, one delete
  EXPECT_EQ(stat("/a").mzxid, o.zxid.value);
  EXPECT_EQ(stat("/a").pzxid, o.zxid.value);
}

TEST_F(MultiRules, FailedMultiReportsOkThenErrorThenRuntimeInconsistency) {
  ASSERT_EQ(create("/x").error, Error::Ok);
  Outcome o = run(MultiRequest{{CreateRequest{.path = "/a"}, CreateRequest{.path = "/x"},
                                SetDataRequest{"/x", "y"}}});
  EXPECT_EQ(o.error, Error::NodeExists);
  auto& results = std::get<MultiResponse>(o.response).results;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].error, Error::Ok);
  EXPECT_EQ(results[1].error, Error::NodeExists);
  EXPECT_EQ(results[2].error, Error::RuntimeInconsistency);
}

TEST_F(MultiRules, FailedMultiAppliesNothingButConsumesItsZxid) {
  ASSERT_EQ(create("/x").error, Error::Ok);
  ASSERT_EQ(create("/x/k").error, Error::Ok);
  Stat x_before = stat("/x");
  Stat root_before = stat("/");
  Zxid z = server.last_zxid();
  Outcome o = run(MultiRequest{{CreateRequest{.path = "/a", .mode = CreateMode::Ephemeral},
                                SetDataRequest{"/x", "data"}, DeleteRequest{"/x/k"},
                                CreateRequest{.path = "/x/n", .mode = CreateMode::PersistentSequential},
                                CheckRequest{"/x", Version{42}}}});
  EXPECT_EQ(o.error, Error::BadVersion);
  EXPECT_EQ(o.zxid.value, z.value + 1);
  EXPECT_EQ(server.last_zxid().value, z.value + 1);
  EXPECT_FALSE(server.node("/a"));
  EXPECT_TRUE(server.node("/x/k"));
  EXPECT_EQ(server.children("/x"), (std::vector<std::string>{"k"}));
  EXPECT_EQ(stat("/x"), x_before);
  EXPECT_EQ(stat("/"), root_before);
  EXPECT_TRUE(server.ephemerals(s1).empty());
  EXPECT_TRUE(o.notifications.empty());
}

TEST_F(MultiRules, LaterOpsSeeEarlierOps) {
  Outcome o = run(MultiRequest{{CreateRequest{.path = "/a"}, SetDataRequest{"/a", "x", Version{0}},
                                CheckRequest{"/a", Version{1}}, DeleteRequest{"/a", Version{1}}}});
  EXPECT_EQ(o.error, Error::Ok);
  EXPECT_FALSE(server.node("/a"));
}

TEST_F(MultiRules, SequentialNamesInsideOneMultiAdvance) {
  ASSERT_EQ(create("/q").error, Error::Ok);
  Outcome o = run(MultiRequest{{CreateRequest{.path = "/q/n", .mode = CreateMode::PersistentSequential},
                                CreateRequest{.path = "/q/n", .mode = CreateMode::PersistentSequential}}});
  ASSERT_EQ(o.error, Error::Ok);
  auto& results = std::get<MultiResponse>(o.response).results;
  EXPECT_EQ(std::get<CreateResponse>(results[0].value).path, "/q/n0000000000");
  EXPECT_EQ(std::get<CreateResponse>(results[1].value).path, "/q/n0000000001");
}

TEST_F(MultiRules, EmptyMultiSucceedsAndConsumesAZxid) {
  Zxid z = server.last_zxid();
  Outcome o = run(MultiRequest{});
  EXPECT_EQ(o.error, Error::Ok);
  EXPECT_TRUE(std::get<MultiResponse>(o.response).results.empty());
  EXPECT_EQ(server.last_zxid().value, z.value + 1);
}

TEST_F(MultiRules, WatchesFireOnlyOnCommitInOpOrder) {
  SessionId s2 = server.open_session(4000, now).id;
  ASSERT_EQ(create("/w").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/w", true}, s2), Error::Ok);
  ASSERT_EQ(err(ExistsRequest{"/n", true}, s2), Error::NoNode);
  Outcome failed = run(MultiRequest{{SetDataRequest{"/w", "x"}, CheckRequest{"/w", Version{9}}}});
  EXPECT_TRUE(failed.notifications.empty());
  Outcome ok = run(MultiRequest{{CreateRequest{.path = "/n"}, SetDataRequest{"/w", "x"}}});
  ASSERT_EQ(ok.error, Error::Ok);
  ASSERT_EQ(ok.notifications.size(), 2u);
  EXPECT_EQ(ok.notifications[0].event.type, EventType::NodeCreated);
  EXPECT_EQ(ok.notifications[0].event.path, "/n");
  EXPECT_EQ(ok.notifications[1].event.type, EventType::NodeDataChanged);
  EXPECT_EQ(ok.notifications[1].session, s2);
}

TEST_F(MultiRules, RollbackRestoresDeletedNodesExactly) {
  ASSERT_EQ(create("/d", CreateMode::Ephemeral, "payload").error, Error::Ok);
  Stat before = stat("/d");
  Outcome o = run(MultiRequest{{DeleteRequest{"/d"}, CreateRequest{.path = "/d"},
                                CreateRequest{.path = "/d"}}});
  EXPECT_EQ(o.error, Error::NodeExists);
  ASSERT_TRUE(server.node("/d"));
  EXPECT_EQ(server.node("/d")->data, "payload");
  EXPECT_EQ(stat("/d"), before);
  EXPECT_EQ(server.ephemerals(s1), (std::vector<std::string>{"/d"}));
}

}  // namespace
}  // namespace zksim::test
