// removeAllWatches (remove_all_watches, local = false): which watchers each
// kind takes, NoWatcher, other sessions, and what the client refuses.
#include "harness.h"

#include <fmt/format.h>

namespace zksim {
namespace {

using namespace conf;

CONFORMANCE_CASE(RemoveAll, DataTakesGetDataAndExistsWatchersAndLeavesChildren) {
  Client& zk = env.a();
  Seen data, exist, child;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), data.watcher()));
  rec.put("exists", co_await zk.exists(env.path("a"), exist.watcher()));
  rec.put("children", co_await zk.get_children(env.path("a"), child.watcher()));
  rec.put("remove data", co_await zk.remove_all_watches(env.path("a"), WatcherType::Data));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.put("create child", co_await zk.create(env.path("a/k"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("data", data.events);
  rec.events("exist", exist.events);
  rec.events("child", child.events);
  rec.put("remove data again", co_await zk.remove_all_watches(env.path("a"), WatcherType::Data));
}

CONFORMANCE_CASE(RemoveAll, ChildrenLeavesDataWatchers) {
  Client& zk = env.a();
  Seen data, child;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), data.watcher()));
  rec.put("children", co_await zk.get_children(env.path("a"), child.watcher()));
  rec.put("remove children",
          co_await zk.remove_all_watches(env.path("a"), WatcherType::Children));
  rec.put("create child", co_await zk.create(env.path("a/k"), "", CreateMode::Persistent));
  rec.put("rm child", co_await zk.remove(env.path("a/k")));
  rec.put("rm", co_await zk.remove(env.path("a")));
  co_await settle(zk);
  rec.events("data", data.events);
  rec.events("child", child.events);
}

CONFORMANCE_CASE(RemoveAll, AnyTakesEveryKind) {
  Client& zk = env.a();
  Seen data, child;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), data.watcher()));
  rec.put("children", co_await zk.get_children(env.path("a"), child.watcher()));
  rec.put("remove any", co_await zk.remove_all_watches(env.path("a"), WatcherType::Any));
  rec.put("remove any again", co_await zk.remove_all_watches(env.path("a"), WatcherType::Any));
  rec.put("create child", co_await zk.create(env.path("a/k"), "", CreateMode::Persistent));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  co_await settle(zk);
  rec.events("data", data.events);
  rec.events("child", child.events);
}

CONFORMANCE_CASE(RemoveAll, NoWatcherWhenTheSessionHasNoneOfThatKind) {
  Client& zk = env.a();
  Seen data;
  rec.put("missing node", co_await zk.remove_all_watches(env.path("a"), WatcherType::Any));
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("no watch", co_await zk.remove_all_watches(env.path("a"), WatcherType::Data));
  rec.put("get", co_await zk.get_data(env.path("a"), data.watcher()));
  rec.put("other kind", co_await zk.remove_all_watches(env.path("a"), WatcherType::Children));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.events("data", data.events);
  rec.put("after it fired", co_await zk.remove_all_watches(env.path("a"), WatcherType::Data));
}

CONFORMANCE_CASE(RemoveAll, AnExistsWatchOnAMissingNodeIsADataWatch) {
  Client& zk = env.a();
  Seen exist;
  rec.put("exists", co_await zk.exists(env.path("a"), exist.watcher()));
  rec.put("remove children",
          co_await zk.remove_all_watches(env.path("a"), WatcherType::Children));
  rec.put("remove data", co_await zk.remove_all_watches(env.path("a"), WatcherType::Data));
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  co_await settle(zk);
  rec.events("exist", exist.events);
}

CONFORMANCE_CASE(RemoveAll, OtherSessionsKeepTheirWatches) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Seen mine, theirs;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("a get", co_await zk.get_data(env.path("a"), mine.watcher()));
  rec.put("b get", co_await b->get_data(env.path("a"), theirs.watcher()));
  rec.put("a remove", co_await zk.remove_all_watches(env.path("a"), WatcherType::Any));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));
  rec.line(fmt::format("arrived: {}", co_await wait_events(*b, theirs, 1)));
  co_await settle(zk);
  rec.events("a", mine.events);
  rec.events("b", theirs.events);
}

CONFORMANCE_CASE(RemoveAll, WhatTheClientRefuses) {
  Client& zk = env.a();
  Seen data;
  rec.put("create", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("get", co_await zk.get_data(env.path("a"), data.watcher()));
  rec.put("bad path", co_await zk.remove_all_watches(env.path("a/"), WatcherType::Data));
  rec.put("relative", co_await zk.remove_all_watches("a", WatcherType::Data));
  rec.put("kind 0", co_await zk.remove_all_watches(env.path("a"), static_cast<WatcherType>(0)));
  rec.put("kind 7", co_await zk.remove_all_watches(env.path("a"), static_cast<WatcherType>(7)));
  rec.put("set", co_await zk.set_data(env.path("a"), "x"));  // the watch is still there
  rec.events("data", data.events);
}

CONFORMANCE_CASE(RemoveAll, AfterExpiryOrCloseIsInvalidState) {
  Client* b = co_await env.open();
  Client* c = co_await env.open();
  Seen data;
  rec.put("create", co_await b->create(env.path("a"), "", CreateMode::Persistent));
  rec.put("b get", co_await b->get_data(env.path("a"), data.watcher()));
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.put("b remove", co_await b->remove_all_watches(env.path("a"), WatcherType::Data));
  rec.put("c close", co_await c->close());
  rec.put("c remove", co_await c->remove_all_watches(env.path("a"), WatcherType::Data));
}

}  // namespace
}  // namespace zksim
