// The ensemble's rules forced on a real ZooKeeper 3.8 ensemble of three
// (ZkEnsemble), through RealClient; where the simulator models the same
// rule (docs/ensemble.md), the same scenario runs on a World of three
// servers and the observable outcomes (what each call returned, which
// events fired) are compared line by line. What was measured is in
// docs/ensemble.md, "Measured on a real ensemble".
#include "tcp_gate.h"
#include "zk_ensemble.h"
#include "zksim/real_client.h"
#include "zksim/world.h"

#include "ensemble_fixture.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace zksim::test {
namespace {

// The binary's one ensemble: every test leaves its three servers serving.
ZkEnsemble& ensemble() {
  static ZkEnsemble e;
  return e;
}

class EnsembleEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_TRUE(ensemble().start(3)) << ensemble().error(); }
  void TearDown() override { ensemble().stop(); }
};

// The server whose `cons` lists `session`, or -1.
int server_of(SessionId session) {
  const std::string sid = fmt::format("sid=0x{:x},", session.value);
  for (int i = 0; i < ensemble().size(); ++i) {
    if (ensemble().four_letter(i, "cons").find(sid) != std::string::npos) return i;
  }
  return -1;
}

// Whether server i holds a watch of `session` on `path` (`wchc`).
bool watches_on(int i, SessionId session, const std::string& path) {
  const std::string reply = ensemble().four_letter(i, "wchc");
  const auto at = reply.find(fmt::format("0x{:x}\n", session.value));
  if (at == std::string::npos) return false;
  const auto next = reply.find("0x", at + 3);
  return reply.substr(at, next == std::string::npos ? std::string::npos : next - at).find("\t" + path + "\n") !=
         std::string::npos;
}

int a_follower(int other_than = -1) {
  for (int i = 0; i < ensemble().size(); ++i) {
    if (ensemble().mode(i) == "follower" && i != other_than) return i;
  }
  return -1;
}

// Every event a client hears (session events and watches), in order, as
// lines, with the loop time it was heard at.
struct Heard {
  std::vector<std::string> lines;
  std::vector<TimeMs> at;
  Client* client = nullptr;
  Watcher watcher() {
    return [this](const WatchedEvent& e) {
      lines.push_back(e.type == EventType::None
                          ? std::string(keeper_state_name(e.state))
                          : fmt::format("{} {}", event_type_name(e.type), e.path));
      at.push_back(client ? client->now() : 0);
    };
  }
  TimeMs when(const std::string& line, std::size_t from = 0) const {
    for (std::size_t i = from; i < lines.size(); ++i) {
      if (lines[i] == line) return at[i];
    }
    return -1;
  }
  bool has(const std::string& line) const {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  }
};

// The clients' session timeout; a wait for what a client hears (a state, an
// event, a reply) ends when it comes, and allows five session timeouts, a
// leader's election included, which no load runs out.
constexpr int kSessionMs = 4000;
constexpr TimeMs kWaitMs = 5 * kSessionMs;

template <class Pred>
Task<bool> until(Client& c, Pred pred, TimeMs limit = kWaitMs) {
  const TimeMs end = c.now() + limit;
  while (!pred()) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

class RealEnsemble : public ::testing::Test {
 protected:
  // Runs `task` on the loop; fails the test if it takes over `limit_ms`
  // (a step stuck: each wait in one is kWaitMs at most).
  void run(Task<> task, TimeMs limit_ms = 3 * kWaitMs) {
    loop.spawn(std::move(task));
    ASSERT_TRUE(loop.run_until_done(limit_ms)) << "a case step took over " << limit_ms << " ms";
  }
  std::unique_ptr<RealClient> open(const std::string& hosts, Heard* heard = nullptr) {
    auto c = RealClient::open(loop, hosts, kSessionMs);
    if (heard) {
      heard->client = c.get();
      c->set_default_watcher(heard->watcher());
    }
    run([](Client& c) -> Task<> {
      EXPECT_TRUE(co_await until(c, [&c] { return c.state() == SessionState::Connected; }));
    }(*c));
    return c;
  }
  RealLoop loop;
};

// What a scenario's calls returned, as lines, to compare the two ensembles.
using Outcome = std::vector<std::string>;

template <class T>
std::string said(const std::string& call, const Result<T>& r) {
  return fmt::format("{} {}", call, r.ok() ? std::string("Ok") : std::string(error_name(r.error())));
}

std::string read_line(const Result<DataResponse>& r) {
  return r.ok() ? "read " + r->data : said("read", r);
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// ---- The simulated side --------------------------------------------------

WorldConfig three_servers(TimeMs follower_lag_ms) {
  WorldConfig c;
  c.delay_choices = 1;
  c.servers = 3;
  c.follower_lag_ms = follower_lag_ms;
  return c;
}

void sim_run(World& w, Client& owner, Task<> task) {
  w.spawn(owner, std::move(task));
  ASSERT_TRUE(w.run_until_done(w.now() + 60'000));
}

// ---- A read on a follower, before and after sync -------------------------
// Forced: the follower's link to the leader is stalled, so it has not heard
// of the write when the read comes; the sync, forwarded to the leader, is
// answered only once the link flows again and the follower has applied the
// write (quorum/Leader.processSync, Follower.processPacket case SYNC).

Outcome stale_read_then_sync_on_sim() {
  Lags d(3);
  World w(three_servers(100), d);  // followers 300 ms behind
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& reader = w.open("r", 4000, -1, Flavour::C, {1});
  Outcome out;
  sim_run(w, writer, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("create", co_await c.create("/a-sync", "1", CreateMode::Persistent)));
  }(writer, out));
  sim_run(w, reader, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("sync", co_await c.sync("/a-sync")));
    out.push_back(read_line(co_await c.get_data("/a-sync")));
  }(reader, out));
  sim_run(w, writer, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("write", co_await c.set_data("/a-sync", "2")));
  }(writer, out));
  sim_run(w, reader, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(read_line(co_await c.get_data("/a-sync")));
    const TimeMs sent = c.now();
    out.push_back(said("sync", co_await c.sync("/a-sync")));
    EXPECT_GE(c.now() - sent, 100);  // answered once the follower applied the write
    out.push_back(read_line(co_await c.get_data("/a-sync")));
  }(reader, out));
  return out;
}

TEST_F(RealEnsemble, AFollowerReadIsStaleUntilSyncCatchesItUp) {
  ZkEnsemble& ens = ensemble();
  const int leader = ens.leader_index();
  const int f = a_follower();
  ASSERT_GE(leader, 0);
  ASSERT_GE(f, 0);
  auto writer = open(ens.hosts(leader));
  auto reader = open(ens.hosts(f));
  Outcome out;
  run([&](Client& c) -> Task<> {
    out.push_back(said("create", co_await c.create("/a-sync", "1", CreateMode::Persistent)));
  }(*writer));
  run([&](Client& c) -> Task<> {
    out.push_back(said("sync", co_await c.sync("/a-sync")));
    out.push_back(read_line(co_await c.get_data("/a-sync")));
  }(*reader));
  ens.stall_link(f, true);
  run([&](Client& c) -> Task<> { out.push_back(said("write", co_await c.set_data("/a-sync", "2"))); }(*writer));
  run([&](Client& c) -> Task<> {
    out.push_back(read_line(co_await c.get_data("/a-sync")));
    std::optional<Result<void>> synced;
    loop.spawn([](Client& c, std::optional<Result<void>>& synced) -> Task<> {
      synced = co_await c.sync("/a-sync");
    }(c, synced));
    // A sleep, not a wait: what is checked is that nothing happens.
    co_await c.sleep(200);
    EXPECT_FALSE(synced) << "the sync was answered while the follower heard nothing from the leader";
    ens.stall_link(f, false);
    EXPECT_TRUE(co_await until(c, [&] { return synced.has_value(); }));
    if (synced) out.push_back(said("sync", *synced));
    out.push_back(read_line(co_await c.get_data("/a-sync")));
  }(*reader));
  const Outcome want = {"create Ok", "sync Ok", "read 1", "write Ok", "read 1", "sync Ok", "read 2"};
  EXPECT_EQ(out, want);
  EXPECT_EQ(stale_read_then_sync_on_sim(), out);
}

// ---- A reconnect refused by a server behind the client's lastZxidSeen -----
// Forced: follower F's link to the leader is stalled; the client writes
// through follower G, so it has seen a zxid F has not; then G's connection
// is cut (a TcpGate) and the client tries F.

Outcome refused_then_back_to_the_other_server_on_sim() {
  SlowServer2 d;
  World w(three_servers(100), d);  // server 2 300 ms behind, server 1 not
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  Outcome out;
  sim_run(w, c, [](Client& c) -> Task<> { co_await c.sleep(400); }(c));  // both know the session
  sim_run(w, c, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("create", co_await c.create("/b-ahead", "", CreateMode::Persistent)));
  }(c, out));
  w.inject(FaultKind::DropBeforeApply, w.id(c));
  sim_run(w, c, [](World& w, Client& c, Outcome& out) -> Task<> {
    co_await c.sleep(50);
    EXPECT_EQ(count_of(w, ServerAction::ConnectionRefused), 1);
    out.push_back(w.server_of(c) == 1 ? "back on the first server" : "elsewhere");
    out.push_back(said("exists", co_await c.exists("/b-ahead")));
  }(w, c, out));
  return out;
}

TEST_F(RealEnsemble, AServerBehindTheClientsZxidRefusesIt) {
  ZkEnsemble& ens = ensemble();
  const int f = a_follower();
  const int g = a_follower(f);
  ASSERT_GE(g, 0);
  // The leader is in the connect string but never reachable: with two
  // servers the C client can retry the same one without end (each failed
  // attempt moves twice along the list: handle_error, then
  // zookeeper_interest's zoo_cycle_next_server); with three it tries both
  // others before coming back.
  TcpGate to_g(ens.port(g)), to_f(ens.port(f)), to_leader(ens.port(ens.leader_index()));
  to_leader.hold(true);
  to_f.hold(true);  // the session starts on G
  Heard heard;
  auto zk = open(to_g.hosts() + "," + to_f.hosts() + "," + to_leader.hosts(), &heard);
  const SessionId session = zk->session_id();
  ASSERT_EQ(server_of(session), g);
  to_f.hold(false);
  auto reconnected = [&](Client& c, std::size_t events) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return heard.lines.size() >= events; }));
  };

  // G cut while F is behind: F refuses if tried, the client goes back to G.
  Outcome out;
  const int refused_before = occurrences(ens.log(f), "Refusing session request");
  ens.stall_link(f, true);
  run([&](Client& c) -> Task<> {
    out.push_back(said("create", co_await c.create("/b-ahead", "", CreateMode::Persistent)));
  }(*zk));
  to_g.cut();
  run(reconnected(*zk, 3));
  ens.stall_link(f, false);
  // Whether the client tried F before G again is the C client's choice (see
  // the connect string above): 0 or 1 refusal, never a session on F.
  EXPECT_LE(occurrences(ens.log(f), "Refusing session request") - refused_before, 1);
  out.push_back(server_of(session) == g ? "back on the first server" : "elsewhere");
  run([&](Client& c) -> Task<> { out.push_back(said("exists", co_await c.exists("/b-ahead"))); }(*zk));
  EXPECT_EQ(out, (Outcome{"create Ok", "back on the first server", "exists Ok"}));
  EXPECT_EQ(refused_then_back_to_the_other_server_on_sim(), out);

  // G unreachable while F is behind: F refuses every attempt until it has
  // caught up, then takes the session.
  const int refused_then = occurrences(ens.log(f), "Refusing session request");
  ens.stall_link(f, true);
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE((co_await c.create("/b-later", "", CreateMode::Persistent)).ok());
  }(*zk));
  to_g.hold(true);
  to_g.cut();
  const TimeMs cut = loop.now();
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(
        c, [&] { return occurrences(ens.log(f), "Refusing session request") >= refused_then + 2; }, 600));
  }(*zk));
  const TimeMs released = loop.now();
  ens.stall_link(f, false);
  run(reconnected(*zk, 5));
  std::printf("held-back follower refused %d connections in %lld ms; it took the session %lld ms after its "
              "link to the leader flowed again\n",
              occurrences(ens.log(f), "Refusing session request") - refused_then,
              static_cast<long long>(released - cut), static_cast<long long>(heard.at.back() - released));
  EXPECT_EQ(server_of(session), f);
  run([&](Client& c) -> Task<> { EXPECT_TRUE((co_await c.exists("/b-later")).ok()); }(*zk));
  EXPECT_EQ(heard.lines, (std::vector<std::string>{"SyncConnected", "Disconnected", "SyncConnected",
                                                   "Disconnected", "SyncConnected"}));
  to_g.hold(false);
}

// ---- Watches across a server switch ---------------------------------------
// The session moves from follower A to follower B (A's connection cut by a
// TcpGate); the client sends its watches with setWatches and its last zxid:
// B fires at once a watch whose node changed while the client was away,
// and keeps the other one (wchc) for a change made afterwards.

Outcome watches_across_a_move_on_sim() {
  Lags d(0);
  World w(three_servers(10), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  Heard fired;
  sim_run(w, writer, [](Client& c) -> Task<> {
    co_await c.create("/d-later", "0", CreateMode::Persistent);
    co_await c.create("/d-meanwhile", "0", CreateMode::Persistent);
  }(writer));
  sim_run(w, c, [](Client& c, Heard& fired) -> Task<> {
    co_await c.sync("/");
    co_await c.get_data("/d-later", fired.watcher());
    co_await c.get_data("/d-meanwhile", fired.watcher());
  }(c, fired));
  EXPECT_EQ(w.server_of(c), 1);
  w.partition(w.id(c), 500);
  sim_run(w, writer, [](Client& c) -> Task<> { co_await c.set_data("/d-meanwhile", "1"); }(writer));
  w.run_until(w.now() + 1000);
  EXPECT_EQ(w.server_of(c), 2);
  sim_run(w, writer, [](Client& c) -> Task<> { co_await c.set_data("/d-later", "1"); }(writer));
  w.run_until(w.now() + 100);
  return fired.lines;
}

TEST_F(RealEnsemble, WatchesFollowTheSessionToTheNextServer) {
  ZkEnsemble& ens = ensemble();
  const int a = a_follower();
  const int b = a_follower(a);
  ASSERT_GE(b, 0);
  TcpGate to_a(ens.port(a)), to_b(ens.port(b));
  to_b.hold(true);  // the session starts on A
  auto writer = open(ens.hosts(ens.leader_index()));
  run([](Client& c) -> Task<> {
    EXPECT_TRUE((co_await c.create("/d-later", "0", CreateMode::Persistent)).ok());
    EXPECT_TRUE((co_await c.create("/d-meanwhile", "0", CreateMode::Persistent)).ok());
  }(*writer));
  Heard heard, fired;
  auto zk = open(to_a.hosts() + "," + to_b.hosts(), &heard);
  fired.client = zk.get();
  const SessionId session = zk->session_id();
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE((co_await c.sync("/")).ok());
    EXPECT_TRUE((co_await c.get_data("/d-later", fired.watcher())).ok());
    EXPECT_TRUE((co_await c.get_data("/d-meanwhile", fired.watcher())).ok());
  }(*zk));
  ASSERT_EQ(server_of(session), a);
  EXPECT_TRUE(watches_on(a, session, "/d-later"));
  to_a.hold(true);
  to_a.cut();
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return heard.has("Disconnected"); }));
  }(*zk));
  run([](Client& c) -> Task<> { EXPECT_TRUE((co_await c.set_data("/d-meanwhile", "1")).ok()); }(*writer));
  to_b.hold(false);
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return fired.has("NodeDataChanged /d-meanwhile"); }));
  }(*zk));
  EXPECT_EQ(server_of(session), b);
  EXPECT_TRUE(watches_on(b, session, "/d-later"));
  EXPECT_FALSE(watches_on(b, session, "/d-meanwhile"));
  run([](Client& c) -> Task<> { EXPECT_TRUE((co_await c.set_data("/d-later", "1")).ok()); }(*writer));
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return fired.has("NodeDataChanged /d-later"); }));
  }(*zk));
  // Each watcher hears the session events too (the C client tells every
  // registered watcher), and the missed change fires after SyncConnected.
  const Outcome want = {"Disconnected",  "Disconnected",  "SyncConnected", "SyncConnected",
                        "NodeDataChanged /d-meanwhile", "NodeDataChanged /d-later"};
  EXPECT_EQ(fired.lines, want);
  EXPECT_EQ(watches_across_a_move_on_sim(), fired.lines);
  to_a.hold(false);
}

// ---- A session surviving a leader restart --------------------------------
// The leader is killed: every client is disconnected (its followers stop
// serving while they elect), reconnects once a new leader serves, in the
// same session, with its ephemeral node and its watches; the old leader
// comes back as a follower.

// What the client heard, what its watchers heard (sorted: the real
// client's order among them is its own), and the checks after.
Outcome leader_restart_on_sim() {
  Lags d(0);
  World w(three_servers(10), d);
  Heard heard, fired;
  Client& zk = w.open("c", 4000, -1, Flavour::C, {0, 1, 2});
  Client& other = w.open("o", 4000, -1, Flavour::C, {0, 1, 2});
  zk.set_default_watcher(heard.watcher());
  sim_run(w, zk, [](Client& c, Heard& fired) -> Task<> {
    co_await c.create("/c-eph", "", CreateMode::Ephemeral);
    co_await c.create("/c-data", "1", CreateMode::Persistent);
    co_await c.create("/c-dir", "", CreateMode::Persistent);
    co_await c.get_data("/c-data", fired.watcher());
    co_await c.get_children("/c-dir", fired.watcher());
  }(zk, fired));
  const SessionId session = zk.session_id();
  EXPECT_TRUE(w.crash_server(0));
  w.run_until(w.now() + 2000);
  Outcome out = heard.lines;
  out.push_back(zk.session_id() == session ? "same session" : "new session");
  sim_run(w, other, [](Client& c, SessionId session, Outcome& out) -> Task<> {
    auto eph = co_await c.exists("/c-eph");
    out.push_back(eph.ok() && eph->ephemeralOwner == session.value ? "ephemeral kept" : "ephemeral gone");
    co_await c.set_data("/c-data", "2");
    co_await c.create("/c-dir/x", "", CreateMode::Persistent);
  }(other, session, out));
  w.run_until(w.now() + 100);
  std::vector<std::string> events = fired.lines;
  std::sort(events.begin(), events.end());
  out.insert(out.end(), events.begin(), events.end());
  w.restart_server(0);
  out.push_back(&w.server() == &w.server(0) ? "old leader leads" : "old leader follows");
  out.push_back(zk.state() == SessionState::Connected ? "connected" : "not connected");
  return out;
}

TEST_F(RealEnsemble, ASessionSurvivesALeaderRestart) {
  ZkEnsemble& ens = ensemble();
  const int leader = ens.leader_index();
  ASSERT_GE(leader, 0);
  Heard heard;
  auto zk = open(ens.connect_string({0, 1, 2}), &heard);
  auto other = open(ens.connect_string({0, 1, 2}));
  Heard fired;
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE((co_await c.create("/c-eph", "", CreateMode::Ephemeral)).ok());
    EXPECT_TRUE((co_await c.create("/c-data", "1", CreateMode::Persistent)).ok());
    EXPECT_TRUE((co_await c.create("/c-dir", "", CreateMode::Persistent)).ok());
    EXPECT_TRUE((co_await c.get_data("/c-data", fired.watcher())).ok());
    EXPECT_TRUE((co_await c.get_children("/c-dir", fired.watcher())).ok());
  }(*zk));
  const SessionId session = zk->session_id();
  const int was_on = server_of(session);
  const TimeMs killed = loop.now();
  ens.kill(leader);
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return heard.lines.size() >= 3; }));
  }(*zk));
  const TimeMs lost = heard.when("Disconnected");
  const TimeMs back = heard.when("SyncConnected", 1);
  ASSERT_GE(back, 0);
  std::printf("leader %d killed; the client (on server %d) heard Disconnected after %lld ms and was "
              "SyncConnected again %lld ms after the kill, on server %d (now leading: %d)\n",
              leader, was_on, static_cast<long long>(lost - killed), static_cast<long long>(back - killed),
              server_of(session), ens.leader_index());
  EXPECT_EQ(heard.lines, (std::vector<std::string>{"SyncConnected", "Disconnected", "SyncConnected"}));
  EXPECT_EQ(zk->session_id(), session);
  fired.client = zk.get();
  run([&](Client& c) -> Task<> {
    // The leader's death broke this client's connection too: its reads wait
    // until it is back (else they fail with ConnectionLoss).
    EXPECT_TRUE(co_await until(c, [&c] { return c.state() == SessionState::Connected; }));
    auto eph = co_await c.exists("/c-eph");
    EXPECT_TRUE(eph.ok() && eph->ephemeralOwner == session.value);
    EXPECT_TRUE((co_await c.set_data("/c-data", "2")).ok());
    EXPECT_TRUE((co_await c.create("/c-dir/x", "", CreateMode::Persistent)).ok());
    EXPECT_TRUE(co_await until(c, [&] { return fired.lines.size() >= 6; }));
  }(*other));
  // Each watcher also heard the session events (the C client tells every
  // registered watcher), Disconnected then SyncConnected.
  std::vector<std::string> events = fired.lines;
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events, (std::vector<std::string>{"Disconnected", "Disconnected", "NodeChildrenChanged /c-dir",
                                              "NodeDataChanged /c-data", "SyncConnected", "SyncConnected"}));
  ASSERT_TRUE(ens.restart(leader));
  ASSERT_TRUE(ens.wait_serving(leader)) << ens.error();
  EXPECT_EQ(ens.mode(leader), "follower");
  EXPECT_EQ(zk->state(), SessionState::Connected);
  Outcome real = heard.lines;
  real.push_back(zk->session_id() == session ? "same session" : "new session");
  real.push_back("ephemeral kept");  // checked above
  real.insert(real.end(), events.begin(), events.end());
  real.push_back(ens.mode(leader) == "leader" ? "old leader leads" : "old leader follows");
  real.push_back(zk->state() == SessionState::Connected ? "connected" : "not connected");
  EXPECT_EQ(leader_restart_on_sim(), real);
}

// ---- A follower cut off from the leader ------------------------------------
// Forced: follower F's link to the leader stalls for longer than syncLimit *
// tickTime (1 s). F serves a stale read, holds the client's create, then
// notices: it drops the client (the create: ConnectionLoss, never applied)
// and serves nobody until the link flows again. The client moves on to G
// (held away by a TcpGate until then) with the same session.

Outcome cut_follower_on_sim() {
  Lags d(0);
  World w(three_servers(0), d);
  Client& writer = w.open("w", 4000, -1, Flavour::C, {0});
  Client& c = w.open("c", 4000, -1, Flavour::C, {1, 2});
  Outcome out;
  sim_run(w, writer, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("create", co_await c.create("/p-cut", "1", CreateMode::Persistent)));
  }(writer, out));
  const SessionId session = c.session_id();
  w.partition_server(1, 2500);
  sim_run(w, writer, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(said("write", co_await c.set_data("/p-cut", "2")));
  }(writer, out));
  sim_run(w, c, [](Client& c, Outcome& out) -> Task<> {
    out.push_back(read_line(co_await c.get_data("/p-cut")));
    out.push_back(said("create", co_await c.create("/p-held", "", CreateMode::Persistent)));
  }(c, out));
  out.push_back(w.server_of(c) == 2 || c.state() != SessionState::Connected ? "moved on" : "still on F");
  w.run_until(w.now() + 1000);
  out.push_back(w.server_of(c) == 2 && c.session_id() == session ? "on G, same session" : "elsewhere");
  sim_run(w, c, [](Client& c, Outcome& out) -> Task<> {
    co_await c.sync("/");
    out.push_back(said("exists", co_await c.exists("/p-held")));
    out.push_back(read_line(co_await c.get_data("/p-cut")));
  }(c, out));
  return out;
}

TEST_F(RealEnsemble, AFollowerCutOffFromTheLeaderDropsItsClientsOnceItNotices) {
  ZkEnsemble& ens = ensemble();
  const int leader = ens.leader_index();
  const int f = a_follower();
  const int g = a_follower(f);
  ASSERT_GE(leader, 0);
  ASSERT_GE(f, 0);
  ASSERT_GE(g, 0);
  TcpGate to_g(ens.port(g));
  to_g.hold(true);
  auto writer = open(ens.hosts(leader));
  auto zk = open(ens.hosts(f) + "," + to_g.hosts());
  const SessionId session = zk->session_id();
  ASSERT_EQ(server_of(session), f);
  Outcome out;
  run([&](Client& c) -> Task<> {
    out.push_back(said("create", co_await c.create("/p-cut", "1", CreateMode::Persistent)));
  }(*writer));
  // F has applied the create before its link stalls (its commit may still
  // be on the way when the writer hears of it; the simulator's F lags 0).
  run([](Client& c) -> Task<> { co_await c.sync("/p-cut"); }(*zk));
  ens.stall_link(f, true);
  const TimeMs cut = loop.now();
  run([&](Client& c) -> Task<> { out.push_back(said("write", co_await c.set_data("/p-cut", "2"))); }(*writer));
  TimeMs lost = 0;
  run([&](Client& c) -> Task<> {
    out.push_back(read_line(co_await c.get_data("/p-cut")));
    out.push_back(said("create", co_await c.create("/p-held", "", CreateMode::Persistent)));
    lost = c.now();
  }(*zk));
  out.push_back(zk->state() != SessionState::Connected ? "moved on" : "still on F");
  // F serves nobody now ("This ZooKeeper instance is not currently serving requests").
  EXPECT_EQ(ens.mode(f), "");
  to_g.hold(false);
  run([&](Client& c) -> Task<> {
    EXPECT_TRUE(co_await until(c, [&] { return c.state() == SessionState::Connected; }));
  }(*zk));
  out.push_back(server_of(session) == g && zk->session_id() == session ? "on G, same session" : "elsewhere");
  const TimeMs moved = loop.now();
  // Held until 2.5 s after the cut, as on the simulator.
  while (loop.now() < cut + 2500) {
    run([](Client& c) -> Task<> { co_await c.sleep(20); }(*zk));
  }
  EXPECT_EQ(ens.mode(f), "");
  ens.stall_link(f, false);
  const TimeMs healed = loop.now();
  EXPECT_TRUE(ens.wait_serving(f));
  const TimeMs serving = loop.now();
  run([&](Client& c) -> Task<> {
    co_await c.sync("/");
    out.push_back(said("exists", co_await c.exists("/p-held")));
    out.push_back(read_line(co_await c.get_data("/p-cut")));
  }(*zk));
  std::printf("cut-off follower: dropped its client %lld ms after the cut (the create: ConnectionLoss); the client "
              "was on G %lld ms after; the follower served again %lld ms after the link flowed\n",
              static_cast<long long>(lost - cut), static_cast<long long>(moved - lost),
              static_cast<long long>(serving - healed));
  EXPECT_GE(lost - cut, 900);
  EXPECT_LE(lost - cut, 2000);
  EXPECT_EQ(out, (Outcome{"create Ok", "write Ok", "read 1", "create ZCONNECTIONLOSS", "moved on",
                          "on G, same session", "exists ZNONODE", "read 2"}));
  EXPECT_EQ(cut_follower_on_sim(), out);
}

}  // namespace
}  // namespace zksim::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Level 0 silences the C client: disconnects are what these tests make.
  // ZKDEBUG=1 shows its debug log (which server it tries, and why it leaves).
  zoo_set_debug_level(static_cast<ZooLogLevel>(std::getenv("ZKDEBUG") ? 4 : 0));
  ::testing::AddGlobalTestEnvironment(new zksim::test::EnsembleEnvironment);
  return RUN_ALL_TESTS();
}
