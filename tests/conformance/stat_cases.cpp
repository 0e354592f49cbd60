// Every Stat field (but the times) after each kind of step.
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(Stat, CreateReturnsTheStatExistsReturns) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "hello", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("a")));
  rec.put("get", co_await zk.get_data(env.path("a")));
}

CONFORMANCE_CASE(Stat, EmptyDataHasLengthZero) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a")));
}

CONFORMANCE_CASE(Stat, SetDataBumpsVersionMzxidAndLength) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "x", CreateMode::Persistent));
  rec.put("set", co_await zk.set_data(env.path("a"), "longer"));
  rec.put("set", co_await zk.set_data(env.path("a"), ""));
  rec.put("get", co_await zk.get_data(env.path("a")));
}

CONFORMANCE_CASE(Stat, SetDataWithTheSameBytesStillBumpsVersion) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "same", CreateMode::Persistent));
  rec.put("set", co_await zk.set_data(env.path("a"), "same"));
  rec.put("set", co_await zk.set_data(env.path("a"), "same"));
}

CONFORMANCE_CASE(Stat, SetDataWithMatchingVersion) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("set v0", co_await zk.set_data(env.path("a"), "1", Version(0)));
  rec.put("set v1", co_await zk.set_data(env.path("a"), "2", Version(1)));
  rec.put("set v1 again", co_await zk.set_data(env.path("a"), "3", Version(1)));
}

CONFORMANCE_CASE(Stat, ChildCreateChangesParentCversionPzxidAndCount) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "data", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("p/b", co_await zk.create(env.path("p/b"), "", CreateMode::Ephemeral));
  rec.put("p", co_await zk.exists(env.path("p")));
}

CONFORMANCE_CASE(Stat, ChildDeleteChangesParentCversionPzxidAndCount) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("p/b", co_await zk.create(env.path("p/b"), "", CreateMode::Persistent));
  rec.put("rm p/a", co_await zk.remove(env.path("p/a")));
  rec.put("p", co_await zk.exists(env.path("p")));
  rec.put("rm p/b", co_await zk.remove(env.path("p/b")));
  rec.put("p", co_await zk.exists(env.path("p")));
}

CONFORMANCE_CASE(Stat, ChildSetDataLeavesTheParentAlone) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("set p/a", co_await zk.set_data(env.path("p/a"), "new"));
  rec.put("p", co_await zk.exists(env.path("p")));
}

CONFORMANCE_CASE(Stat, GrandchildCreateLeavesTheGrandparentAlone) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("p/a/b", co_await zk.create(env.path("p/a/b"), "", CreateMode::Persistent));
  rec.put("p", co_await zk.exists(env.path("p")));
  rec.put("p/a", co_await zk.exists(env.path("p/a")));
}

CONFORMANCE_CASE(Stat, EphemeralOwnerIsTheCreatingSession) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  rec.put("a eph", co_await zk.create(env.path("ea"), "", CreateMode::Ephemeral));
  rec.put("b eph", co_await b->create(env.path("eb"), "", CreateMode::Ephemeral));
  rec.put("a sees eb", co_await zk.exists(env.path("eb")));
  rec.put("b sees ea", co_await b->exists(env.path("ea")));
}

CONFORMANCE_CASE(Stat, DeleteAndRecreateStartsOver) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("a"), "1", CreateMode::Persistent));
  rec.put("set", co_await zk.set_data(env.path("a"), "2"));
  rec.put("rm", co_await zk.remove(env.path("a")));
  rec.put("create", co_await zk.create(env.path("a"), "3", CreateMode::Persistent));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Stat, CversionIsTwiceCreatesMinusChildren) {
  Client& zk = env.a();
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  for (const std::string& n : names) {
    rec.put("create", co_await zk.create(env.path(n), "", CreateMode::Persistent));
  }
  rec.put("rm b", co_await zk.remove(env.path("b")));
  rec.put("rm d", co_await zk.remove(env.path("d")));
  rec.put("root", co_await zk.get_children(env.root()));
}

CONFORMANCE_CASE(Stat, MultiWritesShareOneZxid) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("a"), "1", open_acl(), CreateMode::Persistent});
  ops.push_back(SetDataRequest{env.path("a"), "22"});
  ops.push_back(CreateRequest{env.path("b"), "", open_acl(), CreateMode::Persistent});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("a", co_await zk.get_data(env.path("a")));
  rec.put("b", co_await zk.get_data(env.path("b")));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Stat, ParentDataChangesLeaveCversionAlone) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  rec.put("set p", co_await zk.set_data(env.path("p"), "x"));
  rec.put("p", co_await zk.get_data(env.path("p")));
}

CONFORMANCE_CASE(Stat, LargeDataLength) {
  Client& zk = env.a();
  std::string data(100'000, 'z');
  rec.put("create", co_await zk.create(env.path("a"), data, CreateMode::Persistent));
  auto got = co_await zk.get_data(env.path("a"));
  rec.line(got ? "same data: " + std::to_string(got->data == data) : "get failed");
}

CONFORMANCE_CASE(Stat, BinaryDataRoundTrips) {
  Client& zk = env.a();
  std::string data("a\0b\xff", 4);
  rec.put("create", co_await zk.create(env.path("a"), data, CreateMode::Persistent));
  auto got = co_await zk.get_data(env.path("a"));
  rec.line(got ? "same data: " + std::to_string(got->data == data) : "get failed");
}

}  // namespace
}  // namespace zksim
