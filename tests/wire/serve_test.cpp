// `zksim serve`'s loop on a free port, with Debian's ZooKeeper C client
// (libzookeeper-mt) as the client: the whole stack over real sockets.
#include "serve_thread.h"

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zksim::wire {
namespace {

using test::ask_tcp;
using test::ServeThread;

struct Events {
  std::mutex mu;
  std::condition_variable cv;
  bool connected = false;
  std::vector<std::string> seen;  // "type path" of node events
};

// The clients' session timeout. Whatever a test waits for, the client hears
// of it within about that long unless it is stuck (its connection gives up
// after 2/3 of it): the waits allow five, which no load runs out.
constexpr int kSessionMs = 4000;
constexpr auto kWait = std::chrono::milliseconds(5 * kSessionMs);

void watcher(zhandle_t*, int type, int state, const char* path, void* ctx) {
  auto* e = static_cast<Events*>(ctx);
  std::lock_guard<std::mutex> lock(e->mu);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) e->connected = true;
  if (type != ZOO_SESSION_EVENT) e->seen.push_back(std::to_string(type) + " " + path);
  e->cv.notify_all();
}

class Served : public ::testing::Test {
 protected:
  void SetUp() override { zoo_set_debug_level(static_cast<ZooLogLevel>(0)); }
  void TearDown() override {
    loop_.stop();
    EXPECT_EQ(loop_.error(), "");
  }
  zhandle_t* connect(Events& e) {
    zhandle_t* zh = zookeeper_init(loop_.hosts().c_str(), watcher, kSessionMs, nullptr, &e, 0);
    std::unique_lock<std::mutex> lock(e.mu);
    EXPECT_TRUE(e.cv.wait_for(lock, kWait, [&] { return e.connected; }));
    return zh;
  }
  // A control command over HTTP: the status line and the body.
  std::pair<std::string, std::string> command(const std::string& target) {
    const std::string reply = ask_tcp(loop_.control_port(), "GET " + target + " HTTP/1.1\r\nHost: zksim\r\n\r\n",
                                      5 * kSessionMs);
    const std::size_t body = reply.find("\r\n\r\n");
    return {reply.substr(0, reply.find("\r\n")), body == std::string::npos ? "" : reply.substr(body + 4)};
  }
  static std::string session_of(zhandle_t* zh) {
    return fmt::format("0x{:x}", static_cast<std::uint64_t>(zoo_client_id(zh)->client_id));
  }

  ServeThread loop_;
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
    EXPECT_TRUE(a.cv.wait_for(lock, kWait, [&] { return !a.seen.empty(); }));
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

// The control interface over HTTP, with the C client as the victim.
TEST_F(Served, TheControlInterfaceExpiresASessionTheClientHearsExpired) {
  Events e;
  zhandle_t* zh = connect(e);
  char name[64];
  ASSERT_EQ(zoo_create(zh, "/e", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, name, sizeof name), ZOK);
  const auto [status, body] = command("/commands/expire?session=" + session_of(zh));
  EXPECT_EQ(status, "HTTP/1.1 200 OK");
  EXPECT_EQ(body, R"({"command":"expire","error":null,"session":")" + session_of(zh) + "\"}\n");
  // Its connection closed, the client reconnects and is told it expired.
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (zoo_state(zh) != ZOO_EXPIRED_SESSION_STATE && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(zoo_state(zh), ZOO_EXPIRED_SESSION_STATE);
  zookeeper_close(zh);
  Events f;
  zhandle_t* other = connect(f);
  ::Stat st;
  EXPECT_EQ(zoo_exists(other, "/e", 0, &st), ZNONODE);
  zookeeper_close(other);
}

TEST_F(Served, ADropAfterApplyIsAConnectionLossOfAnAppliedRequest) {
  Events e;
  zhandle_t* zh = connect(e);
  EXPECT_EQ(command("/commands/drop?session=" + session_of(zh) + "&when=after&op=create").first, "HTTP/1.1 200 OK");
  char name[64];
  EXPECT_EQ(zoo_create(zh, "/d", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZCONNECTIONLOSS);
  // The client reconnects to the same session; the node is there.
  ::Stat st;
  int rc = ZCONNECTIONLOSS;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (rc == ZCONNECTIONLOSS && std::chrono::steady_clock::now() < deadline) rc = zoo_exists(zh, "/d", 0, &st);
  EXPECT_EQ(rc, ZOK);
  const auto [status, trace] = command("/commands/trace");
  EXPECT_EQ(status, "HTTP/1.1 200 OK");
  EXPECT_NE(trace.find("fault drop-after-apply applied ZOK, reply lost"), std::string::npos) << trace;
  zookeeper_close(zh);
}

}  // namespace
}  // namespace zksim::wire
