// op-chain in the harness: scenario files name it, a run replays, and it
// catches a recipe that survives every single fault but not a chain:
// Curator's protected create as it was before CURATOR-498, which, retried
// in a new session after a long disconnection, took the closing session's
// node for its own. Shrinking such a run keeps the chain.
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/scenario.h"
#include "zksim/scenarios/shrink.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace zksim::scenarios {
namespace {

// A lock as Curator's InterProcessMutex makes one: a protected
// ephemeral-sequential node ("_c_<unique id>-lock-<seq>"), its turn when it
// is the lowest, a waiter watching its predecessor. After a ConnectionLoss
// or SessionExpired the create is retried, as Curator's retry loop does
// (in a new session, once the library opened one), and first looks for a
// node with its unique id among the children.
//   kChecksSession false: a node found is taken whichever session made it
//     (Curator before CURATOR-498). A create whose reply was lost, then a
//     disconnection past the session timeout: the library gives the session
//     up and opens a new one, the server has not expired the old one yet,
//     and the lock waits, or holds, with a node that goes when it does.
//   kChecksSession true: CURATOR-498's fix (ProtectedMode.validateFoundNode):
//     a node found in another session than the first try's is deleted and
//     the create made again.
// A wait ends with SessionExpired when the session changes under it (its
// node went, or goes, with the old one); a holder is told "suspended" when
// its connection breaks, and "lost" when its session expires: it holds no
// more.
template <bool kChecksSession>
class ProtectedLock {
 public:
  ProtectedLock(Client& zk, std::string dir, recipes::HoldListener on_hold)
      : zk_(zk), dir_(std::move(dir)), on_hold_(std::move(on_hold)) {
    listener_ = zk_.add_session_listener([this](const WatchedEvent& e) {
      if (e.type != EventType::None || !held_ || !on_hold_) return;
      if (e.state == KeeperState::Disconnected) on_hold_(recipes::HoldEvent::Suspended);
      if (e.state == KeeperState::SyncConnected) on_hold_(recipes::HoldEvent::Reconnected);
      if (e.state != KeeperState::Expired) return;
      held_ = false;
      on_hold_(recipes::HoldEvent::Lost);
    });
  }
  ~ProtectedLock() { zk_.remove_session_listener(listener_); }
  ProtectedLock(const ProtectedLock&) = delete;
  ProtectedLock& operator=(const ProtectedLock&) = delete;

  Task<Result<recipes::Grant>> acquire(TimeMs) {
    first_session_ = zk_.session_id();
    auto made = co_await create_protected("_c_" + zk_.unique_id() + "-lock-");
    if (!made) co_return made.error();
    const std::string mine = made->first.substr(dir_.size() + 1);
    // The session its node goes with, it believes: the flaw of the blind
    // one, which may have found a node of the session before.
    const SessionId made_in = zk_.session_id();
    for (;;) {
      if (zk_.session_id() != made_in) co_return Error::SessionExpired;
      auto listed = co_await zk_.get_children(dir_);
      if (!listed && listed.error() == Error::ConnectionLoss) continue;
      if (!listed) co_return listed.error();
      std::vector<std::string> names = listed->children;
      std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
        return a.substr(a.size() - 10) < b.substr(b.size() - 10);
      });
      auto me = std::find(names.begin(), names.end(), mine);
      if (me == names.end()) {
        // Gone with a session this acquire had, or deleted by another.
        co_return zk_.session_id() != first_session_ ? Error::SessionExpired : Error::NoNode;
      }
      if (me == names.begin()) {
        // A listing read in the session, still connected, grants.
        if (zk_.state() != SessionState::Connected || zk_.session_id() != made_in) continue;
        node_ = made->first;
        held_ = true;
        co_return recipes::Grant{node_, made->second};
      }
      Signal changed;
      auto there = co_await zk_.get_data(dir_ + "/" + *(me - 1), signal_watcher(changed));
      if (!there && (there.error() == Error::NoNode || there.error() == Error::ConnectionLoss)) continue;
      if (!there) co_return there.error();
      co_await changed.wait();
    }
  }

  Task<Result<void>> release() {
    held_ = false;
    for (;;) {
      auto gone = co_await zk_.remove(node_);
      if (gone || gone.error() != Error::ConnectionLoss) co_return Result<void>();
    }
  }

  bool holds() const { return held_; }

 private:
  static bool retried(Error e) { return e == Error::ConnectionLoss || e == Error::SessionExpired; }

  // The node's path and its czxid.
  Task<Result<std::pair<std::string, std::int64_t>>> create_protected(std::string prefix) {
    for (;;) {
      auto made = co_await zk_.create(dir_ + "/" + prefix, "", CreateMode::EphemeralSequential);
      // The first try's session, once there is one (Curator's
      // ProtectedMode.checkSetSessionId).
      if (first_session_ == SessionId{}) first_session_ = zk_.session_id();
      if (made) co_return std::pair{made->path, made->stat.czxid};
      if (made.error() == Error::NoNode) {
        // The directory and its ancestors, each made unless there.
        std::size_t end = 0;
        do {
          end = dir_.find('/', end + 1);
          co_await zk_.create(dir_.substr(0, end), "", CreateMode::Persistent);
        } while (end != std::string::npos);
        continue;
      }
      if (!retried(made.error())) co_return made.error();
      for (;;) {
        auto listed = co_await zk_.get_children(dir_);
        if (!listed && retried(listed.error())) continue;
        if (!listed && listed.error() == Error::NoNode) break;  // no directory yet: not made
        if (!listed) co_return listed.error();
        auto found = std::find_if(listed->children.begin(), listed->children.end(),
                                  [&](const std::string& c) { return c.starts_with(prefix); });
        if (found == listed->children.end()) break;
        const std::string path = dir_ + "/" + *found;
        if (kChecksSession && zk_.session_id() != first_session_) {
          co_await zk_.remove(path);  // the old session's: it goes anyway
          first_session_ = zk_.session_id();
          break;
        }
        auto stat = co_await zk_.exists(path);
        if (!stat && retried(stat.error())) continue;
        if (!stat && stat.error() == Error::NoNode) break;
        if (!stat) co_return stat.error();
        co_return std::pair{path, stat->czxid};
      }
    }
  }

  Client& zk_;
  std::string dir_;
  recipes::HoldListener on_hold_;
  std::uint64_t listener_ = 0;
  SessionId first_session_;  // the session of the acquire's first try
  std::string node_;
  bool held_ = false;
};

constexpr const char* kBlind = "test/session-blind-protected-lock";
constexpr const char* kChecked = "test/session-checked-protected-lock";

void register_locks() {
  static const bool done = [] {
    Recipe blind{.name = kBlind, .summary = "Curator's protected create before CURATOR-498"};
    blind.traits.tells_loss = true;
    blind.make_lock = [](const HandleContext& c) {
      return exclusive<ProtectedLock<false>>(c.zk, c.dir, c.on_hold);
    };
    Recipe checked{.name = kChecked, .summary = "Curator's protected create with CURATOR-498's fix"};
    checked.traits.tells_loss = true;
    checked.make_lock = [](const HandleContext& c) {
      return exclusive<ProtectedLock<true>>(c.zk, c.dir, c.on_hold);
    };
    return register_recipe(std::move(blind)).empty() && register_recipe(std::move(checked)).empty();
  }();
  ASSERT_TRUE(done);
}

// Curator clients holding long enough for an old session to expire under
// a holder.
Workload curator_workload(const std::string& recipe) {
  return Workload{.recipe = recipe, .clients = 4, .rounds = 4, .hold_ms = 1500, .flavours = {Flavour::Curator}};
}

WorldConfig one_class(int fault_class) {
  WorldConfig c;
  c.nemesis.per_mille[fault_class] = is_timed_class(fault_class) ? 300 : 30;
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

// Seeded runs that a recipe must survive; op-chain catches the blind one
// at the 19th, so that search always goes up to kCatchSeeds.
constexpr std::uint64_t kSeeds = test::full_or_smoke<std::uint64_t>(500, 10);
constexpr std::uint64_t kCatchSeeds = 500;

// The first of `seeds` seeded runs that violates a property, and the
// property; seed 0 if none does.
std::pair<std::uint64_t, std::string> first_caught(const std::string& recipe, int fault_class,
                                                   std::uint64_t seeds = kSeeds) {
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededDecisions d(seed);
    const RunResult r = run(curator_workload(recipe), d, {}, one_class(fault_class), KeepTrace::No);
    if (!r.violations.empty()) return {seed, r.violations.front().property};
  }
  return {0, ""};
}

TEST(OpChainRuns, ASessionBlindProtectedCreateSurvivesEverySingleFaultOfOneServer) {
  register_locks();
  for (int k = 0; k < kClientFaultClasses; ++k) {
    if (k == kOpChain) continue;
    const auto [seed, property] = first_caught(kBlind, k);
    EXPECT_EQ(seed, 0u) << fault_class_name(k) << ": " << property;
  }
}

// Adopted, the old session's node goes when the server expires that
// session: a successor then waits on the same node as the holder-to-be (a
// herd), or is granted while it holds (mutual exclusion).
TEST(OpChainRuns, OpChainCatchesTheSessionBlindProtectedCreate) {
  register_locks();
  const auto [seed, property] = first_caught(kBlind, kOpChain, kCatchSeeds);
  EXPECT_NE(seed, 0u);
  EXPECT_TRUE(property == "herd-effect" || property == "mutual-exclusion") << property;
}

TEST(OpChainRuns, CURATOR498sFixSurvivesOpChain) {
  register_locks();
  const auto [seed, property] = first_caught(kChecked, kOpChain);
  EXPECT_EQ(seed, 0u) << property;
}

TEST(OpChainRuns, ShrinkingKeepsTheChainTheViolationNeeds) {
  register_locks();
  const auto [seed, property] = first_caught(kBlind, kOpChain, kCatchSeeds);
  ASSERT_NE(seed, 0u);
  SeededDecisions inner(seed);
  RecordingDecisions rec(inner);
  run(curator_workload(kBlind), rec, {}, one_class(kOpChain), KeepTrace::No);
  Scenario s;
  s.workload = curator_workload(kBlind);
  s.config = one_class(kOpChain);
  s.decisions = rec.recorded();
  const Shrunk shrunk = shrink_scenario(s, property, test::full_or_smoke(500, 60));
  ASSERT_TRUE(shrunk.reproduced);
  EXPECT_LT(shrunk.scenario.decisions.size(), s.decisions.size());
  const ScenarioRun again = run_scenario(shrunk.scenario, KeepTrace::Yes);
  EXPECT_TRUE(again.as_expected);
  // The whole chain, aimed at a create: its reply lost, then the outage.
  int lost = 0, outage = 0;
  for (const TraceEvent& e : again.result.trace) {
    if (e.kind != TraceKind::Fault) continue;
    if (e.detail.starts_with("applied ZOK, reply lost; op-chain reply-lost-outage on create")) ++lost;
    if (e.detail.starts_with("op-chain reply-lost-outage on create: connection broken")) ++outage;
  }
  EXPECT_GE(lost, 1) << write_scenario(shrunk.scenario);
  EXPECT_EQ(outage, lost) << write_scenario(shrunk.scenario);
  fmt::print("{} (seed {}) shrunk from {} to {} decisions in {} runs\n", property, seed, s.decisions.size(),
             shrunk.scenario.decisions.size(), shrunk.runs);
}

TEST(OpChainScenarios, ANemesisLineNamesTheClassAndTheFileReplaysByteForByte) {
  const std::string text =
      "zksim-scenario 2\n"
      "recipe lock\n"
      "clients 3\n"
      "rounds 3\n"
      "nemesis op-chain 200\n"
      "nemesis-pause-ms 3000\n"
      "seed 11\n"
      "expect pass\n";
  ParseError e;
  const std::optional<Scenario> s = parse_scenario(text, "op-chain.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_EQ(s->config.nemesis.per_mille[kOpChain], 200u);
  EXPECT_NE(write_scenario(*s).find("nemesis op-chain 200\n"), std::string::npos) << write_scenario(*s);
  const ScenarioRun a = run_scenario(*s, KeepTrace::Yes), b = run_scenario(*s, KeepTrace::Yes);
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_GT(a.result.struck[kOpChain], 0);
  EXPECT_TRUE(a.result.violations.empty()) << a.result.violations.front().message;
  std::string rendered_a, rendered_b;
  for (const TraceEvent& t : a.result.trace) rendered_a += render_event(t) + "\n";
  for (const TraceEvent& t : b.result.trace) rendered_b += render_event(t) + "\n";
  EXPECT_EQ(rendered_a, rendered_b);
  EXPECT_NE(rendered_a.find("op-chain "), std::string::npos);
}

}  // namespace
}  // namespace zksim::scenarios
