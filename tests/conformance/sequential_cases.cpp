// Sequential names: the suffix is the parent's count of child creates.
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(Sequential, FirstChildGetsSuffixZero) {
  Client& zk = env.a();
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, EmptyPrefixNamesTheChildByNumberOnly) {
  Client& zk = env.a();
  rec.put("seq ''", co_await zk.create(env.root() + "/", "d", CreateMode::PersistentSequential));
  rec.put("seq ''", co_await zk.create(env.root() + "/", "", CreateMode::EphemeralSequential));
  rec.put("children", co_await zk.get_children(env.root()));
}

CONFORMANCE_CASE(Sequential, PlainChildCreatesAdvanceTheCounter) {
  Client& zk = env.a();
  rec.put("plain a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("plain b", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, AllSequentialModesShareOneCounter) {
  Client& zk = env.a();
  rec.put("pseq", co_await zk.create(env.path("p-"), "", CreateMode::PersistentSequential));
  rec.put("eseq", co_await zk.create(env.path("e-"), "", CreateMode::EphemeralSequential));
  rec.put("ttlseq", co_await zk.create(env.path("t-"), "", CreateMode::PersistentSequentialWithTtl,
                                        open_acl(), 100'000));
  rec.put("pseq", co_await zk.create(env.path("p-"), "", CreateMode::PersistentSequential));
  rec.put("rm ttl", co_await zk.remove(env.path("t-0000000002")));
}

CONFORMANCE_CASE(Sequential, FailedCreatesDoNotAdvanceTheCounter) {
  Client& zk = env.a();
  rec.put("plain a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("again a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("missing parent", co_await zk.create(env.path("m/x"), "", CreateMode::Persistent));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Sequential, ChildDeletesDoNotAdvanceTheCounter) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("b", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
  rec.put("rm a", co_await zk.remove(env.path("a")));
  rec.put("rm b", co_await zk.remove(env.path("b")));
  rec.put("root", co_await zk.exists(env.root()));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, TakenNameFailsUntilAnotherChildIsCreated) {
  Client& zk = env.a();
  rec.put("x1", co_await zk.create(env.path("x0000000001"), "", CreateMode::Persistent));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
  rec.put("other", co_await zk.create(env.path("other"), "", CreateMode::Persistent));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, FailedMultiDoesNotAdvanceTheCounter) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("x"), "", open_acl(), CreateMode::PersistentSequential});
  ops.push_back(DeleteRequest{env.path("missing")});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("seq x", co_await zk.create(env.path("x"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, MultiSeesItsOwnEarlierCreates) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("a"), "", open_acl(), CreateMode::PersistentSequential});
  ops.push_back(CreateRequest{env.path("a"), "", open_acl(), CreateMode::PersistentSequential});
  ops.push_back(CreateRequest{env.path("b"), "", open_acl(), CreateMode::Persistent});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("children", co_await zk.get_children(env.root()));
}

CONFORMANCE_CASE(Sequential, EmptyPrefixUnderADeeperParent) {
  Client& zk = env.a();
  rec.put("p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("seq p/", co_await zk.create(env.path("p/"), "", CreateMode::PersistentSequential));
  rec.put("seq missing/", co_await zk.create(env.path("q/"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, TrailingDotIsAllowedForSequential) {
  Client& zk = env.a();
  rec.put("seq .", co_await zk.create(env.path("."), "", CreateMode::PersistentSequential));
  rec.put("seq ..", co_await zk.create(env.path(".."), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Sequential, EphemeralSequentialIsOwnedByTheSession) {
  Client& zk = env.a();
  auto made = co_await zk.create(env.path("lock-"), "", CreateMode::EphemeralSequential);
  rec.put("eseq", made);
  if (made) rec.put("exists", co_await zk.exists(made->path));
}

CONFORMANCE_CASE(Sequential, SuffixFollowsCreatesAfterDeletes) {
  Client& zk = env.a();
  for (int i = 0; i < 3; ++i) {
    auto made = co_await zk.create(env.path("n-"), "", CreateMode::PersistentSequential);
    rec.put("seq", made);
    if (made) rec.put("rm", co_await zk.remove(made->path));
  }
  rec.put("root", co_await zk.exists(env.root()));
}

}  // namespace
}  // namespace zksim
