// remove_all_watches through the simulated client: ZooKeeper's
// removeAllWatches (local = false) as the C client (3.8) does it. The
// server's watch and the library's watchers go together, by kind, for the
// whole handle; the server answers NoWatcher when it has none.
#include "world_fixture.h"

#include <algorithm>

namespace zksim::test {
namespace {

class RemoveAllWatches : public ::testing::Test {
 public:
  ListDecisions decisions{std::vector<std::uint32_t>{}};
  World world{quiet(), decisions};
  Client& zk = world.open("a");
  Client& other = world.open("b");
  std::vector<std::string> watches_of(const Client& c) {
    return world.server().watches_of(c.session_id());
  }
};

using Lines = std::vector<std::string>;

// Watch events only (a watcher also hears session events while registered).
std::vector<EventType> types(const Seen& s) {
  std::vector<EventType> out;
  for (const WatchedEvent& e : s.events) {
    if (e.type != EventType::None) out.push_back(e.type);
  }
  return out;
}

TEST_F(RemoveAllWatches, ARemovedDataWatchDoesNotFire) {
  Seen data;
  run(world, zk, [](Client& c, Seen& data) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", data.watcher());
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Data)).error(), Error::Ok);
    co_await c.set_data("/a", "x");  // an event would arrive before this reply
    co_await c.remove("/a");
  }(zk, data));
  EXPECT_TRUE(types(data).empty());
}

TEST_F(RemoveAllWatches, TheServersWatchCountDrops) {
  run(world, zk, [](Client& c, RemoveAllWatches& t) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", [](const WatchedEvent&) {});
    co_await c.get_children("/a", [](const WatchedEvent&) {});
    EXPECT_EQ(t.world.server().watch_count(), 2u);
    EXPECT_EQ(t.watches_of(c), (Lines{"child /a", "data /a"}));
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
    EXPECT_EQ(t.world.server().watch_count(), 1u);
    EXPECT_EQ(t.watches_of(c), (Lines{"child /a"}));
  }(zk, *this));
}

TEST_F(RemoveAllWatches, NoWatcherWhenTheSessionHasNoneOfThatKind) {
  Seen data;
  run(world, zk, [](Client& c, Seen& data) -> Task<> {
    EXPECT_EQ((co_await c.remove_all_watches("/missing", WatcherType::Any)).error(),
              Error::NoWatcher);
    co_await c.create("/a", "", CreateMode::Persistent);
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Data)).error(), Error::NoWatcher);
    co_await c.get_data("/a", data.watcher());
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Children)).error(),
              Error::NoWatcher);
    co_await c.set_data("/a", "x");  // the data watch was left alone, and fires
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Data)).error(), Error::NoWatcher);
  }(zk, data));
  EXPECT_EQ(types(data), (std::vector<EventType>{EventType::NodeDataChanged}));
}

TEST_F(RemoveAllWatches, RemovingDataLeavesTheChildWatch) {
  Seen data, child;
  run(world, zk, [](Client& c, Seen& data, Seen& child) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", data.watcher());
    co_await c.get_children("/a", child.watcher());
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
    co_await c.set_data("/a", "x");
    co_await c.create("/a/k", "", CreateMode::Persistent);
  }(zk, data, child));
  EXPECT_TRUE(types(data).empty());
  EXPECT_EQ(types(child), (std::vector<EventType>{EventType::NodeChildrenChanged}));
}

TEST_F(RemoveAllWatches, RemovingChildrenLeavesTheDataWatch) {
  Seen data, child;
  run(world, zk, [](Client& c, Seen& data, Seen& child) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", data.watcher());
    co_await c.get_children("/a", child.watcher());
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Children)).ok());
    co_await c.create("/a/k", "", CreateMode::Persistent);
    co_await c.remove("/a/k");
    co_await c.remove("/a");
  }(zk, data, child));
  EXPECT_EQ(types(data), (std::vector<EventType>{EventType::NodeDeleted}));
  EXPECT_TRUE(types(child).empty());
}

TEST_F(RemoveAllWatches, AnExistsWatchOnAMissingNodeIsADataWatch) {
  Seen exist;
  run(world, zk, [](Client& c, Seen& exist) -> Task<> {
    EXPECT_EQ((co_await c.exists("/a", exist.watcher())).error(), Error::NoNode);
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Children)).error(),
              Error::NoWatcher);
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
    co_await c.create("/a", "", CreateMode::Persistent);
  }(zk, exist));
  EXPECT_TRUE(types(exist).empty());
  EXPECT_EQ(world.server().watch_count(), 0u);
}

TEST_F(RemoveAllWatches, AnyRemovesEveryKind) {
  Seen exist, data, child;
  run(world, zk, [](Client& c, Seen& exist, Seen& data, Seen& child) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.exists("/a", exist.watcher());
    co_await c.get_data("/a", data.watcher());
    co_await c.get_children("/a", child.watcher());
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Any)).ok());
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Any)).error(), Error::NoWatcher);
    co_await c.create("/a/k", "", CreateMode::Persistent);
    co_await c.set_data("/a", "x");
  }(zk, exist, data, child));
  EXPECT_TRUE(types(exist).empty());
  EXPECT_TRUE(types(data).empty());
  EXPECT_TRUE(types(child).empty());
  EXPECT_EQ(world.server().watch_count(), 0u);
}

// The handle's watchers, whichever view set them; other sessions keep theirs.
TEST_F(RemoveAllWatches, EveryWatcherOfTheHandleGoesAndOtherSessionsKeepTheirs) {
  Client& thread2 = world.share(zk, "a-thread-2");
  Seen first, second, shared, theirs;
  run(world, zk,
      [](Client& c, Client& c2, Client& o, Seen& first, Seen& second, Seen& shared,
         Seen& theirs) -> Task<> {
        co_await c.create("/a", "", CreateMode::Persistent);
        co_await c.get_data("/a", first.watcher());
        co_await c.exists("/a", second.watcher());
        co_await c2.get_data("/a", shared.watcher());
        co_await o.get_data("/a", theirs.watcher());
        EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
        co_await c.set_data("/a", "x");
        co_await o.sync("/");  // the other session's event has arrived
      }(zk, thread2, other, first, second, shared, theirs));
  EXPECT_TRUE(types(first).empty());
  EXPECT_TRUE(types(second).empty());
  EXPECT_TRUE(types(shared).empty());
  EXPECT_EQ(types(theirs), (std::vector<EventType>{EventType::NodeDataChanged}));
}

// The library forgot the watcher: setWatches does not bring it back.
TEST_F(RemoveAllWatches, ARemovedWatchIsNotSetAgainOnReconnect) {
  Seen data;
  world.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<SyncRequest>));
  run(world, zk, [](Client& c, Client& o, Seen& data) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", data.watcher());
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
    EXPECT_EQ((co_await c.sync("/")).error(), Error::ConnectionLoss);
    EXPECT_TRUE((co_await c.sync("/")).ok());  // reconnected, setWatches sent
    co_await o.set_data("/a", "x");
    co_await c.sync("/");
  }(zk, other, data));
  EXPECT_TRUE(types(data).empty());
  EXPECT_EQ(world.server().watch_count(), 0u);
}

// Applied or not, a removal whose reply is lost leaves the library's
// watchers, and reconnecting sets the watch again: a caller that wants it
// gone retries.
TEST_F(RemoveAllWatches, ConnectionLossLeavesTheWatchersAndReconnectingSetsThemAgain) {
  for (FaultKind fault : {FaultKind::DropBeforeApply, FaultKind::DropAfterApply}) {
    ListDecisions d({});
    World w(quiet(), d);
    Client& c = w.open("a");
    Seen data;
    w.schedule(on_nth(fault, 0, request_kind<RemoveWatchesRequest>));
    run(w, c, [](Client& c, Seen& data) -> Task<> {
      co_await c.create("/a", "", CreateMode::Persistent);
      co_await c.get_data("/a", data.watcher());
      EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Data)).error(),
                Error::ConnectionLoss);
      co_await c.sync("/");  // reconnected
      co_await c.set_data("/a", "x");
    }(c, data));
    EXPECT_EQ(types(data), (std::vector<EventType>{EventType::NodeDataChanged}))
        << fault_kind_name(static_cast<std::int32_t>(fault));
  }
}

// Data and Children take that half of a persistent watch off the server
// and leave the library's watcher; Any takes it all.
TEST_F(RemoveAllWatches, AKindRemovesHalfOfAPersistentWatchAndAnyRemovesIt) {
  Seen persistent;
  run(world, zk, [](Client& c, Seen& persistent) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.add_watch("/a", AddWatchMode::Persistent, persistent.watcher());
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Data)).ok());
    co_await c.set_data("/a", "x");                       // no event
    co_await c.create("/a/k", "", CreateMode::Persistent);  // NodeChildrenChanged
    EXPECT_TRUE((co_await c.remove_all_watches("/a", WatcherType::Any)).ok());
    co_await c.create("/a/l", "", CreateMode::Persistent);  // no event
  }(zk, persistent));
  EXPECT_EQ(types(persistent), (std::vector<EventType>{EventType::NodeChildrenChanged}));
  EXPECT_EQ(world.server().watch_count(), 0u);
}

TEST_F(RemoveAllWatches, WhatTheClientRefusesNeverReachesTheServer) {
  run(world, zk, [](Client& c) -> Task<> {
    co_await c.create("/a", "", CreateMode::Persistent);
    co_await c.get_data("/a", [](const WatchedEvent&) {});
    EXPECT_EQ((co_await c.remove_all_watches("/a/", WatcherType::Data)).error(),
              Error::BadArguments);
    EXPECT_EQ((co_await c.remove_all_watches("/a", static_cast<WatcherType>(7))).error(),
              Error::NoWatcher);
    EXPECT_EQ((co_await c.remove_all_watches("/a", static_cast<WatcherType>(0))).error(),
              Error::NoWatcher);
    co_await c.close();
    EXPECT_EQ((co_await c.remove_all_watches("/a", WatcherType::Data)).error(),
              Error::InvalidState);
  }(zk));
  const auto& events = world.trace().events();
  EXPECT_EQ(std::count_if(events.begin(), events.end(),
                          [](const TraceEvent& e) {
                            return e.kind == TraceKind::Request &&
                                   e.code == request_kind<RemoveWatchesRequest>;
                          }),
            0);
}

}  // namespace
}  // namespace zksim::test
