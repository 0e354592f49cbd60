// When several errors apply, ZooKeeper 3.8 reports the one its
// PrepRequestProcessor checks first. Each test pits two errors against each other.
#include "fixture.h"

namespace zksim::test {
namespace {

class Precedence : public ServerTest {
 protected:
  // "/locked": readable by nobody but "owner", with a child and an ephemeral child.
  void SetUp() override {
    owner = server.open_session(4000, now).id;
    ASSERT_EQ(server.add_auth(owner, "digest", "owner:pw"), Error::Ok);
    AclList only_owner = {Acl{perms::kAll, Id{"auth", ""}}};
    ASSERT_EQ(run(CreateRequest{.path = "/locked", .acl = only_owner}, owner).error, Error::Ok);
    ASSERT_EQ(run(CreateRequest{.path = "/locked/child", .acl = only_owner}, owner).error,
              Error::Ok);
  }
  SessionId owner;
};

TEST_F(Precedence, CreateBadTtlBeforeEverything) {
  EXPECT_EQ(err(CreateRequest{.path = "/missing/x", .acl = {}, .ttl_ms = 5}), Error::BadArguments);
}

TEST_F(Precedence, CreateInvalidAclBeforeNoNode) {
  EXPECT_EQ(err(CreateRequest{.path = "/missing/x", .acl = {}}), Error::InvalidAcl);
}

TEST_F(Precedence, CreateNoNodeBeforeBadPath) {
  EXPECT_EQ(create("/missing/x/").error, Error::NoNode);
}

TEST_F(Precedence, CreateNoAuthBeforeNodeExists) {
  EXPECT_EQ(create("/locked/child").error, Error::NoAuth);
}

TEST_F(Precedence, CreateNoAuthBeforeNoChildrenForEphemerals) {
  AclList only_owner = {Acl{perms::kAll, Id{"auth", ""}}};
  ASSERT_EQ(run(CreateRequest{.path = "/eph", .acl = only_owner, .mode = CreateMode::Ephemeral},
                owner).error,
            Error::Ok);
  EXPECT_EQ(create("/eph/x").error, Error::NoAuth);
  EXPECT_EQ(run(CreateRequest{.path = "/eph/x"}, owner).error, Error::NoChildrenForEphemerals);
}

TEST_F(Precedence, DeleteParentNoNodeBeforeNodeNoNode) {
  EXPECT_EQ(err(DeleteRequest{"/missing/x"}), Error::NoNode);
}

TEST_F(Precedence, DeleteNoAuthOnParentBeforeNoNode) {
  EXPECT_EQ(err(DeleteRequest{"/locked/absent"}), Error::NoAuth);
}

TEST_F(Precedence, DeleteBadVersionBeforeNotEmpty) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(create("/p/c").error, Error::Ok);
  EXPECT_EQ(err(DeleteRequest{"/p", Version{9}}), Error::BadVersion);
  EXPECT_EQ(err(DeleteRequest{"/p", Version{0}}), Error::NotEmpty);
}

TEST_F(Precedence, DeleteNoNodeBeforeBadVersion) {
  EXPECT_EQ(err(DeleteRequest{"/absent", Version{3}}), Error::NoNode);
}

TEST_F(Precedence, SetDataBadPathBeforeNoNode) {
  EXPECT_EQ(err(SetDataRequest{"/absent/", "x"}), Error::BadArguments);
}

TEST_F(Precedence, SetDataNoNodeBeforeBadVersion) {
  EXPECT_EQ(err(SetDataRequest{"/absent", "x", Version{4}}), Error::NoNode);
}

TEST_F(Precedence, SetDataNoAuthBeforeBadVersion) {
  EXPECT_EQ(err(SetDataRequest{"/locked", "x", Version{4}}), Error::NoAuth);
}

TEST_F(Precedence, SetAclInvalidAclBeforeNoNode) {
  EXPECT_EQ(err(SetAclRequest{"/absent", {}}), Error::InvalidAcl);
}

TEST_F(Precedence, SetAclNoAuthBeforeBadVersion) {
  EXPECT_EQ(err(SetAclRequest{"/locked", open_acl(), Version{5}}), Error::NoAuth);
}

TEST_F(Precedence, CheckNoAuthBeforeBadVersion) {
  EXPECT_EQ(err(MultiRequest{{CheckRequest{"/locked", Version{5}}}}), Error::NoAuth);
}

TEST_F(Precedence, GetDataNoNodeBeforeNoAuth) {
  EXPECT_EQ(err(GetDataRequest{"/locked/absent"}), Error::NoNode);
  EXPECT_EQ(err(GetDataRequest{"/locked"}), Error::NoAuth);
}

}  // namespace
}  // namespace zksim::test
