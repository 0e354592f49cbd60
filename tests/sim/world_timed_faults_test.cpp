// Time-triggered and correlated faults (fault.h, TimedFault): they strike
// at times the nemesis draws, busy clients or idle, one client or all.
#include "world_fixture.h"

#include <algorithm>
#include <map>
#include <vector>

namespace zksim::test {
namespace {

WorldConfig timed(TimedFault fault, std::uint32_t per_mille, TimeMs pause_ms = 3000) {
  WorldConfig c;
  c.nemesis.per_mille[static_cast<int>(fault)] = per_mille;
  c.nemesis.pause_ms = pause_ms;
  return c;
}

std::vector<const TraceEvent*> faults_in(const World& w) {
  std::vector<const TraceEvent*> out;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Fault) out.push_back(&e);
  }
  return out;
}

// Opens `n` clients that connect and then send nothing for `idle_ms`.
std::vector<Client*> idle_clients(World& w, int n, TimeMs idle_ms) {
  std::vector<Client*> out;
  for (int i = 0; i < n; ++i) {
    Client& c = w.open(fmt::format("c{}", i), 4000);
    w.spawn(c, [](Client& c, TimeMs ms) -> Task<> { co_await c.sleep(ms); }(c, idle_ms));
    out.push_back(&c);
  }
  return out;
}

TEST(TimedFaults, AnyTimeStrikesClientsThatSendNothingWithEveryKind) {
  std::map<std::int32_t, int> kinds;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SeededDecisions d(seed);
    World w(timed(TimedFault::AnyTime, 1000), d);
    idle_clients(w, 3, 10'000);
    w.run_until(10'000);
    const auto faults = faults_in(w);
    EXPECT_GE(faults.size(), 1u) << "seed " << seed;
    for (const TraceEvent* e : faults) ++kinds[e->code];
    // No request was sent after the connects: these struck idle clients.
    for (const TraceEvent& e : w.trace().events()) {
      if (e.kind == TraceKind::Request) ADD_FAILURE() << "an idle client sent " << render_event(e);
    }
  }
  for (FaultKind k : {FaultKind::DropBeforeApply, FaultKind::ExpireSession, FaultKind::Pause, FaultKind::Crash}) {
    EXPECT_TRUE(kinds.count(static_cast<std::int32_t>(k))) << fault_kind_name(static_cast<std::int32_t>(k));
  }
}

TEST(TimedFaults, BlipAllCutsEveryClientOffAtOnceForItsTime) {
  SeededDecisions d(1);
  World w(timed(TimedFault::BlipAll, 1000, 1500), d);
  auto clients = idle_clients(w, 3, 30'000);
  w.run_until(30'000);
  // Find the first blip that cut everyone: one fault per client, same instant.
  std::map<TimeMs, std::vector<int>> by_time;
  for (const TraceEvent* e : faults_in(w)) by_time[e->time].push_back(e->client);
  auto everyone = std::find_if(by_time.begin(), by_time.end(), [](const auto& t) { return t.second.size() == 3; });
  ASSERT_NE(everyone, by_time.end()) << "no blip cut every client at once";
  // While cut off, no client connects.
  const TimeMs from = everyone->first;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Fault && e.time == from) {
      EXPECT_NE(e.detail.find("blip: connection broken, none for"), std::string::npos) << e.detail;
    }
  }
  for (Client* c : clients) EXPECT_NE(c->state(), SessionState::Closed);
}

TEST(TimedFaults, ACutOffClientReconnectsOnlyOnceTheBlipIsOver) {
  SeededDecisions d(1);
  World w(timed(TimedFault::BlipAll, 1000, 1500), d);
  idle_clients(w, 1, 30'000);
  w.run_until(30'000);
  TimeMs cut_until = -1;
  for (const TraceEvent& e : w.trace().events()) {
    if (e.kind == TraceKind::Fault && cut_until < 0) {
      const auto at = e.detail.find("none for ");
      ASSERT_NE(at, std::string::npos);
      cut_until = e.time + std::atoll(e.detail.c_str() + at + 9);
    }
    if (e.kind == TraceKind::State && e.code == static_cast<std::int32_t>(SessionState::Connected) && cut_until >= 0) {
      EXPECT_GE(e.time, cut_until);
      return;
    }
  }
  FAIL() << "the client never reconnected";
}

TEST(TimedFaults, BurstDropsOneClientTwoOrThreeTimesMillisecondsApart) {
  SeededDecisions d(2);
  World w(timed(TimedFault::Burst, 1000), d);
  idle_clients(w, 3, 20'000);
  w.run_until(20'000);
  const auto faults = faults_in(w);
  ASSERT_GE(faults.size(), 2u);
  // The first burst: its drops hit one client, each within 20 ms of the last.
  const TraceEvent* first = faults.front();
  int in_burst = 1;
  for (std::size_t i = 1; i < faults.size() && faults[i]->time - faults[i - 1]->time <= 20; ++i) {
    EXPECT_EQ(faults[i]->client, first->client);
    ++in_burst;
  }
  EXPECT_GE(in_burst, 2);
  EXPECT_LE(in_burst, 3);
}

TEST(TimedFaults, TheFirstWindowOpensAtFirstWindowMsAndEachLastsWindowMs) {
  for (TimeMs first : {TimeMs{0}, TimeMs{300}}) {
    WorldConfig c = timed(TimedFault::AnyTime, 1000, 10);  // every window strikes; short pauses
    c.nemesis.window_ms = 50;
    c.nemesis.first_window_ms = first;
    SeededDecisions d(3);
    World w(c, d);
    idle_clients(w, 3, 2'000);
    w.run_until(1'000);
    const auto faults = faults_in(w);
    ASSERT_FALSE(faults.empty());
    EXPECT_GE(faults.front()->time, first);
    EXPECT_LT(faults.front()->time, first + 50) << "the first window struck late";
    // One strike a window at most: no two faults in one window.
    std::map<TimeMs, int> per_window;
    for (const TraceEvent* e : faults) ++per_window[(e->time - first) / 50];
    for (const auto& [window, n] : per_window) EXPECT_EQ(n, 1) << "window " << window;
    EXPECT_GE(per_window.size(), 5u);
  }
}

TEST(TimedFaults, StopWhenTheRatesAreClearedAndDrawNothingMore) {
  SeededDecisions seeded(4);
  RecordingDecisions d(seeded);
  World w(timed(TimedFault::AnyTime, 500), d);
  idle_clients(w, 2, 100'000);
  w.run_until(10'000);
  w.set_nemesis({});
  const std::size_t faults = faults_in(w).size(), decisions = d.recorded().size();
  w.run_until(100'000);
  EXPECT_EQ(faults_in(w).size(), faults);
  EXPECT_LE(d.recorded().size(), decisions + 2);  // at most a window and a strike already under way
}

TEST(TimedFaults, ScriptedFaultOnAllClientsStrikesEveryOneAtOnce) {
  ListDecisions d({});
  World w(quiet(), d);
  idle_clients(w, 3, 10'000);
  ScriptedFault all;
  all.kind = FaultKind::DropBeforeApply;
  all.client = kAllClients;
  all.at = 500;
  w.schedule(all);
  w.run_until(10'000);
  std::vector<int> hit;
  for (const TraceEvent* e : faults_in(w)) {
    EXPECT_EQ(e->time, 500);
    hit.push_back(e->client);
  }
  EXPECT_EQ(hit, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace zksim::test
