// Rules of delete, setData, the reads, and operations of dead sessions.
#include "fixture.h"

#include <algorithm>

namespace zksim::test {
namespace {

using TreeRules = ServerTest;

TEST_F(TreeRules, DeleteWithMatchingVersionOrAny) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(SetDataRequest{"/a", "x"}), Error::Ok);  // version 1
  EXPECT_EQ(err(DeleteRequest{"/a", Version{0}}), Error::BadVersion);
  EXPECT_EQ(err(DeleteRequest{"/a", Version{1}}), Error::Ok);
  ASSERT_EQ(create("/b").error, Error::Ok);
  EXPECT_EQ(err(DeleteRequest{"/b", kAnyVersion}), Error::Ok);
}

TEST_F(TreeRules, DeleteUpdatesParentPzxidAndVisibleCversion) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/c").error, Error::Ok);
  Stat before = stat("/p");
  Outcome o = run(DeleteRequest{"/p/c"});
  ASSERT_EQ(o.error, Error::Ok);
  Stat after = stat("/p");
  EXPECT_EQ(after.pzxid, o.zxid.value);
  EXPECT_EQ(after.cversion, before.cversion + 1);
  EXPECT_EQ(after.numChildren, 0);
  EXPECT_EQ(after.mzxid, before.mzxid);
}

TEST_F(TreeRules, DeleteOfNodeWithChildrenIsNotEmpty) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/c").error, Error::Ok);
  EXPECT_EQ(err(DeleteRequest{"/p"}), Error::NotEmpty);
}

TEST_F(TreeRules, DeleteOfSystemNodesIsBadArguments) {
  EXPECT_EQ(err(DeleteRequest{"/"}), Error::BadArguments);
  EXPECT_EQ(err(DeleteRequest{"/zookeeper"}), Error::BadArguments);
  EXPECT_EQ(err(DeleteRequest{"/zookeeper/quota"}), Error::BadArguments);
  EXPECT_EQ(err(DeleteRequest{"/zookeeper/config"}), Error::BadArguments);
}

TEST_F(TreeRules, SetDataBumpsVersionMzxidMtimeOnly) {
  now = 100;
  ASSERT_EQ(create("/a", CreateMode::Persistent, "one").error, Error::Ok);
  Stat before = stat("/a");
  now = 250;
  Outcome o = run(SetDataRequest{"/a", "three", Version{0}});
  ASSERT_EQ(o.error, Error::Ok);
  Stat s = std::get<StatResponse>(o.response).stat;
  EXPECT_EQ(s.version, 1);
  EXPECT_EQ(s.mzxid, o.zxid.value);
  EXPECT_EQ(s.mtime, 250);
  EXPECT_EQ(s.ctime, before.ctime);
  EXPECT_EQ(s.czxid, before.czxid);
  EXPECT_EQ(s.pzxid, before.pzxid);
  EXPECT_EQ(s.dataLength, 5);
  EXPECT_EQ(s, stat("/a"));
}

TEST_F(TreeRules, SetDataOfChildLeavesParentAlone) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/c").error, Error::Ok);
  Stat before = stat("/p");
  ASSERT_EQ(err(SetDataRequest{"/p/c", "x"}), Error::Ok);
  EXPECT_EQ(stat("/p"), before);
}

TEST_F(TreeRules, SetDataWithWrongVersionIsBadVersion) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  EXPECT_EQ(err(SetDataRequest{"/a", "x", Version{3}}), Error::BadVersion);
  EXPECT_EQ(stat("/a").version, 0);
}

TEST_F(TreeRules, EmptyDataHasLengthZero) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  EXPECT_EQ(stat("/a").dataLength, 0);
  auto d = std::get<DataResponse>(run(GetDataRequest{"/a"}).response);
  EXPECT_EQ(d.data, "");
}

TEST_F(TreeRules, ExistsReturnsStatOrNoNode) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  Outcome o = run(ExistsRequest{"/a"});
  EXPECT_EQ(std::get<StatResponse>(o.response).stat, stat("/a"));
  EXPECT_EQ(err(ExistsRequest{"/b"}), Error::NoNode);
}

TEST_F(TreeRules, EmptyPathReadsTheRoot) {
  // The server's node map aliases "" to the root (the C client never sends it).
  EXPECT_EQ(std::get<StatResponse>(run(ExistsRequest{""}).response).stat, stat("/"));
  EXPECT_EQ(std::get<ChildrenResponse>(run(GetChildrenRequest{""}).response).children,
            (std::vector<std::string>{"zookeeper"}));
}

TEST_F(TreeRules, SystemNodesTakeDataAndChildren) {
  EXPECT_EQ(err(SetDataRequest{"/", "x"}), Error::Ok);
  EXPECT_EQ(err(SetDataRequest{"/zookeeper/quota", "x"}), Error::Ok);
  EXPECT_EQ(err(SetDataRequest{"/zookeeper/config", "x"}), Error::NoAuth);
  EXPECT_EQ(create("/zookeeper/x").error, Error::Ok);
  EXPECT_EQ(created_path(create("/", CreateMode::PersistentSequential)), "/0000000000");
}

TEST_F(TreeRules, ReadsValidateOnlyForNul) {
  // The server checks reads for NUL (exists) or nothing (getData, getChildren):
  // a malformed path simply is not found.
  EXPECT_EQ(err(ExistsRequest{std::string("/a\0b", 4)}), Error::BadArguments);
  EXPECT_EQ(err(ExistsRequest{"/a//b"}), Error::NoNode);
  EXPECT_EQ(err(GetDataRequest{"/a/"}), Error::NoNode);
  EXPECT_EQ(err(GetChildrenRequest{"a"}), Error::NoNode);
}

TEST_F(TreeRules, WritesValidateTheFullPath) {
  EXPECT_EQ(err(SetDataRequest{"/a/", "x"}), Error::BadArguments);
  EXPECT_EQ(err(SetDataRequest{"/a/./b", "x"}), Error::BadArguments);
  EXPECT_EQ(create("/a/").error, Error::NoNode);  // the parent "/a" is looked up first
  ASSERT_EQ(create("/a").error, Error::Ok);
  EXPECT_EQ(create("/a/").error, Error::BadArguments);
  EXPECT_EQ(create("noslash").error, Error::BadArguments);
}

class Reverse : public ChildOrder {
 public:
  void arrange(std::vector<std::string>& names) override {
    std::reverse(names.begin(), names.end());
  }
};

TEST_F(TreeRules, GetChildrenOrderIsTheCallersChoice) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  for (const char* c : {"/p/b", "/p/a", "/p/c"}) ASSERT_EQ(create(c).error, Error::Ok);
  auto sorted = std::get<ChildrenResponse>(run(GetChildrenRequest{"/p"}).response);
  EXPECT_EQ(sorted.children, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(sorted.stat, stat("/p"));
  Reverse reverse;
  auto reversed = std::get<ChildrenResponse>(
      server.apply(s1, GetChildrenRequest{"/p"}, now, &reverse).response);
  EXPECT_EQ(reversed.children, (std::vector<std::string>{"c", "b", "a"}));
}

TEST_F(TreeRules, GetChildrenOfMissingNodeIsNoNode) {
  EXPECT_EQ(err(GetChildrenRequest{"/missing"}), Error::NoNode);
}

TEST_F(TreeRules, GetAllChildrenNumberCountsDescendants) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/a").error, Error::Ok);
  ASSERT_EQ(create("/p/a/b").error, Error::Ok);
  ASSERT_EQ(create("/p/c").error, Error::Ok);
  EXPECT_EQ(std::get<CountResponse>(run(GetAllChildrenNumberRequest{"/p"}).response).count, 3);
  EXPECT_EQ(std::get<CountResponse>(run(GetAllChildrenNumberRequest{"/p/c"}).response).count, 0);
  EXPECT_EQ(err(GetAllChildrenNumberRequest{"/x"}), Error::NoNode);
}

TEST_F(TreeRules, GetEphemeralsListsOwnEphemeralsByPrefix) {
  SessionId s2 = server.open_session(4000, now).id;
  ASSERT_EQ(create("/e1", CreateMode::Ephemeral).error, Error::Ok);
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/e2", CreateMode::EphemeralSequential).error, Error::Ok);
  ASSERT_EQ(create("/other", CreateMode::Ephemeral, "", s2).error, Error::Ok);
  auto all = std::get<PathsResponse>(run(GetEphemeralsRequest{"/"}).response).paths;
  EXPECT_EQ(all, (std::vector<std::string>{"/e1", "/p/e20000000000"}));
  auto under = std::get<PathsResponse>(run(GetEphemeralsRequest{"/p"}).response).paths;
  EXPECT_EQ(under, (std::vector<std::string>{"/p/e20000000000"}));
  // A plain string prefix, not a path prefix.
  auto e = std::get<PathsResponse>(run(GetEphemeralsRequest{"/e"}).response).paths;
  EXPECT_EQ(e, (std::vector<std::string>{"/e1"}));
}

TEST_F(TreeRules, SyncEchoesThePath) {
  EXPECT_EQ(std::get<SyncResponse>(run(SyncRequest{"/any"}).response).path, "/any");
}

TEST_F(TreeRules, UnknownOrClosedSessionGetsSessionExpired) {
  EXPECT_EQ(err(CreateRequest{.path = "/a"}, SessionId{12345}), Error::SessionExpired);
  SessionId s2 = server.open_session(4000, now).id;
  ASSERT_EQ(server.close_session(s2, now).error, Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/"}, s2), Error::SessionExpired);
  EXPECT_EQ(server.close_session(s2, now).error, Error::SessionExpired);
  EXPECT_EQ(server.add_auth(s2, "digest", "u:p"), Error::SessionExpired);
}

}  // namespace
}  // namespace zksim::test
