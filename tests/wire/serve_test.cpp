// `zksim serve`'s loop on a free port, with Debian's ZooKeeper C client
// (libzookeeper-mt) as the client: the whole stack over real sockets.
#include "zksim/wire/serve_loop.h"

#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zksim::wire {
namespace {

struct Events {
  std::mutex mu;
  std::condition_variable cv;
  bool connected = false;
  std::vector<std::string> seen;  // "type path" of node events
};

void watcher(zhandle_t*, int type, int state, const char* path, void* ctx) {
  auto* e = static_cast<Events*>(ctx);
  std::lock_guard<std::mutex> lock(e->mu);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) e->connected = true;
  if (type != ZOO_SESSION_EVENT) e->seen.push_back(std::to_string(type) + " " + path);
  e->cv.notify_all();
}

class Served : public ::testing::Test {
 protected:
  void SetUp() override {
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    std::promise<int> port;
    auto listening = port.get_future();
    loop_ = std::thread([this, &port] {
      ServeOptions o;
      o.port = 0;
      o.server.tick_ms = 200;
      error_ = serve(o, stop_, [&port](int p) { port.set_value(p); });
    });
    hosts_ = "127.0.0.1:" + std::to_string(listening.get());
  }
  void TearDown() override {
    stop_ = true;
    loop_.join();
    EXPECT_EQ(error_, "");
  }
  zhandle_t* connect(Events& e) {
    zhandle_t* zh = zookeeper_init(hosts_.c_str(), watcher, 4000, nullptr, &e, 0);
    std::unique_lock<std::mutex> lock(e.mu);
    EXPECT_TRUE(e.cv.wait_for(lock, std::chrono::seconds(10), [&] { return e.connected; }));
    return zh;
  }

  std::atomic<bool> stop_{false};
  std::thread loop_;
  std::string error_;
  std::string hosts_;
};

TEST_F(Served, TheCClientCreatesReadsWatchesAndCloses) {
  Events a;
  Events b;
  zhandle_t* za = connect(a);
  zhandle_t* zb = connect(b);
  char name[128];
  ASSERT_EQ(zoo_create(za, "/s", "v", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
  ASSERT_EQ(zoo_create(za, "/s/q-", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, name, sizeof name), ZOK);
  EXPECT_STREQ(name, "/s/q-0000000000");
  char buf[16];
  int len = sizeof buf;
  ::Stat st;  // the C client's, not zksim::Stat
  ASSERT_EQ(zoo_wget(za, "/s", watcher, &a, buf, &len, &st), ZOK);
  EXPECT_EQ(std::string(buf, len), "v");
  EXPECT_EQ(zoo_create(zb, "/s", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZNODEEXISTS);
  ASSERT_EQ(zoo_set(zb, "/s", "w", 1, 0), ZOK);
  {
    std::unique_lock<std::mutex> lock(a.mu);
    EXPECT_TRUE(a.cv.wait_for(lock, std::chrono::seconds(10), [&] { return !a.seen.empty(); }));
    EXPECT_EQ(a.seen, std::vector<std::string>{"3 /s"});  // NodeDataChanged
  }
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  zoo_create_op_init(&ops[0], "/s/m", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, nullptr, 0);
  zoo_check_op_init(&ops[1], "/s", 7);
  EXPECT_EQ(zoo_multi(zb, 2, ops, results), ZBADVERSION);
  EXPECT_EQ(zoo_exists(zb, "/s/m", 0, &st), ZNONODE);
  String_vector kids;
  ASSERT_EQ(zoo_get_children(zb, "/s", 0, &kids), ZOK);
  EXPECT_EQ(kids.count, 1);
  deallocate_String_vector(&kids);
  EXPECT_EQ(zookeeper_close(za), ZOK);  // its ephemeral goes with it
  ASSERT_EQ(zoo_get_children(zb, "/s", 0, &kids), ZOK);
  EXPECT_EQ(kids.count, 0);
  deallocate_String_vector(&kids);
  EXPECT_EQ(zookeeper_close(zb), ZOK);
}

}  // namespace
}  // namespace zksim::wire
