// One-shot watches: which call leaves which watch, what fires it, and who hears.
#include "harness.h"

#include <fmt/format.h>

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(Watch, ExistsOnMissingNodeFiresOnCreate) {
  Client& zk = env.a();
  Seen w;
  rec.put("exists", co_await zk.exists(env.path("a"), w.watcher()));
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, ExistsOnExistingNodeFiresOnSetData) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("a"), w.watcher()));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.put("set", co_await zk.set_data(env.path("a"), "y"));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, ExistsOnExistingNodeFiresOnDelete) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("a"), w.watcher()));
  rec.put("rm", co_await zk.remove(env.path("a")));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetDataWatchFiresOnSetDataAndIsOneShot) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), w.watcher()));
  for (int i = 0; i < 3; ++i) rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetDataWatchFiresOnDelete) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), w.watcher()));
  rec.put("rm", co_await zk.remove(env.path("a")));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetDataOnMissingNodeLeavesNoWatch) {
  Client& zk = env.a();
  Seen w;
  rec.put("get", co_await zk.get_data(env.path("a"), w.watcher()));
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetChildrenWatchFiresOnChildCreate) {
  Client& zk = env.a();
  Seen w;
  rec.put("children", co_await zk.get_children(env.root(), w.watcher()));
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("create", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetChildrenWatchFiresOnChildDelete) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("children", co_await zk.get_children(env.root(), w.watcher()));
  rec.put("rm", co_await zk.remove(env.path("a")));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetChildrenWatchIgnoresDataAndGrandchildren) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("children", co_await zk.get_children(env.root(), w.watcher()));
  rec.put("set root", co_await zk.set_data(env.root(), "x"));
  rec.put("set child", co_await zk.set_data(env.path("a"), "x"));
  rec.put("grandchild", co_await zk.create(env.path("a/g"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
  rec.put("create", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, GetChildrenOnMissingNodeLeavesNoWatch) {
  Client& zk = env.a();
  Seen w;
  rec.put("children", co_await zk.get_children(env.path("p"), w.watcher()));
  rec.put("create p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("create p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, NodeDeletedReachesDataAndChildWatchers) {
  Client& zk = env.a();
  Seen data, child, exist;
  rec.put("create", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("p"), data.watcher()));
  rec.put("children", co_await zk.get_children(env.path("p"), child.watcher()));
  rec.put("exists", co_await zk.exists(env.path("p"), exist.watcher()));
  rec.put("rm", co_await zk.remove(env.path("p")));
  co_await settle(zk);
  rec.events("data", data.events);
  rec.events("child", child.events);
  rec.events("exist", exist.events);
}

CONFORMANCE_CASE(Watch, EachRegisteredWatcherHearsTheOneEvent) {
  Client& zk = env.a();
  Seen w1, w2;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("exists", co_await zk.exists(env.path("a"), w1.watcher()));
  rec.put("get", co_await zk.get_data(env.path("a"), w2.watcher()));
  rec.put("exists again", co_await zk.exists(env.path("a"), w1.watcher()));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  co_await settle(zk);
  rec.events("w1", w1.events);
  rec.events("w2", w2.events);
}

CONFORMANCE_CASE(Watch, OwnWriteEventArrivesBeforeTheReply) {
  Client& zk = env.a();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), w.watcher()));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.events("w at reply", w.events);
}

CONFORMANCE_CASE(Watch, AnotherSessionsWriteFiresTheWatch) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Seen w;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("b get", co_await b->get_data(env.path("a"), w.watcher()));
  rec.put("a set", co_await zk.set_data(env.path("a"), "x"));
  rec.line(fmt::format("arrived: {}", co_await wait_events(*b, w, 1)));
  rec.events("b", w.events);
}

CONFORMANCE_CASE(Watch, FailedWritesFireNothing) {
  Client& zk = env.a();
  Seen w, c;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), w.watcher()));
  rec.put("children", co_await zk.get_children(env.path("a"), c.watcher()));
  rec.put("set bad", co_await zk.set_data(env.path("a"), "x", Version(9)));
  rec.put("rm bad", co_await zk.remove(env.path("a"), Version(9)));
  rec.put("create no parent", co_await zk.create(env.path("a/m/x"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
  rec.events("c", c.events);
}

CONFORMANCE_CASE(Watch, SuccessfulMultiFiresInOpOrderFailedMultiNothing) {
  Client& zk = env.a();
  Seen w1, w2;
  rec.put("x", co_await zk.create(env.path("x"), "", CreateMode::Persistent));
  rec.put("exists w1", co_await zk.exists(env.path("w1"), w1.watcher()));
  rec.put("exists x", co_await zk.exists(env.path("x"), w2.watcher()));
  std::vector<MultiOp> bad;
  bad.push_back(CreateRequest{env.path("w1"), "", open_acl(), CreateMode::Persistent});
  bad.push_back(DeleteRequest{env.path("missing")});
  rec.put("failed multi", co_await zk.multi(std::move(bad)));
  co_await settle(zk);
  rec.events("w1", w1.events);
  std::vector<MultiOp> good;
  good.push_back(CreateRequest{env.path("w1"), "", open_acl(), CreateMode::Persistent});
  good.push_back(SetDataRequest{env.path("x"), "d"});
  rec.put("multi", co_await zk.multi(std::move(good)));
  co_await settle(zk);
  rec.events("w1", w1.events);
  rec.events("w2", w2.events);
}

CONFORMANCE_CASE(Watch, CloseOfAnOwnerFiresDeletedThenChildren) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Seen all;
  rec.put("b eph", co_await b->create(env.path("e"), "", CreateMode::Ephemeral));
  rec.put("exists", co_await zk.exists(env.path("e"), all.watcher()));
  rec.put("children", co_await zk.get_children(env.root(), all.watcher()));
  rec.put("b close", co_await b->close());
  rec.line(fmt::format("arrived: {}", co_await wait_events(zk, all, 2)));
  rec.events("a", all.events);
  rec.put("exists", co_await zk.exists(env.path("e")));
}

CONFORMANCE_CASE(Watch, ExistsWatchOnMissingNodeSurvivesOtherChanges) {
  Client& zk = env.a();
  Seen w;
  rec.put("exists", co_await zk.exists(env.path("a"), w.watcher()));
  rec.put("create sibling", co_await zk.create(env.path("b"), "", CreateMode::Persistent));
  rec.put("set root", co_await zk.set_data(env.root(), "x"));
  co_await settle(zk);
  rec.events("w", w.events);
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
}

CONFORMANCE_CASE(Watch, WatchOnTheRootOfTheCaseSeesOnlyItsChildren) {
  Client& zk = env.a();
  Seen w;
  rec.put("create p", co_await zk.create(env.path("p"), "", CreateMode::Persistent));
  rec.put("children p", co_await zk.get_children(env.path("p"), w.watcher()));
  rec.put("create p/a", co_await zk.create(env.path("p/a"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("w", w.events);
  rec.put("children p", co_await zk.get_children(env.path("p"), w.watcher()));
}

}  // namespace
}  // namespace zksim
