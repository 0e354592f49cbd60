// Errors and their precedence, and which failed writes use a zxid.
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(Errors, CreateExistingIsNodeExists) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("again", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("again eph", co_await zk.create(env.path("a"), "", CreateMode::Ephemeral));
}

CONFORMANCE_CASE(Errors, CreateUnderMissingParentIsNoNode) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("m/a"), "", CreateMode::Persistent));
  rec.put("seq", co_await zk.create(env.path("m/a"), "", CreateMode::PersistentSequential));
  rec.put("eph", co_await zk.create(env.path("m/a"), "", CreateMode::Ephemeral));
}

CONFORMANCE_CASE(Errors, ChildOfEphemeralIsNoChildrenForEphemerals) {
  Client& zk = env.a();
  rec.put("eph", co_await zk.create(env.path("e"), "", CreateMode::Ephemeral));
  rec.put("child", co_await zk.create(env.path("e/x"), "", CreateMode::Persistent));
  rec.put("eph child", co_await zk.create(env.path("e/x"), "", CreateMode::Ephemeral));
  rec.put("seq child", co_await zk.create(env.path("e/x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Errors, NodeExistsBeatsNoChildrenForEphemerals) {
  Client& zk = env.a();
  rec.put("eph", co_await zk.create(env.path("e"), "", CreateMode::Ephemeral));
  rec.put("eph again", co_await zk.create(env.path("e"), "", CreateMode::Ephemeral));
}

CONFORMANCE_CASE(Errors, ChildOfAnotherSessionsEphemeral) {
  Client* b = co_await env.open();
  rec.put("b eph", co_await b->create(env.path("e"), "", CreateMode::Ephemeral));
  rec.put("a child", co_await env.a().create(env.path("e/x"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Errors, DeleteMissingIsNoNode) {
  Client& zk = env.a();
  rec.put("rm", co_await zk.remove(env.path("a")));
  rec.put("rm v5", co_await zk.remove(env.path("a"), Version(5)));
}

CONFORMANCE_CASE(Errors, DeleteNonEmptyIsNotEmpty) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("rm p", co_await zk.remove(env.path("p")));
  rec.put("rm p v0", co_await zk.remove(env.path("p"), Version(0)));
}

CONFORMANCE_CASE(Errors, BadVersionBeatsNotEmpty) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("rm p v3", co_await zk.remove(env.path("p"), Version(3)));
}

CONFORMANCE_CASE(Errors, DeleteWithWrongVersion) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("rm v1", co_await zk.remove(env.path("a"), Version(1)));
  rec.put("rm v-2", co_await zk.remove(env.path("a"), Version(-2)));
  rec.put("rm v0", co_await zk.remove(env.path("a"), Version(0)));
}

CONFORMANCE_CASE(Errors, SetDataMissingIsNoNodeWhateverTheVersion) {
  Client& zk = env.a();
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.put("set v5", co_await zk.set_data(env.path("a"), "x", Version(5)));
}

CONFORMANCE_CASE(Errors, SetDataWithWrongVersion) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("set v1", co_await zk.set_data(env.path("a"), "x", Version(1)));
  rec.put("set v-2", co_await zk.set_data(env.path("a"), "x", Version(-2)));
  rec.put("a", co_await zk.exists(env.path("a")));
}

CONFORMANCE_CASE(Errors, ReadsOfMissingNodesAreNoNode) {
  Client& zk = env.a();
  rec.put("exists", co_await zk.exists(env.path("a")));
  rec.put("get", co_await zk.get_data(env.path("a")));
  rec.put("children", co_await zk.get_children(env.path("a")));
}

CONFORMANCE_CASE(Errors, DeleteRootIsBadArguments) {
  Client& zk = env.a();
  rec.put("rm /", co_await zk.remove("/"));
  rec.put("rm / v0", co_await zk.remove("/", Version(0)));
}

CONFORMANCE_CASE(Errors, SystemNodesCannotBeDeleted) {
  Client& zk = env.a();
  rec.put("rm /zookeeper", co_await zk.remove("/zookeeper"));
  rec.put("rm /zookeeper/quota", co_await zk.remove("/zookeeper/quota"));
  rec.put("rm /zookeeper/config", co_await zk.remove("/zookeeper/config"));
}

CONFORMANCE_CASE(Errors, CreateRootAndZookeeperAreNodeExists) {
  Client& zk = env.a();
  rec.put("create /", co_await zk.create("/", "", CreateMode::Persistent));
  rec.put("create /zookeeper", co_await zk.create("/zookeeper", "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Errors, ZookeeperConfigIsReadOnly) {
  Client& zk = env.a();
  rec.put("set config", co_await zk.set_data("/zookeeper/config", "x"));
  auto got = co_await zk.get_data("/zookeeper/config");
  rec.line(got ? "get config: ZOK " + rec.stat(got->stat) : "get config failed");
}

CONFORMANCE_CASE(Errors, SystemNodeStats) {
  Client& zk = env.a();
  rec.put("/zookeeper/quota", co_await zk.exists("/zookeeper/quota"));
  rec.put("/zookeeper children", co_await zk.get_children("/zookeeper"));
}

CONFORMANCE_CASE(Errors, FailedWritesUseAZxid) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("exists again", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("no parent", co_await zk.create(env.path("m/a"), "", CreateMode::Persistent));
  rec.put("rm missing", co_await zk.remove(env.path("m")));
  rec.put("set bad version", co_await zk.set_data(env.path("a"), "", Version(7)));
  rec.put("b", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Errors, ReadsAndSyncUseNoZxid) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("a")));
  rec.put("get", co_await zk.get_data(env.path("a")));
  rec.put("children", co_await zk.get_children(env.path("a")));
  rec.put("sync", co_await zk.sync(env.path("a")));
  rec.put("b", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Errors, SyncOfMissingPathIsOk) {
  Client& zk = env.a();
  rec.put("sync", co_await zk.sync(env.path("missing")));
}

CONFORMANCE_CASE(Errors, EmptyAclIsInvalidAclEvenForAnExistingNode) {
  Client& zk = env.a();
  AclList none;
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("empty acl existing", co_await zk.create(env.path("a"), "", CreateMode::Persistent, none));
  rec.put("empty acl no parent", co_await zk.create(env.path("m/a"), "", CreateMode::Persistent, none));
}

CONFORMANCE_CASE(Errors, CreateUnderZookeeperIsAllowed) {
  Client& zk = env.a();
  std::string p = "/zookeeper/" + env.root().substr(1);
  rec.put("create", co_await zk.create(p, "", CreateMode::Persistent));
  rec.put("rm", co_await zk.remove(p));
}

}  // namespace
}  // namespace zksim
