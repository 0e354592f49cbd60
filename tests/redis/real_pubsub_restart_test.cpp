// Pub/sub with real subscriber connections, and a restart that loads the
// last SAVE, next to the model's subscribe/publish and snapshot/restore.
#include "real_fixture.h"

#include <signal.h>

#include <algorithm>

namespace zksim::redis {
namespace {

using RealPubSub = RedisConformance;
using RealRestart = RedisConformance;

const SubscriberId kA{1}, kB{2};

Reply message(const std::string& channel, const std::string& payload) {
  return Reply::array({Reply::bulk("message"), Reply::bulk(channel), Reply::bulk(payload)});
}

TEST_F(RealPubSub, SubscribePublishUnsubscribe) {
  auto a = connect();
  auto b = connect();
  both({"PUBLISH", "ch", "nobody"});
  EXPECT_EQ(a->command({"SUBSCRIBE", "ch"}), model.subscribe(kA, "ch"));
  EXPECT_EQ(a->command({"SUBSCRIBE", "other"}), model.subscribe(kA, "other"));
  EXPECT_EQ(a->command({"SUBSCRIBE", "ch"}), model.subscribe(kA, "ch"));
  EXPECT_EQ(b->command({"SUBSCRIBE", "ch"}), model.subscribe(kB, "ch"));

  both({"PUBLISH", "ch", "m1"});
  EXPECT_EQ(published, (std::vector<Message>{{kA, "ch", "m1"}, {kB, "ch", "m1"}}));
  EXPECT_EQ(a->read(), message("ch", "m1"));
  EXPECT_EQ(b->read(), message("ch", "m1"));

  EXPECT_EQ(a->command({"UNSUBSCRIBE", "ch"}), model.unsubscribe(kA, "ch"));
  EXPECT_EQ(a->command({"UNSUBSCRIBE", "ch"}), model.unsubscribe(kA, "ch"));
  published.clear();
  both({"PUBLISH", "ch", "m2"});
  EXPECT_EQ(published, (std::vector<Message>{{kB, "ch", "m2"}}));
  EXPECT_EQ(b->read(), message("ch", "m2"));
  both({"PUBLISH", "other", "m3"});
  EXPECT_EQ(a->read(), message("other", "m3"));
}

TEST_F(RealPubSub, UnsubscribeFromEverything) {
  auto a = connect();
  for (const char* ch : {"b", "a", "c"}) EXPECT_EQ(a->command({"SUBSCRIBE", ch}), model.subscribe(kA, ch));
  std::vector<Reply> real_replies{a->command({"UNSUBSCRIBE"}), a->read(), a->read()};
  std::vector<Reply> model_replies = model.unsubscribe_all(kA);
  // The server's order is its hash table's; the channels and the counts
  // (2, 1, 0 in the order given) must match.
  auto channels = [](const std::vector<Reply>& rs) {
    std::vector<std::string> out;
    for (const Reply& r : rs) out.push_back(r.elements.at(1).text);
    std::sort(out.begin(), out.end());
    return out;
  };
  auto counts = [](const std::vector<Reply>& rs) {
    std::vector<std::int64_t> out;
    for (const Reply& r : rs) out.push_back(r.elements.at(2).integer);
    return out;
  };
  EXPECT_EQ(channels(real_replies), channels(model_replies));
  EXPECT_EQ(counts(real_replies), counts(model_replies));
  EXPECT_EQ(a->command({"UNSUBSCRIBE"}), model.unsubscribe_all(kA).at(0));
  both({"PUBLISH", "a", "m"});
}

// SAVE, more writes, a crash (SIGKILL) and a start that loads dump.rdb: the
// writes after the SAVE are lost, deadlines are absolute (the downtime
// counted against them), a key past its deadline at load is gone, and the
// function library came back with the data.
TEST_F(RealRestart, ARestartLoadsTheLastSaveOnly) {
  both({"SET", "saved", "1"});
  both({"HSET", "h", "f", "1"});
  both({"SET", "short", "v", "PX", "200"});
  both({"SET", "long", "v", "PX", "60000"});
  ASSERT_EQ(real({"SAVE"}), Reply::ok());
  const Snapshot rdb = model.snapshot();
  both({"SET", "unsaved", "1"});
  both({"HSET", "h", "g", "1"});
  both({"DEL", "saved"});

  sleep_ms(300);  // "short" runs out while the server is down
  ASSERT_TRUE(redis_server().restart(SIGKILL)) << redis_server().error();
  model.restore(rdb, wall_ms());
  reconnect();

  both({"GET", "saved"});
  both({"EXISTS", "unsaved", "short"});
  both({"HLEN", "h"});
  both({"HGET", "h", "g"});
  both_pttl("long", 50);
  EXPECT_LT(sim({"PTTL", "long"}).integer, 60000 - 250);
  both({"FCALL", std::string(scripts::kRLockTryLock), "1", "lock", "30000", "c1:1"});
}

TEST_F(RealRestart, ARestartEndsEverySubscription) {
  auto a = connect();
  EXPECT_EQ(a->command({"SUBSCRIBE", "ch"}), model.subscribe(kA, "ch"));
  ASSERT_EQ(real({"SAVE"}), Reply::ok());
  const Snapshot rdb = model.snapshot();
  ASSERT_TRUE(redis_server().restart(SIGKILL)) << redis_server().error();
  model.restore(rdb, wall_ms());
  reconnect();
  both({"PUBLISH", "ch", "m"});
}

}  // namespace
}  // namespace zksim::redis
