// Each coverage probe on a small scripted run: reached when the scripted
// situation happens, not reached in a nearby run where it does not. Runs
// are deterministic: fixed latency (no delay decisions), seed 1, faults
// at fixed times or on a client's nth matching request. The timings below
// (who holds when) come from the workloads' own rhythm: two clients both
// contend at once, client 0 is granted at t≈14 and holds for hold_ms.
#include "zksim/scenarios/probes.h"

#include "zksim/request.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace zksim::scenarios {
namespace {

struct Script {
  std::string recipe = "lock";
  int clients = 2;
  int rounds = 1;
  TimeMs hold_ms = 300;
  TimeMs timeout_ms = -1;
  int leases = 2;
  std::vector<ScriptedFault> faults;
};

RunResult run_script(const Script& s) {
  Workload w{.recipe = s.recipe, .clients = s.clients, .rounds = s.rounds, .hold_ms = s.hold_ms,
             .timeout_ms = s.timeout_ms, .leases = s.leases};
  WorldConfig c;
  c.delay_choices = 1;
  SeededDecisions d(1);
  RunResult r = run(w, d, s.faults, c);
  EXPECT_TRUE(r.violations.empty()) << r.violations.front().message;
  return r;
}

ScriptedFault at(FaultKind kind, int client, TimeMs t, TimeMs duration_ms = 0) {
  ScriptedFault f;
  f.kind = kind;
  f.client = client;
  f.at = t;
  f.duration_ms = duration_ms;
  return f;
}

// On the client's nth request of `request_kind` under `path` (by default:
// on its contender nodes).
ScriptedFault on(FaultKind kind, int client, std::int32_t request_kind, int nth = 1,
                 std::string path = "/zksim/recipe/_c_") {
  ScriptedFault f;
  f.kind = kind;
  f.client = client;
  f.on = RequestMatch{request_kind, std::move(path)};
  f.nth = nth;
  return f;
}

int reached(const RunResult& r, const std::string& probe) {
  EXPECT_TRUE(find_probe(probe)) << probe << " is not in the table";
  auto it = r.probes.find(probe);
  return it == r.probes.end() ? 0 : it->second;
}

// Who held when, to pin down that a script hit what it aims at.
bool granted(const RunResult& r, int client) {
  return std::any_of(r.history.ops().begin(), r.history.ops().end(), [&](const Op& op) {
    return op.client == client && op.f == "acquire" && op.outcome == Outcome::Ok;
  });
}

constexpr std::int32_t kCreate = request_kind<CreateRequest>;
constexpr std::int32_t kDelete = request_kind<DeleteRequest>;
constexpr std::int32_t kGetChildren = request_kind<GetChildrenRequest>;

TEST(Probes, AQuietRunReachesNone) {
  for (const char* recipe : {"lock", "rw-lock", "semaphore", "election"}) {
    RunResult r = run_script(Script{.recipe = recipe, .clients = 3, .rounds = 3});
    EXPECT_EQ(r.completed_rounds, 9) << recipe;
    EXPECT_TRUE(r.probes.empty()) << recipe << " reached " << r.probes.begin()->first;
  }
}

TEST(Probes, HolderSessionExpiredAndToldLost) {
  RunResult r = run_script(Script{.faults = {at(FaultKind::ExpireSession, 0, 100)}});
  EXPECT_EQ(reached(r, "holder-session-expired"), 1);
  EXPECT_EQ(reached(r, "holder-told-lost"), 1);
  EXPECT_EQ(reached(r, "contender-session-expired"), 0);
  // The waiter's session instead: a contender, not a holder.
  RunResult w = run_script(Script{.faults = {at(FaultKind::ExpireSession, 1, 100)}});
  EXPECT_EQ(reached(w, "holder-session-expired"), 0);
  EXPECT_EQ(reached(w, "holder-told-lost"), 0);
  EXPECT_EQ(reached(w, "contender-session-expired"), 1);
}

TEST(Probes, PausedHolderPastItsSessionTimeout) {
  // Paused at t=100 for 3 s against a 2 s session: the server expires it
  // mid-pause, client 1 is granted, and client 0 hears only at t=3100.
  RunResult r = run_script(Script{.faults = {at(FaultKind::Pause, 0, 100, 3000)}});
  EXPECT_EQ(reached(r, "paused-past-session-timeout"), 1);
  EXPECT_EQ(reached(r, "holder-session-expired"), 1);
  EXPECT_EQ(reached(r, "granted-before-expired-holder-knew"), 1);
  EXPECT_EQ(reached(r, "watch-fired-by-expiry"), 1);
  EXPECT_EQ(reached(r, "holder-reconnected"), 0);
  // A short pause: nothing expires, nobody is granted early.
  RunResult s = run_script(Script{.faults = {at(FaultKind::Pause, 0, 100, 500)}});
  EXPECT_TRUE(s.probes.empty()) << s.probes.begin()->first;
}

TEST(Probes, HolderReconnected) {
  // 1.5 s: longer than the 2/3 of the session after which the client gives
  // up on its connection, shorter than the session: it reconnects, holding.
  RunResult r = run_script(Script{.hold_ms = 3000, .faults = {at(FaultKind::Pause, 0, 100, 1500)}});
  EXPECT_EQ(reached(r, "holder-reconnected"), 1);
  EXPECT_EQ(reached(r, "paused-past-session-timeout"), 0);
  EXPECT_EQ(reached(r, "holder-session-expired"), 0);
}

TEST(Probes, ReconnectFiredMissedWatch) {
  // Client 1 watches client 0's node from t≈16; paused 1.5 s from t=20, it
  // misses the release at t≈314, reconnects at t≈1532 and setWatches fires
  // the deletion it missed.
  RunResult r = run_script(Script{.faults = {at(FaultKind::Pause, 1, 20, 1500)}});
  EXPECT_EQ(reached(r, "reconnect-fired-missed-watch"), 1);
  // Paused 400 ms: the connection survives and the event is delivered late,
  // on the same connection, not fired on reconnect.
  RunResult s = run_script(Script{.faults = {at(FaultKind::Pause, 1, 20, 400)}});
  EXPECT_EQ(reached(s, "reconnect-fired-missed-watch"), 0);
  EXPECT_TRUE(granted(s, 1));
}

TEST(Probes, CrashedHolderAndAWatchFiredByItsExpiry) {
  RunResult r = run_script(Script{.faults = {at(FaultKind::Crash, 0, 100)}});
  EXPECT_EQ(reached(r, "crashed-holder"), 1);
  EXPECT_EQ(reached(r, "watch-fired-by-expiry"), 1);
  EXPECT_TRUE(granted(r, 1));
  // Crashing the waiter: no holder crashed; nobody watched its node.
  RunResult w = run_script(Script{.faults = {at(FaultKind::Crash, 1, 100)}});
  EXPECT_EQ(reached(w, "crashed-holder"), 0);
  EXPECT_EQ(reached(w, "watch-fired-by-expiry"), 0);
}

TEST(Probes, GrantedAfterSessionExpired) {
  // Client 1 wakes at t≈316 (client 0 released) and lists the children
  // again; the server answers, then expires client 1's session (a fault on
  // a request strikes after the reply is sent). The answer makes it the
  // holder at t≈318, of a node that is already gone.
  RunResult r = run_script(Script{.faults = {on(FaultKind::ExpireSession, 1, kGetChildren, 2, "/zksim/recipe")}});
  EXPECT_EQ(reached(r, "granted-after-session-expired"), 1);
  EXPECT_TRUE(granted(r, 1));
  EXPECT_EQ(reached(r, "holder-session-expired"), 0);
  // Expired just after the grant: an expiry while it held.
  RunResult s = run_script(Script{.faults = {at(FaultKind::ExpireSession, 1, 319)}});
  EXPECT_EQ(reached(s, "granted-after-session-expired"), 0);
  EXPECT_EQ(reached(s, "holder-session-expired"), 1);
}

TEST(Probes, CreateAppliedReplyLostAndFoundAgain) {
  // The first contender create fails (its directory does not exist yet),
  // the second makes the node.
  RunResult r = run_script(Script{.clients = 1, .faults = {on(FaultKind::DropAfterApply, 0, kCreate, 2)}});
  EXPECT_EQ(reached(r, "create-applied-reply-lost"), 1);
  EXPECT_EQ(reached(r, "lost-create-found-again"), 1);
  EXPECT_EQ(r.completed_rounds, 1);
  // The first: applied, but as NoNode, so nothing was created.
  RunResult f = run_script(Script{.clients = 1, .faults = {on(FaultKind::DropAfterApply, 0, kCreate, 1)}});
  EXPECT_EQ(reached(f, "create-applied-reply-lost"), 0);
  EXPECT_EQ(reached(f, "lost-create-found-again"), 0);
}

TEST(Probes, DeleteAppliedReplyLost) {
  RunResult r = run_script(Script{.clients = 1, .faults = {on(FaultKind::DropAfterApply, 0, kDelete)}});
  EXPECT_EQ(reached(r, "delete-applied-reply-lost"), 1);
  EXPECT_EQ(reached(r, "create-applied-reply-lost"), 0);
  RunResult b = run_script(Script{.clients = 1, .faults = {on(FaultKind::DropBeforeApply, 0, kDelete)}});
  EXPECT_EQ(reached(b, "delete-applied-reply-lost"), 0);
}

TEST(Probes, CreateNotApplied) {
  RunResult r = run_script(Script{.clients = 1, .faults = {on(FaultKind::DropBeforeApply, 0, kCreate, 2)}});
  EXPECT_EQ(reached(r, "create-not-applied"), 1);
  EXPECT_EQ(reached(r, "create-applied-reply-lost"), 0);
  EXPECT_EQ(r.completed_rounds, 1);
}

TEST(Probes, PredecessorGoneBeforeWatch) {
  // Client 1's listing (answered at t≈14) waits out a 400 ms pause from
  // t=13; meanwhile client 0 releases, so the getData on it finds nothing.
  RunResult r = run_script(Script{.faults = {at(FaultKind::Pause, 1, 13, 400)}});
  EXPECT_EQ(reached(r, "predecessor-gone-before-watch"), 1);
  // Paused after setting its watch: the release wakes it as usual.
  RunResult s = run_script(Script{.faults = {at(FaultKind::Pause, 1, 20, 400)}});
  EXPECT_EQ(reached(s, "predecessor-gone-before-watch"), 0);
}

TEST(Probes, TimeoutWithdrewNode) {
  RunResult r = run_script(Script{.hold_ms = 600, .timeout_ms = 200});
  EXPECT_EQ(reached(r, "timeout-withdrew-node"), 1);
  RunResult s = run_script(Script{.hold_ms = 600, .timeout_ms = 5000});
  EXPECT_EQ(reached(s, "timeout-withdrew-node"), 0);
}

TEST(Probes, OtherRecipesReachTheHolderProbesToo) {
  for (const char* recipe : {"rw-lock", "semaphore", "election"}) {
    // One lease: the paused holder's expiry lets the next in.
    RunResult r = run_script(
        Script{.recipe = recipe, .clients = 3, .leases = 1, .faults = {at(FaultKind::Pause, 0, 100, 3000)}});
    EXPECT_EQ(reached(r, "holder-session-expired"), 1) << recipe;
    EXPECT_EQ(reached(r, "granted-before-expired-holder-knew"), 1) << recipe;
  }
}

// The table: unique names, each described, expected of known recipes, and
// each exercised above.
TEST(ProbeTable, RowsAreWellFormedAndEachIsTestedHere) {
  const std::set<std::string> tested{
      "holder-session-expired",     "holder-told-lost",          "granted-before-expired-holder-knew",
      "granted-after-session-expired", "crashed-holder",         "watch-fired-by-expiry",
      "paused-past-session-timeout", "holder-reconnected",       "reconnect-fired-missed-watch",
      "create-applied-reply-lost",  "lost-create-found-again",   "delete-applied-reply-lost",
      "create-not-applied",         "predecessor-gone-before-watch", "timeout-withdrew-node",
      "contender-session-expired"};
  std::set<std::string> names;
  for (const ProbeInfo& p : probe_table()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name << " twice";
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_FALSE(p.recipes.empty()) << p.name;
    for (const std::string& r : p.recipes) {
      EXPECT_TRUE(std::count(recipe_names().begin(), recipe_names().end(), r)) << p.name << ": " << r;
    }
    EXPECT_EQ(find_probe(p.name), &p);
  }
  EXPECT_EQ(names, tested);
  EXPECT_EQ(find_probe("nope"), nullptr);
}

TEST(ProbeTally, CountsTimesAndRunsAndMerges) {
  ProbeTally a, b;
  a.add({{"crashed-holder", 2}});
  a.add({});
  b.add({{"crashed-holder", 1}, {"holder-told-lost", 3}});
  EXPECT_EQ(a.runs(), 2);
  EXPECT_EQ(a.times("crashed-holder"), 2);
  EXPECT_EQ(a.runs_reaching("crashed-holder"), 1);
  a.merge(b);
  EXPECT_EQ(a.runs(), 3);
  EXPECT_EQ(a.times("crashed-holder"), 3);
  EXPECT_EQ(a.runs_reaching("crashed-holder"), 2);
  EXPECT_EQ(a.times("holder-told-lost"), 3);
  EXPECT_EQ(a.times("holder-reconnected"), 0);
  // In table order.
  EXPECT_EQ(a.reached(), (std::vector<std::string>{"holder-told-lost", "crashed-holder"}));
}

TEST(ProbeTally, UnreachedListsExpectedProbesNoRunReached) {
  ProbeTally t;
  std::vector<std::string> all;
  for (const ProbeInfo& p : probe_table()) {
    if (std::count(p.recipes.begin(), p.recipes.end(), "lock")) all.push_back(p.name);
  }
  EXPECT_EQ(t.unreached("lock"), all);
  EXPECT_TRUE(t.unreached("flawed/herd-lock").empty());
  t.add({{"crashed-holder", 1}});
  auto left = t.unreached("lock");
  EXPECT_EQ(left.size(), all.size() - 1);
  EXPECT_FALSE(std::count(left.begin(), left.end(), "crashed-holder"));
  // Only those stated for a fault class.
  EXPECT_TRUE(t.unreached("lock", FaultKind::Crash) == std::vector<std::string>{"watch-fired-by-expiry"});
  EXPECT_TRUE(t.unreached("lock", FaultKind::Delay).empty());
}

TEST(ProbeTally, RenderHasALinePerProbeAndKeepsUnknownNames) {
  ProbeTally t;
  t.add({{"crashed-holder", 2}, {"someone-elses-probe", 1}});
  std::string text = t.render();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(probe_table().size()) + 1);
  EXPECT_NE(text.find("crashed-holder"), std::string::npos);
  EXPECT_NE(text.find("someone-elses-probe"), std::string::npos);
  EXPECT_EQ(t.reached().back(), "someone-elses-probe");
}

}  // namespace
}  // namespace zksim::scenarios
