// op-chain (fault.h): a chain of faults aimed at one operation. It strikes
// only requests of the kind it drew, each chain does what it says, and
// decision 0 strikes nothing.
#include "world_fixture.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace zksim::test {
namespace {

// The nemesis's decisions as a test scripts them, each kind of decision by
// its range: the nemesis's (kNemesisChoices), op-chain's kind and chain,
// and any other range (a lag of Curator's expiry draws from 5, as a chain
// does: they share a queue, in the order the world draws them). Past the
// end of a queue every decision is 0.
class Scripted final : public DecisionSource {
 public:
  std::map<std::uint32_t, std::deque<std::uint32_t>> by_range;
  std::uint32_t choose(std::uint32_t n) override {
    auto it = by_range.find(n);
    if (it == by_range.end() || it->second.empty()) return 0;
    const std::uint32_t c = it->second.front();
    it->second.pop_front();
    return c;
  }
};

constexpr auto kKinds = static_cast<std::uint32_t>(kOpChainKinds.size());

WorldConfig op_chain_only() {
  WorldConfig c = quiet();
  c.nemesis.per_mille[kOpChain] = 30;
  c.nemesis.pause_ms = 3000;
  return c;
}

// The first request's nemesis decision strikes with op-chain, aimed at
// kOpChainKinds[kind] with `chain`; every later decision is 0.
Scripted aimed(std::size_t kind, OpChain chain) {
  Scripted d;
  d.by_range[kNemesisChoices] = {*op_chain_only().nemesis.choice_for(kOpChain)};
  d.by_range[kKinds] = {static_cast<std::uint32_t>(kind)};
  d.by_range[kOpChains] = {static_cast<std::uint32_t>(chain)};
  return d;
}

std::size_t index_of(std::int32_t kind) {
  for (std::size_t i = 0; i < kOpChainKinds.size(); ++i) {
    if (kOpChainKinds[i] == kind) return i;
  }
  return kOpChainKinds.size();
}

std::vector<const TraceEvent*> faults(const World& w) {
  std::vector<const TraceEvent*> out;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Fault) out.push_back(&e);
  }
  return out;
}

// One request of every kind op-chain aims at, a sync first (the request
// that draws the nemesis's decision), then in reverse list order so that
// each kind but sync comes after the arming; every outcome is ignored.
Task<> one_of_each(Client& c) {
  co_await c.sync("/");
  co_await c.remove_all_watches("/d", WatcherType::Any);
  co_await c.add_watch("/d", AddWatchMode::Persistent, [](const WatchedEvent&) {});
  std::vector<MultiOp> check;  // (a braced list in a coroutine trips GCC)
  check.emplace_back(CheckRequest{"/d"});
  co_await c.multi(std::move(check));
  co_await c.set_data("/d", "x");
  co_await c.exists("/d");
  co_await c.get_data("/d");
  co_await c.get_children("/d");
  co_await c.remove("/d/none");
  co_await c.create("/d/n-", "", CreateMode::EphemeralSequential);
}

TEST(OpChain, ItStrikesOnlyARequestOfTheKindItDrew) {
  for (std::size_t k = 0; k < kOpChainKinds.size(); ++k) {
    Scripted d = aimed(k, OpChain::ReplyLost);
    World w(op_chain_only(), d);
    Client& c = w.open("a", 2000);
    run(w, c, [](Client& c) -> Task<> {
      co_await c.create("/d", "", CreateMode::Persistent);
      co_await one_of_each(c);
    }(c));
    // The create of /d drew the decision: aimed at a sync, it strikes the
    // sync after it; at another kind, that kind's request.
    const std::vector<const TraceEvent*> f = faults(w);
    ASSERT_EQ(f.size(), 1u) << request_kind_name(kOpChainKinds[k]);
    std::map<std::uint32_t, std::int32_t> kind_of;  // by xid
    for (const TraceEvent& e : w.trace().events()) {
      if (e.kind == TraceKind::Request && e.xid) kind_of.emplace(e.xid, e.code);
    }
    EXPECT_EQ(kind_of.at(f[0]->xid), kOpChainKinds[k]) << request_kind_name(kOpChainKinds[k]);
    EXPECT_NE(f[0]->detail.find(fmt::format("op-chain reply-lost on {}", request_kind_name(kOpChainKinds[k]))),
              std::string::npos)
        << f[0]->detail;
    EXPECT_EQ(w.struck(kOpChain), 1);
  }
}

TEST(OpChain, AimedAtTheKindOfTheRequestAtHandItStrikesThatRequest) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::ReplyLost);
  World w(op_chain_only(), d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> {
    auto made = co_await c.create("/d", "", CreateMode::Persistent);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
  }(c));
  EXPECT_TRUE(w.server().node("/d"));
  EXPECT_EQ(w.struck(kOpChain), 1);
}

TEST(OpChain, DecisionZeroStrikesNothing) {
  WorldConfig cfg = op_chain_only();
  for (int k = 0; k < kFaultClasses; ++k) cfg.nemesis.per_mille[k] = is_request_class(k) ? 30 : 0;
  ListDecisions d({});
  World w(cfg, d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> {
    co_await c.create("/d", "", CreateMode::Persistent);
    for (int i = 0; i < 20; ++i) co_await one_of_each(c);
  }(c));
  EXPECT_TRUE(faults(w).empty());
  for (int k = 0; k < kFaultClasses; ++k) EXPECT_EQ(w.struck(k), 0) << fault_class_name(k);
}

TEST(OpChain, ReplyLostAppliesTheRequestAndNothingFollows) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::ReplyLost);
  World w(op_chain_only(), d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> {
    co_await c.sync("/");
    auto made = co_await c.create("/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    auto listed = co_await c.get_children("/");  // same session: the node is there
    EXPECT_TRUE(listed.ok() && std::ranges::count(listed->children, "n-0000000000") == 1);
  }(c));
  ASSERT_EQ(faults(w).size(), 1u);
  EXPECT_EQ(faults(w)[0]->code, static_cast<std::int32_t>(FaultKind::DropAfterApply));
  EXPECT_EQ(faults(w)[0]->detail, "applied ZOK, reply lost; op-chain reply-lost on create");
}

TEST(OpChain, ReplyLostTwiceLosesTheReplyOfTheClientsNextRequestToo) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::ReplyLostTwice);
  World w(op_chain_only(), d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> {
    co_await c.sync("/");
    auto made = co_await c.create("/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    // The retry: applied too, its reply lost again.
    auto again = co_await c.create("/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(again.error(), Error::ConnectionLoss);
    auto listed = co_await c.get_children("/");
    EXPECT_TRUE(listed.ok() && std::ranges::count_if(listed->children, [](const std::string& n) {
                                 return n.starts_with("n-");
                               }) == 2);
  }(c));
  const std::vector<const TraceEvent*> f = faults(w);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->detail, "applied ZOK, reply lost; op-chain reply-lost-twice on create");
  EXPECT_EQ(f[1]->detail, "applied ZOK, reply lost; op-chain reply-lost-twice, its second drop");
  EXPECT_EQ(w.struck(kOpChain), 1);  // one chain
}

TEST(OpChain, RequestLostPauseLosesTheRequestAndPausesTheClient) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::RequestLostPause);
  WorldConfig cfg = op_chain_only();
  cfg.nemesis.pause_ms = 500;  // within the session: it survives
  World w(cfg, d);
  Client& c = w.open("a", 2000);
  TimeMs lost_at = 0, next_at = 0;
  run(w, c, [](Client& c, TimeMs& lost_at, TimeMs& next_at) -> Task<> {
    co_await c.sync("/");
    auto made = co_await c.create("/n", "", CreateMode::Persistent);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    lost_at = c.now();
    auto there = co_await c.exists("/n");
    EXPECT_EQ(there.error(), Error::NoNode);  // never applied
    next_at = c.now();
  }(c, lost_at, next_at));
  const std::vector<const TraceEvent*> f = faults(w);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->code, static_cast<std::int32_t>(FaultKind::DropBeforeApply));
  EXPECT_EQ(f[0]->detail, "request lost; op-chain request-lost-pause on create");
  EXPECT_EQ(f[1]->code, static_cast<std::int32_t>(FaultKind::Pause));
  EXPECT_EQ(f[1]->detail, "500 ms, op-chain request-lost-pause on create");
  EXPECT_GE(next_at, f[1]->time + 500);  // nothing ran while paused
}

TEST(OpChain, ReplyLostExpiryExpiresTheSessionAtOnce) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::ReplyLostExpiry);
  World w(op_chain_only(), d);
  Client& c = w.open("a", 2000);
  run(w, c, [](Client& c) -> Task<> {
    co_await c.sync("/");
    auto made = co_await c.create("/n-", "", CreateMode::EphemeralSequential);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    // Its session is gone: it cannot look for what its create did.
    auto listed = co_await c.get_children("/");
    EXPECT_EQ(listed.error(), Error::SessionExpired);
  }(c));
  const std::vector<const TraceEvent*> f = faults(w);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1]->code, static_cast<std::int32_t>(FaultKind::ExpireSession));
  EXPECT_EQ(f[1]->time, f[0]->time);
  EXPECT_EQ(f[1]->detail, "op-chain reply-lost-expiry on create");
  EXPECT_EQ(w.server().children("/"), (std::vector<std::string>{"zookeeper"}));  // the ephemeral went with it
  EXPECT_EQ(c.state(), SessionState::Expired);
}

// The session expires on the server while the client is cut off, so the
// client cannot learn whether its create was applied: it is told Expired
// when it reconnects, and its create's outcome stays unknown to it.
TEST(OpChain, ReplyLostOutageExpiresTheSessionWhileTheClientIsCutOff) {
  Scripted d = aimed(index_of(request_kind<CreateRequest>), OpChain::ReplyLostOutage);
  d.by_range[2000] = {700};  // the outage: the session timeout, 1 ms and 700 ms more
  World w(op_chain_only(), d);
  Client& c = w.open("a", 2000);
  Seen seen;
  c.set_default_watcher(seen.watcher());
  run(w, c, [](Client& c) -> Task<> {
    co_await c.sync("/");
    auto made = co_await c.create("/n", "", CreateMode::Persistent);
    EXPECT_EQ(made.error(), Error::ConnectionLoss);
    auto there = co_await c.exists("/n");  // waits for the connection, which tells Expired
    EXPECT_EQ(there.error(), Error::SessionExpired);
  }(c));
  const std::vector<const TraceEvent*> f = faults(w);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->detail, "applied ZOK, reply lost; op-chain reply-lost-outage on create");
  EXPECT_EQ(f[1]->detail, "op-chain reply-lost-outage on create: connection broken, none for 2701 ms");
  TimeMs expired_at = -1, told_at = -1;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Server && e.code == static_cast<std::int32_t>(ServerAction::SessionExpired)) {
      expired_at = e.time;
    }
    if (e.kind == TraceKind::State && e.code == static_cast<std::int32_t>(SessionState::Expired)) told_at = e.time;
    // Not connected again in between: it never heard of its create.
    if (e.kind == TraceKind::State && e.time > f[0]->time) {
      EXPECT_NE(e.code, static_cast<std::int32_t>(SessionState::Connected)) << render_event(e);
    }
  }
  ASSERT_GE(expired_at, 0);
  EXPECT_GT(expired_at, f[0]->time + 2000 - 2000 / 3);   // the session timed out...
  EXPECT_LT(expired_at, f[0]->time + 2701);              // ...while it was cut off
  EXPECT_GE(told_at, f[0]->time + 2701);                 // and learned of it on reconnecting
  EXPECT_EQ(seen.states(), (std::vector<KeeperState>{KeeperState::SyncConnected, KeeperState::Disconnected,
                                                     KeeperState::Expired}));
  EXPECT_TRUE(w.server().node("/n"));  // applied all the same
}

}  // namespace
}  // namespace zksim::test
