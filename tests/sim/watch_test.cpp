// Watch rules of ZooKeeper 3.8's WatchManager and DataTree.
#include "fixture.h"

namespace zksim::test {
namespace {

class WatchRules : public ServerTest {
 protected:
  void SetUp() override { w = server.open_session(4000, now).id; }
  // The events that `o` sends to session `s`.
  static std::vector<WatchedEvent> to(const Outcome& o, SessionId s) {
    std::vector<WatchedEvent> out;
    for (const Notification& n : o.notifications) {
      if (n.session == s) out.push_back(n.event);
    }
    return out;
  }
  static WatchedEvent ev(EventType t, std::string path) {
    return WatchedEvent{t, KeeperState::SyncConnected, std::move(path)};
  }
  using Events = std::vector<WatchedEvent>;
  SessionId w;  // the watching session; s1 makes the changes
};

TEST_F(WatchRules, ExistsOnMissingNodeLeavesWatchThatFiresNodeCreated) {
  EXPECT_EQ(err(ExistsRequest{"/a", true}, w), Error::NoNode);
  EXPECT_EQ(to(create("/a"), w), (Events{ev(EventType::NodeCreated, "/a")}));
}

TEST_F(WatchRules, GetDataOnMissingNodeLeavesNoWatch) {
  EXPECT_EQ(err(GetDataRequest{"/a", true}, w), Error::NoNode);
  EXPECT_TRUE(to(create("/a"), w).empty());
  EXPECT_EQ(server.watch_count(), 0u);
}

TEST_F(WatchRules, GetChildrenOnMissingNodeLeavesNoWatch) {
  EXPECT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::NoNode);
  ASSERT_EQ(create("/a").error, Error::Ok);
  EXPECT_TRUE(to(create("/a/b"), w).empty());
}

TEST_F(WatchRules, ExistsWatchOnExistingNodeFiresDataChangedAndDeleted) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(ExistsRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(SetDataRequest{"/a", "x"}), w), (Events{ev(EventType::NodeDataChanged, "/a")}));
  ASSERT_EQ(err(ExistsRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a"}), w), (Events{ev(EventType::NodeDeleted, "/a")}));
}

TEST_F(WatchRules, DataWatchFiresNodeDataChangedOnSetData) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(SetDataRequest{"/a", "x"}), w), (Events{ev(EventType::NodeDataChanged, "/a")}));
}

TEST_F(WatchRules, DataWatchFiresNodeDeletedOnDelete) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a"}), w), (Events{ev(EventType::NodeDeleted, "/a")}));
}

TEST_F(WatchRules, DataWatchIgnoresChildChanges) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  EXPECT_TRUE(to(create("/a/b"), w).empty());
}

TEST_F(WatchRules, ChildWatchFiresOnChildCreateAndDelete) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(create("/a/b"), w), (Events{ev(EventType::NodeChildrenChanged, "/a")}));
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a/b"}), w), (Events{ev(EventType::NodeChildrenChanged, "/a")}));
}

TEST_F(WatchRules, ChildWatchFiresNodeDeletedWhenTheNodeGoes) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a"}), w), (Events{ev(EventType::NodeDeleted, "/a")}));
}

TEST_F(WatchRules, ChildWatchIgnoresSetDataAndGrandchildren) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(create("/a/b").error, Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_TRUE(to(run(SetDataRequest{"/a", "x"}), w).empty());
  EXPECT_TRUE(to(create("/a/b/c"), w).empty());
}

TEST_F(WatchRules, WatchesAreOneShot) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(SetDataRequest{"/a", "1"}), w).size(), 1u);
  EXPECT_TRUE(to(run(SetDataRequest{"/a", "2"}), w).empty());
}

TEST_F(WatchRules, OneEventPerSessionPerChangeEvenWithSeveralKinds) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(ExistsRequest{"/a", true}, w), Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a"}), w), (Events{ev(EventType::NodeDeleted, "/a")}));
  EXPECT_EQ(server.watch_count(), 0u);
}

TEST_F(WatchRules, EveryWatchingSessionIsNotifiedInSessionIdOrder) {
  SessionId w2 = server.open_session(4000, now).id;
  ASSERT_EQ(err(ExistsRequest{"/a", true}, w2), Error::NoNode);
  ASSERT_EQ(err(ExistsRequest{"/a", true}, w), Error::NoNode);
  Outcome o = create("/a");
  ASSERT_EQ(o.notifications.size(), 2u);
  EXPECT_EQ(o.notifications[0].session, w);
  EXPECT_EQ(o.notifications[1].session, w2);
}

TEST_F(WatchRules, CreateFiresNodeFirstThenParent) {
  ASSERT_EQ(create("/p").error, Error::Ok);
  ASSERT_EQ(err(ExistsRequest{"/p/c", true}, w), Error::NoNode);
  ASSERT_EQ(err(GetChildrenRequest{"/p", true}, w), Error::Ok);
  EXPECT_EQ(to(create("/p/c"), w), (Events{ev(EventType::NodeCreated, "/p/c"),
                                          ev(EventType::NodeChildrenChanged, "/p")}));
}

TEST_F(WatchRules, PersistentWatchSurvivesFiringAndSeesChildren) {
  ASSERT_EQ(err(AddWatchRequest{"/a", AddWatchMode::Persistent}, w), Error::Ok);
  EXPECT_EQ(to(create("/a"), w), (Events{ev(EventType::NodeCreated, "/a")}));
  EXPECT_EQ(to(run(SetDataRequest{"/a", "x"}), w), (Events{ev(EventType::NodeDataChanged, "/a")}));
  EXPECT_EQ(to(create("/a/b"), w), (Events{ev(EventType::NodeChildrenChanged, "/a")}));
  EXPECT_TRUE(to(create("/a/b/c"), w).empty());  // not recursive
  EXPECT_TRUE(to(run(SetDataRequest{"/a/b", "x"}), w).empty());
  ASSERT_EQ(err(DeleteRequest{"/a/b/c"}), Error::Ok);
  ASSERT_EQ(err(DeleteRequest{"/a/b"}), Error::Ok);
  EXPECT_EQ(to(run(DeleteRequest{"/a"}), w), (Events{ev(EventType::NodeDeleted, "/a")}));
  EXPECT_EQ(to(create("/a"), w), (Events{ev(EventType::NodeCreated, "/a")}));  // still there
}

TEST_F(WatchRules, RecursiveWatchSeesDescendantsButNoChildrenChanged) {
  ASSERT_EQ(err(AddWatchRequest{"/a", AddWatchMode::PersistentRecursive}, w), Error::Ok);
  EXPECT_EQ(to(create("/a"), w), (Events{ev(EventType::NodeCreated, "/a")}));
  EXPECT_EQ(to(create("/a/b"), w), (Events{ev(EventType::NodeCreated, "/a/b")}));
  EXPECT_EQ(to(create("/a/b/c"), w), (Events{ev(EventType::NodeCreated, "/a/b/c")}));
  EXPECT_EQ(to(run(SetDataRequest{"/a/b", "x"}), w),
            (Events{ev(EventType::NodeDataChanged, "/a/b")}));
  EXPECT_EQ(to(run(DeleteRequest{"/a/b/c"}), w), (Events{ev(EventType::NodeDeleted, "/a/b/c")}));
  EXPECT_TRUE(to(create("/other"), w).empty());
}

TEST_F(WatchRules, LastModeSetOnAPathWins) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(AddWatchRequest{"/a", AddWatchMode::Persistent}, w), Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);  // data watch back to standard
  EXPECT_EQ(to(run(SetDataRequest{"/a", "1"}), w).size(), 1u);
  EXPECT_TRUE(to(run(SetDataRequest{"/a", "2"}), w).empty());
  EXPECT_EQ(to(create("/a/b"), w).size(), 1u);  // the child side is still persistent
  EXPECT_EQ(to(create("/a/c"), w).size(), 1u);
}

TEST_F(WatchRules, RemoveWatchesByKind) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  EXPECT_EQ(err(RemoveWatchesRequest{"/a", WatcherType::Children}, w), Error::Ok);
  EXPECT_EQ(err(RemoveWatchesRequest{"/a", WatcherType::Children}, w), Error::NoWatcher);
  EXPECT_TRUE(to(create("/a/b"), w).empty());
  EXPECT_EQ(err(RemoveWatchesRequest{"/a", WatcherType::Any}, w), Error::Ok);
  EXPECT_TRUE(to(run(SetDataRequest{"/a", "x"}), w).empty());
  EXPECT_EQ(err(RemoveWatchesRequest{"/a", WatcherType::Any}, w), Error::NoWatcher);
}

// WatcherType.fromInt throws on another number; FinalRequestProcessor
// turns that into MARSHALLINGERROR. (The C client never sends one.)
TEST_F(WatchRules, RemoveWatchesOfAnUnknownKindIsMarshallingErrorAndRemovesNothing) {
  ASSERT_EQ(create("/a").error, Error::Ok);
  ASSERT_EQ(err(GetDataRequest{"/a", true}, w), Error::Ok);
  ASSERT_EQ(err(GetChildrenRequest{"/a", true}, w), Error::Ok);
  for (int type : {0, 4, -1}) {
    EXPECT_EQ(err(RemoveWatchesRequest{"/a", static_cast<WatcherType>(type)}, w),
              Error::MarshallingError);
  }
  EXPECT_EQ(server.watches_of(w), (std::vector<std::string>{"child /a", "data /a"}));
}

TEST_F(WatchRules, SetWatchesFiresWhatWasMissedAndRegistersTheRest) {
  ASSERT_EQ(create("/same").error, Error::Ok);
  ASSERT_EQ(create("/changed").error, Error::Ok);
  std::int64_t seen = server.last_zxid().value;
  ASSERT_EQ(err(SetDataRequest{"/changed", "x"}), Error::Ok);
  ASSERT_EQ(create("/born").error, Error::Ok);
  ASSERT_EQ(create("/same/kid").error, Error::Ok);
  SetWatchesRequest sw{.relative_zxid = seen,
                       .data = {"/same", "/changed", "/gone"},
                       .exist = {"/born", "/unborn"},
                       .child = {"/same", "/changed", "/gone"}};
  Outcome o = run(sw, w);
  EXPECT_EQ(o.notifications.size(), 5u);
  EXPECT_EQ(to(o, w), (Events{ev(EventType::NodeDataChanged, "/changed"),
                              ev(EventType::NodeDeleted, "/gone"),
                              ev(EventType::NodeCreated, "/born"),
                              ev(EventType::NodeChildrenChanged, "/same"),
                              ev(EventType::NodeDeleted, "/gone")}));
  EXPECT_EQ(server.watches_of(w),
            (std::vector<std::string>{"child /changed", "data /same", "data /unborn"}));
}

}  // namespace
}  // namespace zksim::test
