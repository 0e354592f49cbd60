// ACLs as an unauthenticated client sees them (the Client interface has no
// addAuth): world read-only, digest ids, validation, and how NoAuth ranks.
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

// alice:secret, as ZooKeeper's DigestAuthenticationProvider encodes it.
AclList alice(int perms = perms::kAll) {
  AclList acl;
  acl.push_back(Acl{perms, Id{"digest", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E="}});
  return acl;
}

AclList world(int perms) {
  AclList acl;
  acl.push_back(Acl{perms, Id{"world", "anyone"}});
  return acl;
}

CONFORMANCE_CASE(Acl, ReadOnlyNodeCanBeReadNotWritten) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("r"), "d", CreateMode::Persistent, read_acl()));
  rec.put("get", co_await zk.get_data(env.path("r")));
  rec.put("children", co_await zk.get_children(env.path("r")));
  rec.put("set", co_await zk.set_data(env.path("r"), "x"));
  rec.put("child", co_await zk.create(env.path("r/a"), "", CreateMode::Persistent));
  rec.put("rm", co_await zk.remove(env.path("r")));
}

CONFORMANCE_CASE(Acl, DigestNodeDeniesTheAnonymousClient) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("d"), "d", CreateMode::Persistent, alice()));
  rec.put("exists", co_await zk.exists(env.path("d")));
  rec.put("get", co_await zk.get_data(env.path("d")));
  rec.put("children", co_await zk.get_children(env.path("d")));
  rec.put("set", co_await zk.set_data(env.path("d"), "x"));
  rec.put("child", co_await zk.create(env.path("d/a"), "", CreateMode::Persistent));
  rec.put("sync", co_await zk.sync(env.path("d")));
}

CONFORMANCE_CASE(Acl, NodesOwnAclDoesNotGuardItsDelete) {
  Client& zk = env.a();
  AclList none = world(0);
  rec.put("create", co_await zk.create(env.path("d"), "", CreateMode::Persistent, none));
  rec.put("get", co_await zk.get_data(env.path("d")));
  rec.put("rm", co_await zk.remove(env.path("d")));
}

CONFORMANCE_CASE(Acl, ParentWithoutCreateRanksNoAuthOverNodeExists) {
  Client& zk = env.a();
  AclList no_create = world(perms::kAll & ~perms::kCreate);
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("lock p", co_await zk.create(env.path("q"), "", CreateMode::Persistent, no_create));
  rec.put("q/a new", co_await zk.create(env.path("q/a"), "", CreateMode::Persistent));
  rec.put("seq under q", co_await zk.create(env.path("q/s"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Acl, NoAuthRanksOverNodeExistsForAnExistingChild) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  AclList no_create = world(perms::kAll & ~perms::kCreate);
  ops.push_back(CreateRequest{env.path("q"), "", no_create, CreateMode::Persistent});
  rec.put("q", co_await zk.multi(std::move(ops)));
  rec.put("q/a", co_await zk.create(env.path("q/a"), "", CreateMode::Persistent));
  rec.put("q itself again", co_await zk.create(env.path("q"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Acl, NoAuthRanksOverBadVersion) {
  Client& zk = env.a();
  rec.put("r", co_await zk.create(env.path("r"), "", CreateMode::Persistent, read_acl()));
  rec.put("set bad version", co_await zk.set_data(env.path("r"), "x", Version(5)));
}

CONFORMANCE_CASE(Acl, ParentWithoutDeleteRanksNoAuthOverNoNodeAndBadVersion) {
  Client& zk = env.a();
  AclList no_delete = world(perms::kAll & ~perms::kDelete);
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent, no_delete));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("rm missing", co_await zk.remove(env.path("p/m")));
  rec.put("rm bad version", co_await zk.remove(env.path("p/a"), Version(3)));
  rec.put("rm", co_await zk.remove(env.path("p/a")));
}

CONFORMANCE_CASE(Acl, AuthSchemeWithoutAuthIsInvalidAcl) {
  Client& zk = env.a();
  rec.put("creator all", co_await zk.create(env.path("a"), "", CreateMode::Persistent,
                                             creator_all_acl()));
  AclList mixed = creator_all_acl();
  mixed.push_back(Acl{perms::kRead, Id{"world", "anyone"}});
  rec.put("auth + world", co_await zk.create(env.path("a"), "", CreateMode::Persistent, mixed));
  rec.put("next", co_await zk.create(env.path("n"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Acl, MalformedIdsAreInvalidAcl) {
  Client& zk = env.a();
  AclList nobody = world(perms::kAll);
  nobody[0].id.id = "nobody";
  AclList bad_digest = alice();
  bad_digest[0].id.id = "alice";
  AclList bad_ip;
  bad_ip.push_back(Acl{perms::kAll, Id{"ip", "notanip"}});
  AclList unknown;
  unknown.push_back(Acl{perms::kAll, Id{"magic", "x"}});
  rec.put("world:nobody", co_await zk.create(env.path("a"), "", CreateMode::Persistent, nobody));
  rec.put("digest alice", co_await zk.create(env.path("a"), "", CreateMode::Persistent, bad_digest));
  rec.put("ip notanip", co_await zk.create(env.path("a"), "", CreateMode::Persistent, bad_ip));
  rec.put("magic", co_await zk.create(env.path("a"), "", CreateMode::Persistent, unknown));
}

CONFORMANCE_CASE(Acl, IpAclOfAnotherNetworkDenies) {
  Client& zk = env.a();
  AclList other;
  other.push_back(Acl{perms::kAll, Id{"ip", "10.0.0.0/8"}});
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent, other));
  rec.put("get", co_await zk.get_data(env.path("a")));
}

CONFORMANCE_CASE(Acl, OddPermissionBitsAreAccepted) {
  Client& zk = env.a();
  AclList zero = world(0);
  AclList all_bits = world(0xFF);
  rec.put("perms 0", co_await zk.create(env.path("z"), "", CreateMode::Persistent, zero));
  rec.put("perms 0xff", co_await zk.create(env.path("f"), "", CreateMode::Persistent, all_bits));
  rec.put("get f", co_await zk.get_data(env.path("f")));
}

CONFORMANCE_CASE(Acl, WriteOnlyNodeDeniesReads) {
  Client& zk = env.a();
  AclList write_only = world(perms::kWrite);
  rec.put("create", co_await zk.create(env.path("w"), "", CreateMode::Persistent, write_only));
  rec.put("set", co_await zk.set_data(env.path("w"), "x"));
  rec.put("get", co_await zk.get_data(env.path("w")));
  rec.put("exists", co_await zk.exists(env.path("w")));
}

CONFORMANCE_CASE(Acl, NoAuthWatchIsNotLeft) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("d"), "", CreateMode::Persistent, alice()));
  rec.put("get", co_await zk.get_data(env.path("d"), w.watcher()));
  rec.put("rm", co_await zk.remove(env.path("d")));
  co_await settle(zk);
  rec.events("w", w.events);
}

}  // namespace
}  // namespace zksim
