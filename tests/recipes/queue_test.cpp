// The FIFO queue (exactly-once put, at-most-once take, FIFO) and the
// locking queue (an item returns if its consumer dies before the ack).
#include "recipe_fixture.h"
#include "../sim/ensemble_fixture.h"

#include "zksim/recipes/queue.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace zksim::test {
namespace {

using recipes::Item;
using recipes::LockingQueue;
using recipes::Queue;

const std::string kQueue = "/queues/q";

struct Ledger {
  std::vector<std::string> put;        // data, in put order per producer
  std::vector<std::string> taken;      // data, in take order
  std::vector<std::string> nodes;      // item nodes, in take order
  std::map<std::string, int> times;    // data -> times delivered
};

Task<> producer(Client& zk, int id, int items, Ledger& l) {
  Queue q(zk, kQueue);
  for (int i = 0; i < items; ++i) {
    std::string data = fmt::format("p{}-{}", id, i);
    auto put = co_await q.put(data);
    EXPECT_TRUE(put.ok()) << error_name(put.error());
    l.put.push_back(data);
  }
}

Task<> consumer(Client& zk, int items, Ledger& l) {
  Queue q(zk, kQueue);
  for (int i = 0; i < items; ++i) {
    auto got = co_await q.take();
    EXPECT_TRUE(got.ok()) << error_name(got.error());
    if (!got) co_return;
    l.taken.push_back(got->data);
    l.nodes.push_back(got->node);
    ++l.times[got->data];
  }
}

void produce_consume(int producers, int consumers, int per_producer, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Ledger l;
  int total = producers * per_producer;
  for (int i = 0; i < producers; ++i) {
    Client& c = w.open(fmt::format("p{}", i));
    w.spawn(c, producer(c, i, per_producer, l));
  }
  for (int i = 0; i < consumers; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    int share = total / consumers + (i < total % consumers ? 1 : 0);
    w.spawn(c, consumer(c, share, l));
  }
  ASSERT_TRUE(w.run_until_done(10'000'000));
  EXPECT_EQ(static_cast<int>(l.taken.size()), total);
  for (const auto& [data, n] : l.times) EXPECT_EQ(n, 1) << data;
  // Each producer's items come out in the order they went in.
  for (int p = 0; p < producers; ++p) {
    int last = -1;
    for (const std::string& data : l.taken) {
      int producer = 0, index = 0;
      std::sscanf(data.c_str(), "p%d-%d", &producer, &index);
      if (producer != p) continue;
      EXPECT_GT(index, last) << data;
      last = index;
    }
  }
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, OneProducerOneConsumer) { produce_consume(1, 1, 10, 2); }
TEST(FifoQueue, TenClients) { produce_consume(5, 5, 6, 3); }
TEST(FifoQueue, HundredClients) { produce_consume(50, 50, 2, 4); }
TEST(FifoQueue, ManySeeds) {
  for (std::uint64_t seed = 10; seed < 40; ++seed) produce_consume(3, 3, 4, seed);
}

TEST(FifoQueue, OneClientTakesInPutOrder) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  Ledger l;
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    co_await producer(c, 0, 5, l);
    co_await consumer(c, 5, l);
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(l.taken, l.put);
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, TakeOnAnEmptyQueueTimesOutAndLeavesNoWatchOnceFed) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.spawn(c, [](Client& c) -> Task<> {
    Queue q(c, kQueue);
    EXPECT_EQ((co_await q.take(50)).error(), Error::OperationTimeout);
    co_await q.put("x");  // fires the watch the timed-out take left
    EXPECT_EQ((co_await q.take()).value().data, "x");
  }(c));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, LostPutReplyAddsTheItemOnce) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  Ledger l;
  w.spawn(c, [](Client& c) -> Task<> { co_await c.create("/queues", "", CreateMode::Persistent); co_await c.create(kQueue, "", CreateMode::Persistent); }(c));
  ASSERT_TRUE(w.run_until_done(1000));
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, -1, 2, kQueue + "/_c_"));  // the second item's write
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    co_await producer(c, 0, 3, l);
    co_await consumer(c, 3, l);
    Queue q(c, kQueue);
    EXPECT_EQ((co_await q.take(10)).error(), Error::OperationTimeout);  // nothing extra
    co_await q.put("end");
    co_await q.take();
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<MultiRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(l.taken, l.put);
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, LostTakeReplyIsReportedAndTheItemIsNeverDeliveredTwice) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  Ledger l;
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<DeleteRequest>, 1, kQueue + "/_c_"));  // an item's
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    co_await producer(c, 0, 2, l);
    Queue q(c, kQueue);
    EXPECT_EQ((co_await q.take()).error(), Error::ConnectionLoss);  // p0-0: taken, reply lost
    EXPECT_EQ(q.in_doubt().value_or(Item{}).data, "p0-0");
    EXPECT_EQ((co_await q.take()).value().data, "p0-1");
    EXPECT_FALSE(q.in_doubt());
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, LostPutReplyAddsTheItemOnceEvenIfTakenBeforeTheProducerLooks) {
  // The put's reply is lost; while the producer reconnects, a waiting
  // consumer takes the item. Looking for the item cannot tell the put it
  // was added: the marker beside it can, so the put does not add it again.
  ListDecisions d({});
  World w(quiet(), d);
  Client& p = w.open("p");
  Client& c = w.open("c");
  w.spawn(p, [](Client& c) -> Task<> { co_await c.create("/queues", "", CreateMode::Persistent); co_await c.create(kQueue, "", CreateMode::Persistent); }(p));
  ASSERT_TRUE(w.run_until_done(1000));
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, -1, 1, kQueue + "/_c_"));  // the item's write
  Ledger l;
  std::string put_path = "not returned";
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    co_await consumer(c, 1, l);
    Queue q(c, kQueue);
    EXPECT_EQ((co_await q.take(500)).error(), Error::OperationTimeout);  // no second copy
    co_await q.put("end");  // fires the watch the timed-out take left
    co_await q.take();
  }(c, l));
  w.spawn(p, [](Client& c, std::string& path) -> Task<> {
    co_await c.sleep(20);  // the consumer waits already
    Queue q(c, kQueue);
    auto put = co_await q.put("x");
    EXPECT_TRUE(put.ok()) << error_name(put.error());
    if (put) path = *put;
  }(p, put_path));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<MultiRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(l.taken, std::vector<std::string>{"x"});
  EXPECT_EQ(put_path, "");  // taken before the producer could see its path
  expect_no_leftovers(w, kQueue);
}

TEST(FifoQueue, ALostReadDuringTakeDoesNotSkipTheHead) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<GetDataRequest>, 1));
  Ledger l;
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    co_await producer(c, 0, 2, l);
    co_await consumer(c, 2, l);
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<GetDataRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(l.taken, l.put);
  expect_no_leftovers(w, kQueue);
}

// --- the locking queue ---

Task<> locking_consumer(Client& zk, int items, Ledger& l) {
  LockingQueue q(zk, kQueue);
  for (int i = 0; i < items; ++i) {
    auto got = co_await q.take();
    EXPECT_TRUE(got.ok()) << error_name(got.error());
    if (!got) co_return;
    co_await zk.sleep(3);
    if (!(co_await q.ack(*got)).ok()) co_return;
    l.taken.push_back(got->data);
    ++l.times[got->data];
  }
}

void expect_locking_queue_empty(World& w) {
  EXPECT_EQ(w.server().children(kQueue + "/items"), std::vector<std::string>{});
  EXPECT_EQ(w.server().children(kQueue + "/claims"), std::vector<std::string>{});
  EXPECT_EQ(w.server().watch_count(), 0u);
}

void locking(int producers, int consumers, int per_producer, std::uint64_t seed) {
  SeededDecisions d(seed);
  World w({}, d);
  Ledger l;
  int total = producers * per_producer;
  for (int i = 0; i < producers; ++i) {
    Client& c = w.open(fmt::format("p{}", i));
    w.spawn(c, [](Client& c, int id, int n, Ledger& l) -> Task<> {
      LockingQueue q(c, kQueue);
      for (int k = 0; k < n; ++k) {
        std::string data = fmt::format("p{}-{}", id, k);
        EXPECT_TRUE((co_await q.put(data)).ok());
        l.put.push_back(data);
      }
    }(c, i, per_producer, l));
  }
  for (int i = 0; i < consumers; ++i) {
    Client& c = w.open(fmt::format("c{}", i));
    int share = total / consumers + (i < total % consumers ? 1 : 0);
    w.spawn(c, locking_consumer(c, share, l));
  }
  ASSERT_TRUE(w.run_until_done(10'000'000));
  EXPECT_EQ(static_cast<int>(l.taken.size()), total);
  for (const auto& [data, n] : l.times) EXPECT_EQ(n, 1) << data;
  expect_locking_queue_empty(w);
}

TEST(LockingQueue, OneProducerOneConsumer) { locking(1, 1, 10, 1); }
TEST(LockingQueue, TwoClients) { locking(1, 1, 3, 2); }
TEST(LockingQueue, TenClients) { locking(5, 5, 4, 3); }
TEST(LockingQueue, HundredClients) { locking(50, 50, 2, 4); }

TEST(LockingQueue, ItemReturnsWhenItsConsumerDiesBeforeTheAck) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& p = w.open("p");
  Client& dies = w.open("dies", 2000);
  Client& lives = w.open("lives");
  Ledger l;
  Signal put;
  w.spawn(p, [](Client& c, Signal put) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("job");
    put.set();
  }(p, put));
  std::string first_taker_saw;
  w.spawn(dies, [](Client& c, Signal put, std::string& saw) -> Task<> {
    co_await put.wait();
    LockingQueue q(c, kQueue);
    auto got = co_await q.take();
    saw = got.ok() ? got->data : "";
    co_await c.sleep(100'000);  // crashes before acking
  }(dies, put, first_taker_saw));
  w.spawn(lives, [](Client& c, Ledger& l) -> Task<> {
    co_await c.sleep(200);
    co_await locking_consumer(c, 1, l);
  }(lives, l));
  w.schedule(at_time(FaultKind::Crash, 1, 100));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(first_taker_saw, "job");
  EXPECT_EQ(l.taken, std::vector<std::string>{"job"});
  expect_locking_queue_empty(w);
}

TEST(LockingQueue, AnItemGivenBackIsHandedAtOnceToAWaitingTake) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& first = w.open("first");
  Client& waits = w.open("waits");
  Signal taken;
  TimeMs given_back = -1;
  w.spawn(first, [](Client& c, Signal taken, TimeMs& given_back) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("job");
    auto got = co_await q.take();
    taken.set();
    co_await c.sleep(100);  // the other take waits meanwhile: the only item is claimed
    EXPECT_EQ((co_await q.release(*got)).error(), Error::Ok);
    given_back = c.now();
    EXPECT_EQ((co_await q.release(*got)).error(), Error::BadArguments);  // given back already
  }(first, taken, given_back));
  TimeMs got_at = -1;
  w.spawn(waits, [](Client& c, Signal taken, TimeMs& got_at) -> Task<> {
    co_await taken.wait();
    LockingQueue q(c, kQueue);
    auto got = co_await q.take();
    EXPECT_EQ(got.value().data, "job");
    got_at = c.now();
    EXPECT_TRUE((co_await q.ack(*got)).ok());
  }(waits, taken, got_at));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_GE(got_at, given_back);
  EXPECT_LT(got_at, given_back + 50);  // woken by the claim's going, not by a timeout
  expect_locking_queue_empty(w);
}

TEST(LockingQueue, LostAckReplyStillAcknowledges) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  Ledger l;
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<MultiRequest>, 3));  // after the two puts: the ack
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("a");
    co_await q.put("b");
    co_await locking_consumer(c, 2, l);
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<MultiRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(l.taken, (std::vector<std::string>{"a", "b"}));
  expect_locking_queue_empty(w);
}

TEST(LockingQueue, ALostReadDuringTakeKeepsTheClaimAndTheOrder) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<GetDataRequest>, 1));
  Ledger l;
  w.spawn(c, [](Client& c, Ledger& l) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("a");
    co_await q.put("b");
    co_await locking_consumer(c, 2, l);
  }(c, l));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<GetDataRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(l.taken, (std::vector<std::string>{"a", "b"}));
  expect_locking_queue_empty(w);
}

TEST(LockingQueue, AClaimWhoseReplyAndCheckWereLostIsNotOrphaned) {
  // The claim on "a" is made but its reply is lost, and so is the first
  // read of it (is it there, with this attempt's id?). Giving up on it would leave "a" held by our
  // own live session (and hand out "b" first).
  ListDecisions d({});
  World w(quiet(), d);
  Client& c = w.open("c");
  w.schedule(on_nth(FaultKind::DropAfterApply, 0, request_kind<CreateRequest>, 1, kQueue + "/claims/"));
  w.schedule(on_nth(FaultKind::DropBeforeApply, 0, request_kind<GetDataRequest>, 1, kQueue + "/claims/"));
  std::vector<std::string> taken;
  w.spawn(c, [](Client& c, std::vector<std::string>& taken) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("a");
    co_await q.put("b");
    for (int i = 0; i < 2; ++i) {
      auto got = co_await q.take(1000);
      if (!got) co_return;
      taken.push_back(got->data);
      co_await q.ack(*got);
    }
  }(c, taken));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, 0, request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(responses(w, 0, request_kind<GetDataRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(taken, (std::vector<std::string>{"a", "b"}));
  expect_locking_queue_empty(w);
}

// Three servers whose followers lag 100 ms a step (with SlowServer2, only
// server 2 lags): a client moving there may find it behind what it did.
WorldConfig slow_follower_ensemble() {
  WorldConfig cfg = quiet();
  cfg.servers = 3;
  cfg.follower_lag_ms = 100;
  return cfg;
}

// The consumer's delete of its claim is applied but its reply is lost; it
// reconnects to a follower behind the delete, where its claim still shows.
// Meanwhile the waiting consumer claims the item anew, and a new node starts
// at version 0 too: a delete by the version read there would take that
// claim. The giver must sync before it looks again.
TEST(LockingQueue, AReleaseWhoseDeleteWasLostNeverTakesTheClaimMadeSince) {
  SlowServer2 d;
  World w(slow_follower_ensemble(), d);
  Client& gives = w.open("gives", 4000, -1, Flavour::C, {1, 2});
  Client& waits = w.open("waits", 4000, -1, Flavour::C, {0});
  w.schedule(on_nth(FaultKind::DropAfterApply, w.id(gives), request_kind<DeleteRequest>, 1, kQueue + "/claims/"));
  Signal taken;
  w.spawn(gives, [](Client& c, Signal taken) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("job");
    auto got = co_await q.take();
    taken.set();
    co_await c.sleep(300);  // the other take waits on the claim meanwhile
    EXPECT_TRUE((co_await q.release(*got)).ok());
  }(gives, taken));
  bool holds_at_end = false;
  w.spawn(waits, [](Client& c, Signal taken, bool& holds_at_end) -> Task<> {
    co_await taken.wait();
    LockingQueue q(c, kQueue);
    auto got = co_await q.take();
    EXPECT_EQ(got.value().data, "job");
    co_await c.sleep(500);  // long after the giver's release has ended
    auto claims = co_await c.get_children(kQueue + "/claims");
    holds_at_end = claims && claims->children.size() == 1;
    EXPECT_TRUE((co_await q.ack(*got)).ok());
  }(waits, taken, holds_at_end));
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, w.id(gives), request_kind<DeleteRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(w.server_of(gives), 2);
  EXPECT_TRUE(holds_at_end);
  expect_locking_queue_empty(w);
}

// The ack's reply is lost after it applied, and the consumer reconnects to
// a follower behind it, where the item still shows: asking there, it would
// send the ack again and report NoNode for an item it did acknowledge.
TEST(LockingQueue, AnAckWhoseReplyWasLostIsKnownOnAFollowerBehindIt) {
  SlowServer2 d;
  World w(slow_follower_ensemble(), d);
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  w.schedule(on_nth(FaultKind::DropAfterApply, w.id(c), request_kind<MultiRequest>, 3));  // after the put's two (the first finds no queue): the ack
  run(w, c, [](Client& c) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("job");
    auto got = co_await q.take();
    co_await c.sleep(400);  // server 2 has the claim: it lags only the ack
    EXPECT_EQ((co_await q.ack(*got)).error(), Error::Ok);
  }(c));
  EXPECT_EQ(responses(w, w.id(c), request_kind<MultiRequest>, Error::ConnectionLoss), 1);
  EXPECT_EQ(w.server_of(c), 2);
  expect_locking_queue_empty(w);
}

// Two handles on one session (threads of one process) claim the same item;
// the second's create is lost before it applied. The claim it then finds
// is the first's, in its own session: only the attempt's id in the claim
// tells them apart, so it must move on to the next item.
TEST(LockingQueue, HandlesSharingASessionTellTheirClaimsApart) {
  ListDecisions d({});
  World w(quiet(), d);
  Client& a = w.open("a");
  Client& b = w.share(a, "b");
  w.schedule(on_nth(FaultKind::DropBeforeApply, w.id(b), request_kind<CreateRequest>, 1, kQueue + "/claims/"));
  run(w, a, [](Client& c) -> Task<> {
    LockingQueue q(c, kQueue);
    co_await q.put("x");
    co_await q.put("y");
  }(a));
  std::vector<std::string> taken;
  for (Client* c : {&a, &b}) {
    w.spawn(*c, [](Client& c, std::vector<std::string>& taken) -> Task<> {
      LockingQueue q(c, kQueue);
      auto got = co_await q.take(1000);
      if (got) taken.push_back(got->data);
    }(*c, taken));
  }
  ASSERT_TRUE(w.run_until_done(100'000));
  EXPECT_EQ(responses(w, w.id(b), request_kind<CreateRequest>, Error::ConnectionLoss), 1);
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(taken, (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace zksim::test
