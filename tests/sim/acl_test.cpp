// ACL rules: schemes, and each permission checked where ZooKeeper checks it.
#include "fixture.h"

namespace zksim::test {
namespace {

class AclRules : public ServerTest {
 protected:
  // Creates `path` with every permission for alice and `world_perms` for anyone.
  void make(const std::string& path, int world_perms) {
    AclList acl = {Acl{perms::kAll, Id{"digest", alice}}};
    if (world_perms) acl.push_back(Acl{world_perms, Id{"world", "anyone"}});
    ASSERT_EQ(run(CreateRequest{.path = path, .acl = acl}, admin).error, Error::Ok);
  }
  void SetUp() override {
    admin = server.open_session(4000, now).id;
    ASSERT_EQ(server.add_auth(admin, "digest", "alice:secret"), Error::Ok);
  }
  const std::string alice = "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=";
  SessionId admin;
};

TEST_F(AclRules, DigestIdIsUserAndBase64Sha1) {
  ASSERT_EQ(run(CreateRequest{.path = "/d", .acl = creator_all_acl()}, admin).error, Error::Ok);
  EXPECT_EQ(server.node("/d")->acl, (AclList{Acl{perms::kAll, Id{"digest", alice}}}));
}

TEST_F(AclRules, AuthSchemeWithoutAuthenticatedIdIsInvalidAcl) {
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = creator_all_acl()}), Error::InvalidAcl);
}

TEST_F(AclRules, MalformedIdsAreInvalidAcl) {
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {Acl{31, Id{"ip", "300.1.1.1"}}}}),
            Error::InvalidAcl);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {Acl{31, Id{"ip", "10.0.0.0/33"}}}}),
            Error::InvalidAcl);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {Acl{31, Id{"nosuch", "x"}}}}),
            Error::InvalidAcl);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {Acl{31, Id{"world", "someone"}}}}),
            Error::InvalidAcl);
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = {Acl{31, Id{"digest", "nocolon"}}}}),
            Error::InvalidAcl);
}

TEST_F(AclRules, DuplicateEntriesAreDropped) {
  AclList twice = {Acl{31, Id{"world", "anyone"}}, Acl{31, Id{"world", "anyone"}}};
  ASSERT_EQ(err(CreateRequest{.path = "/a", .acl = twice}), Error::Ok);
  EXPECT_EQ(server.node("/a")->acl, open_acl());
}

TEST_F(AclRules, AddAuthRejectsUnknownSchemesAndBadCredentials) {
  EXPECT_EQ(server.add_auth(s1, "kerberos", "x"), Error::AuthFailed);
  EXPECT_EQ(server.add_auth(s1, "digest", "no-colon"), Error::AuthFailed);
}

TEST_F(AclRules, CreateNeedsCreateOnParent) {
  make("/p", perms::kAll & ~perms::kCreate);
  EXPECT_EQ(create("/p/c").error, Error::NoAuth);
  make("/q", perms::kCreate);
  EXPECT_EQ(create("/q/c").error, Error::Ok);
}

TEST_F(AclRules, DeleteNeedsDeleteOnParentNotOnNode) {
  make("/p", perms::kAll & ~perms::kDelete);
  ASSERT_EQ(run(CreateRequest{.path = "/p/c"}, admin).error, Error::Ok);
  EXPECT_EQ(err(DeleteRequest{"/p/c"}), Error::NoAuth);
  make("/q", perms::kDelete);
  ASSERT_EQ(run(CreateRequest{.path = "/q/c", .acl = {Acl{perms::kDelete, Id{"digest", alice}}}},
                admin).error,
            Error::Ok);
  EXPECT_EQ(err(DeleteRequest{"/q/c"}), Error::Ok);
}

TEST_F(AclRules, SetDataNeedsWrite) {
  make("/p", perms::kAll & ~perms::kWrite);
  EXPECT_EQ(err(SetDataRequest{"/p", "x"}), Error::NoAuth);
  make("/q", perms::kWrite);
  EXPECT_EQ(err(SetDataRequest{"/q", "x"}), Error::Ok);
}

TEST_F(AclRules, ReadsNeedRead) {
  make("/p", perms::kAll & ~perms::kRead);
  EXPECT_EQ(err(GetDataRequest{"/p"}), Error::NoAuth);
  EXPECT_EQ(err(GetChildrenRequest{"/p"}), Error::NoAuth);
  EXPECT_EQ(err(GetAllChildrenNumberRequest{"/p"}), Error::NoAuth);
  EXPECT_EQ(err(MultiRequest{{CheckRequest{"/p"}}}), Error::NoAuth);
  EXPECT_EQ(err(GetDataRequest{"/p"}, admin), Error::Ok);
}

TEST_F(AclRules, ExistsNeedsNoPermission) {
  make("/p", 0);
  EXPECT_EQ(err(ExistsRequest{"/p"}), Error::Ok);
}

TEST_F(AclRules, NoWatchIsLeftByADeniedRead) {
  make("/p", 0);
  EXPECT_EQ(err(GetDataRequest{"/p", true}), Error::NoAuth);
  EXPECT_EQ(err(GetChildrenRequest{"/p", true}), Error::NoAuth);
  EXPECT_TRUE(server.watches_of(s1).empty());
}

TEST_F(AclRules, SetAclNeedsAdminAndBumpsAversion) {
  make("/p", perms::kAll & ~perms::kAdmin);
  EXPECT_EQ(err(SetAclRequest{"/p", open_acl()}), Error::NoAuth);
  Outcome o = run(SetAclRequest{"/p", open_acl(), Version{0}}, admin);
  ASSERT_EQ(o.error, Error::Ok);
  Stat s = std::get<StatResponse>(o.response).stat;
  EXPECT_EQ(s.aversion, 1);
  EXPECT_EQ(s.version, 0);
  EXPECT_NE(s.mzxid, o.zxid.value);  // setACL is not a data change
  EXPECT_EQ(err(SetAclRequest{"/p", open_acl(), Version{0}}), Error::BadVersion);
  EXPECT_EQ(err(SetAclRequest{"/p", open_acl(), Version{1}}), Error::Ok);
}

TEST_F(AclRules, GetAclNeedsReadOrAdminAndHidesDigestsWithoutAdmin) {
  make("/none", 0);
  EXPECT_EQ(err(GetAclRequest{"/none"}), Error::NoAuth);
  make("/read", perms::kRead);
  auto read = std::get<AclResponse>(run(GetAclRequest{"/read"}).response);
  EXPECT_EQ(read.acl[0].id.id, "alice:x");
  make("/admin", perms::kAdmin);
  auto admin_view = std::get<AclResponse>(run(GetAclRequest{"/admin"}).response);
  EXPECT_EQ(admin_view.acl[0].id.id, alice);
}

TEST_F(AclRules, IpSchemeMatchesTheClientAddress) {
  SessionId local = server.open_session(4000, now, "127.0.0.1").id;
  SessionId remote = server.open_session(4000, now, "10.1.2.3").id;
  AclList lo = {Acl{perms::kAll, Id{"ip", "127.0.0.0/8"}}};
  ASSERT_EQ(run(CreateRequest{.path = "/lo", .acl = lo}, local).error, Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/lo"}, local), Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/lo"}, remote), Error::NoAuth);
  AclList exact = {Acl{perms::kAll, Id{"ip", "10.1.2.3"}}};
  ASSERT_EQ(run(CreateRequest{.path = "/ten", .acl = exact}, remote).error, Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/ten"}, remote), Error::Ok);
  EXPECT_EQ(err(GetDataRequest{"/ten"}, local), Error::NoAuth);
}

TEST_F(AclRules, IpIsNotAnAuthenticatedSchemeForAuthAcls) {
  // "auth" expands only to authenticated ids (digest), never the ip id.
  EXPECT_EQ(err(CreateRequest{.path = "/a", .acl = creator_all_acl()}), Error::InvalidAcl);
  ASSERT_EQ(run(CreateRequest{.path = "/b", .acl = creator_all_acl()}, admin).error, Error::Ok);
  EXPECT_EQ(server.node("/b")->acl.size(), 1u);
}

}  // namespace
}  // namespace zksim::test
