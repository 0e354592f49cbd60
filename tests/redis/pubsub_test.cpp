// Pub/sub: SUBSCRIBE, UNSUBSCRIBE, PUBLISH's receivers and count.
#include "model_fixture.h"

namespace zksim::redis {
namespace {

using RedisPubSub = RedisModel;

const SubscriberId kA{1}, kB{2}, kC{3};

Reply Sub(const char* kind, Reply channel, std::int64_t n) { return Reply::array({B(kind), std::move(channel), I(n)}); }

TEST_F(RedisPubSub, SubscribeRepliesTheConnectionsChannelCount) {
  EXPECT_EQ(node.subscribe(kA, "x"), Sub("subscribe", B("x"), 1));
  EXPECT_EQ(node.subscribe(kA, "y"), Sub("subscribe", B("y"), 2));
  EXPECT_EQ(node.subscribe(kA, "x"), Sub("subscribe", B("x"), 2));  // twice counts once
}

TEST_F(RedisPubSub, PublishCountsAndListsTheReceiversInSubscriptionOrder) {
  node.subscribe(kC, "ch");
  node.subscribe(kA, "ch");
  node.subscribe(kB, "other");
  node.subscribe(kA, "ch");
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), I(2));
  EXPECT_EQ(published, (std::vector<Message>{{kC, "ch", "m"}, {kA, "ch", "m"}}));
}

TEST_F(RedisPubSub, PublishToNoSubscriberIsZero) {
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), I(0));
  EXPECT_TRUE(published.empty());
}

TEST_F(RedisPubSub, UnsubscribeStopsDelivery) {
  node.subscribe(kA, "ch");
  node.subscribe(kB, "ch");
  EXPECT_EQ(node.unsubscribe(kA, "ch"), Sub("unsubscribe", B("ch"), 0));
  EXPECT_EQ(node.unsubscribe(kA, "ch"), Sub("unsubscribe", B("ch"), 0));
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}), I(1));
  EXPECT_EQ(published, (std::vector<Message>{{kB, "ch", "m"}}));
}

TEST_F(RedisPubSub, ResubscribingGoesToTheEndOfTheOrder) {
  node.subscribe(kA, "ch");
  node.subscribe(kB, "ch");
  node.unsubscribe(kA, "ch");
  node.subscribe(kA, "ch");
  run({"PUBLISH", "ch", "m"});
  EXPECT_EQ(published, (std::vector<Message>{{kB, "ch", "m"}, {kA, "ch", "m"}}));
}

TEST_F(RedisPubSub, UnsubscribeAllRepliesPerChannelInNameOrder) {
  node.subscribe(kA, "b");
  node.subscribe(kA, "a");
  EXPECT_EQ(node.unsubscribe_all(kA), (std::vector<Reply>{Sub("unsubscribe", B("a"), 1), Sub("unsubscribe", B("b"), 0)}));
  EXPECT_EQ(node.unsubscribe_all(kA), (std::vector<Reply>{Sub("unsubscribe", kNil, 0)}));
  EXPECT_EQ(run({"PUBLISH", "a", "m"}), I(0));
}

TEST_F(RedisPubSub, PublishWithoutACollectorStillCounts) {
  node.subscribe(kA, "ch");
  EXPECT_EQ(node.apply({"PUBLISH", "ch", "m"}, now), I(1));
}

}  // namespace
}  // namespace zksim::redis
