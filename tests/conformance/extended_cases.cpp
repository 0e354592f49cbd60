// Containers (reaped once their last child goes; the check runs every
// second, so cases wait up to 5 s) and TTL nodes.
#include "harness.h"

#include <fmt/format.h>

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(Container, StatShowsNoOwner) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("k"), "d", CreateMode::Container));
  rec.put("child", co_await zk.create(env.path("k/a"), "", CreateMode::Persistent));
  rec.put("k", co_await zk.exists(env.path("k")));
  // Child and container in one multi: removed one by one, the real
  // server's container check (every second here) may reap k in between.
  std::vector<MultiOp> rm;
  rm.push_back(DeleteRequest{env.path("k/a"), kAnyVersion});
  rm.push_back(DeleteRequest{env.path("k"), kAnyVersion});
  rec.put("rm child and k", co_await zk.multi(std::move(rm)));
}

CONFORMANCE_CASE(Container, DeletedAfterItsLastChildGoes) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("k"), "", CreateMode::Container));
  rec.put("child", co_await zk.create(env.path("k/a"), "", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("k"), w.watcher()));
  rec.put("rm child", co_await zk.remove(env.path("k/a")));
  rec.line(fmt::format("reaped: {}", co_await wait_events(zk, w, 1, 5000)));
  rec.events("w", w.events);
  rec.put("exists", co_await zk.exists(env.path("k")));
  rec.put("next", co_await zk.create(env.path("n"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Container, NeverUsedContainerStays) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("k"), "", CreateMode::Container));
  co_await zk.sleep(2500);
  rec.put("exists", co_await zk.exists(env.path("k")));
}

CONFORMANCE_CASE(Container, ContainerWithAChildStays) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("k"), "", CreateMode::Container));
  rec.put("child", co_await zk.create(env.path("k/a"), "", CreateMode::Persistent));
  co_await zk.sleep(2500);
  rec.put("exists", co_await zk.exists(env.path("k")));
  // Child and container in one multi: removed one by one, the real
  // server's container check (every second here) may reap k in between.
  std::vector<MultiOp> rm;
  rm.push_back(DeleteRequest{env.path("k/a"), kAnyVersion});
  rm.push_back(DeleteRequest{env.path("k"), kAnyVersion});
  rec.put("rm child and k", co_await zk.multi(std::move(rm)));
}

CONFORMANCE_CASE(Container, ChildCreatedAndDeletedInOneMultiGetsItReaped) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("k"), "", CreateMode::Container));
  rec.put("exists", co_await zk.exists(env.path("k"), w.watcher()));
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("k/a"), "", open_acl(), CreateMode::Persistent});
  ops.push_back(DeleteRequest{env.path("k/a")});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.line(fmt::format("reaped: {}", co_await wait_events(zk, w, 1, 5000)));
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Container, CreatedByMulti) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("k"), "", open_acl(), CreateMode::Container});
  ops.push_back(CreateRequest{env.path("k/a"), "", open_acl(), CreateMode::Ephemeral});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("k", co_await zk.exists(env.path("k")));
  // Child and container in one multi: removed one by one, the real
  // server's container check (every second here) may reap k in between.
  std::vector<MultiOp> rm;
  rm.push_back(DeleteRequest{env.path("k/a"), kAnyVersion});
  rm.push_back(DeleteRequest{env.path("k"), kAnyVersion});
  rec.put("rm child and k", co_await zk.multi(std::move(rm)));
}

CONFORMANCE_CASE(Container, NestedContainersBothGo) {
  Client& zk = env.a();
  Seen w;
  rec.put("outer", co_await zk.create(env.path("o"), "", CreateMode::Container));
  rec.put("inner", co_await zk.create(env.path("o/i"), "", CreateMode::Container));
  rec.put("leaf", co_await zk.create(env.path("o/i/x"), "", CreateMode::Persistent));
  rec.put("exists outer", co_await zk.exists(env.path("o"), w.watcher()));
  rec.put("rm leaf", co_await zk.remove(env.path("o/i/x")));
  rec.line(fmt::format("outer reaped: {}", co_await wait_events(zk, w, 1, 5000)));
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Container, EphemeralChildOfClosedSessionLeavesItToBeReaped) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Seen w;
  rec.put("create", co_await zk.create(env.path("k"), "", CreateMode::Container));
  rec.put("b child", co_await b->create(env.path("k/e"), "", CreateMode::Ephemeral));
  rec.put("exists", co_await zk.exists(env.path("k"), w.watcher()));
  rec.put("b close", co_await b->close());
  rec.line(fmt::format("reaped: {}", co_await wait_events(zk, w, 1, 5000)));
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Ttl, StatShowsNoOwner) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("t"), "d", CreateMode::PersistentWithTtl,
                                        open_acl(), 100'000));
  rec.put("t", co_await zk.exists(env.path("t")));
  rec.put("rm", co_await zk.remove(env.path("t")));
}

CONFORMANCE_CASE(Ttl, InvalidTtlsAreBadArguments) {
  Client& zk = env.a();
  rec.put("ttl 0", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl, open_acl(), 0));
  rec.put("ttl -1", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl, open_acl(), -1));
  rec.put("ttl 2^40", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl,
                                          open_acl(), 0x10000000000LL));
  rec.put("ttl max", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl,
                                         open_acl(), 0xFFFFFFFFFFLL));
  rec.put("rm", co_await zk.remove(env.path("t")));
  rec.put("next", co_await zk.create(env.path("n"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Ttl, TtlCheckComesBeforeParentAndExistence) {
  Client& zk = env.a();
  rec.put("ttl 0 no parent", co_await zk.create(env.path("m/t"), "", CreateMode::PersistentWithTtl,
                                                 open_acl(), 0));
  rec.put("ttl ok no parent", co_await zk.create(env.path("m/t"), "", CreateMode::PersistentWithTtl,
                                                  open_acl(), 1000));
  rec.put("root as ttl 0", co_await zk.create(env.root(), "", CreateMode::PersistentWithTtl,
                                               open_acl(), 0));
}

CONFORMANCE_CASE(Ttl, ChildlessNodeIsReapedAfterItsTtl) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl,
                                        open_acl(), 300));
  rec.put("exists", co_await zk.exists(env.path("t"), w.watcher()));
  rec.line(fmt::format("reaped: {}", co_await wait_events(zk, w, 1, 5000)));
  rec.events("w", w.events);
  rec.put("exists", co_await zk.exists(env.path("t")));
}

CONFORMANCE_CASE(Ttl, NodeWithAChildIsNotReaped) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl,
                                        open_acl(), 200));
  rec.put("child", co_await zk.create(env.path("t/a"), "", CreateMode::Persistent));
  co_await zk.sleep(2200);
  rec.put("exists", co_await zk.exists(env.path("t")));
  std::vector<MultiOp> ops;
  ops.push_back(DeleteRequest{env.path("t/a")});
  ops.push_back(DeleteRequest{env.path("t")});
  rec.put("rm both", co_await zk.multi(std::move(ops)));
}

CONFORMANCE_CASE(Ttl, SequentialTtlName) {
  Client& zk = env.a();
  rec.put("plain", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("ttl seq", co_await zk.create(env.path("t-"), "", CreateMode::PersistentSequentialWithTtl,
                                         open_acl(), 100'000));
  rec.put("rm", co_await zk.remove(env.path("t-0000000001")));
}

CONFORMANCE_CASE(Ttl, TtlCreateInMulti) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("t"), "", open_acl(), CreateMode::PersistentWithTtl, 100'000});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("t", co_await zk.exists(env.path("t")));
  auto gone = co_await zk.remove(env.path("t"));
  (void)gone;  // the node may not exist; only what multi did is compared
}

CONFORMANCE_CASE(Ttl, ChildrenOfTtlNodesAreAllowed) {
  Client& zk = env.a();
  rec.put("create", co_await zk.create(env.path("t"), "", CreateMode::PersistentWithTtl,
                                        open_acl(), 100'000));
  rec.put("eph child", co_await zk.create(env.path("t/e"), "", CreateMode::Ephemeral));
  rec.put("rm child", co_await zk.remove(env.path("t/e")));
  rec.put("rm", co_await zk.remove(env.path("t")));
}

CONFORMANCE_CASE(Ttl, NonTtlModeWithATtl) {
  Client& zk = env.a();
  rec.put("persistent ttl 1000", co_await zk.create(env.path("p"), "", CreateMode::Persistent,
                                                     open_acl(), 1000));
  rec.put("next", co_await zk.create(env.path("n"), "", CreateMode::Persistent));
}

}  // namespace
}  // namespace zksim
