// multi: one result per op; on failure Ok before, the error, then
// RuntimeInconsistency after, and nothing applied.
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

CreateRequest create_op(std::string path, CreateMode mode = CreateMode::Persistent) {
  CreateRequest q;
  q.path = std::move(path);
  q.mode = mode;
  return q;
}

CONFORMANCE_CASE(Multi, SuccessListOfEveryOpKind) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(SetDataRequest{env.path("x"), "data"});
  ops.push_back(CheckRequest{env.path("x"), Version(1)});
  ops.push_back(create_op(env.path("s-"), CreateMode::EphemeralSequential));
  ops.push_back(DeleteRequest{env.path("a")});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("root", co_await zk.get_children(env.root()));
}

CONFORMANCE_CASE(Multi, FailureListIsOkErrorThenRuntimeInconsistency) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(create_op(env.path("x")));
  ops.push_back(SetDataRequest{env.path("x"), "data"});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("a", co_await zk.exists(env.path("a")));
  rec.put("x", co_await zk.exists(env.path("x")));
}

CONFORMANCE_CASE(Multi, FirstOpFailing) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(SetDataRequest{env.path("x"), "d", Version(4)});
  ops.push_back(create_op(env.path("a")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, CheckWithWrongVersion) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(CheckRequest{env.path("x"), Version(2)});
  ops.push_back(create_op(env.path("a")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, CheckOfMissingNodeIsNoNode) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CheckRequest{env.path("x"), kAnyVersion});
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, CheckAloneUsesAZxid) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(CheckRequest{env.path("x"), Version(0)});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("y", co_await zk.create(env.path("y"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Multi, EmptyMultiSucceedsAndUsesAZxid) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("y", co_await zk.create(env.path("y"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Multi, FailedMultiUsesOneZxid) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(DeleteRequest{env.path("missing")});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("y", co_await zk.create(env.path("y"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Multi, SeesItsOwnEarlierOps) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("p")));
  ops.push_back(create_op(env.path("p/c")));
  ops.push_back(SetDataRequest{env.path("p/c"), "v", Version(0)});
  ops.push_back(DeleteRequest{env.path("p/c"), Version(1)});
  ops.push_back(create_op(env.path("p/d")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("p", co_await zk.get_children(env.path("p")));
}

CONFORMANCE_CASE(Multi, CreateDeleteCreateTheSamePath) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(DeleteRequest{env.path("a")});
  ops.push_back(create_op(env.path("a")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("a", co_await zk.exists(env.path("a")));
}

CONFORMANCE_CASE(Multi, CreatingTheSameNodeTwice) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(create_op(env.path("a")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, ChildOfAnEphemeralCreatedInTheSameMulti) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("e"), CreateMode::Ephemeral));
  ops.push_back(create_op(env.path("e/k")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, DeleteOfNonEmptyNode) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(SetDataRequest{env.path("p"), "x"});
  ops.push_back(DeleteRequest{env.path("p")});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("p", co_await zk.exists(env.path("p")));
}

CONFORMANCE_CASE(Multi, MissingParentInTheSecondOp) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(create_op(env.path("a")));
  ops.push_back(create_op(env.path("m/b")));
  ops.push_back(create_op(env.path("c")));
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, DeleteThenRecreateWithChildren) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "old", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(DeleteRequest{env.path("p"), Version(0)});
  ops.push_back(create_op(env.path("p")));
  ops.push_back(create_op(env.path("p/k"), CreateMode::PersistentSequential));
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("p", co_await zk.get_data(env.path("p")));
}

CONFORMANCE_CASE(Multi, SetDataResultsCarryTheirStat) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(SetDataRequest{env.path("x"), "1"});
  ops.push_back(SetDataRequest{env.path("x"), "22"});
  rec.put("multi", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Multi, BadVersionAfterAnEarlierSetInTheSameMulti) {
  Client& zk = env.a();
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  std::vector<MultiOp> ops;
  ops.push_back(SetDataRequest{env.path("x"), "1", Version(0)});
  ops.push_back(SetDataRequest{env.path("x"), "2", Version(0)});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("x", co_await zk.get_data(env.path("x")));
}

}  // namespace
}  // namespace zksim
