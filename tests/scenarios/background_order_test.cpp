// A bug only the order of background completions exposes
// (Client::in_background; docs/flavours.md), caught by the harness: a
// Curator-style lock that takes its background create for done once a
// later call has returned. The C client runs completions and the recipe on
// one thread, in reply order, and the lock holds; Curator runs the
// callback on its EventThread and kazoo on its completion worker, while
// the caller goes on on its own thread, and two clients hold the lock.
#include "zksim/scenarios/gtest.h"
#include "zksim/scenarios/harness.h"
#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/scenario.h"
#include "zksim/scenarios/workload.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace zksim::scenarios {
namespace {

// FLAWED ON PURPOSE. Creates its lock node in the background, as Curator
// code does with create().withMode(EPHEMERAL_SEQUENTIAL).inBackground(cb):
// the callback records the node while the caller goes on to list the
// contenders. The flaw: the caller reads what the callback recorded as
// soon as the listing, sent after the create and answered after it, has
// returned. If the callback has not run yet, its node is unknown, its
// index among the contenders is -1, and "index < 1", the test of Curator's
// StandardLockInternalsDriver.getsTheLock (which its validateOurIndex
// guards against -1), grants it. Judged without faults only: it does not
// survive a lost reply to its create.
class BackgroundCreateLock {
 public:
  BackgroundCreateLock(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}

  Task<Result<recipes::Grant>> acquire(TimeMs timeout_ms) {
    const TimeMs deadline = timeout_ms < 0 ? -1 : zk_.now() + timeout_ms;
    // The directory and its ancestors (NodeExists once they are there).
    for (std::size_t slash = dir_.find('/', 1);; slash = dir_.find('/', slash + 1)) {
      std::string path = dir_.substr(0, slash);
      co_await zk_.create(std::move(path), "", CreateMode::Persistent);
      if (slash == std::string::npos) break;
    }
    auto mine = std::make_shared<Mine>();
    mine_ = mine;
    zk_.in_background(zk_.create(dir_ + "/lock-", "", CreateMode::EphemeralSequential),
                      [mine](Result<CreateResponse> made) {
                        if (made) mine->path = made->path;
                        mine->error = made ? Error::Ok : made.error();
                        mine->created.set();
                      });
    for (;;) {
      auto listed = co_await zk_.get_children(dir_);
      if (!listed) co_return listed.error();
      // The flaw: the create's reply came first, so its callback is taken
      // to have run.
      if (mine->error != Error::Ok) co_return mine->error;
      std::vector<std::string> names = listed->children;
      std::sort(names.begin(), names.end());  // "lock-" and ten digits: by sequence
      const std::string own = mine->path.substr(mine->path.rfind('/') + 1);
      const auto at = std::find(names.begin(), names.end(), own);
      const long index = at == names.end() ? -1 : at - names.begin();
      if (index < 1) {
        held_ = true;
        co_return recipes::Grant{mine->path, 0};
      }
      Signal gone;
      std::string ahead = dir_ + "/" + names[static_cast<std::size_t>(index - 1)];
      auto watched = co_await zk_.get_data(std::move(ahead), signal_watcher(gone));
      if (!watched && watched.error() == Error::NoNode) continue;
      if (!watched) co_return watched.error();
      const TimeMs left = deadline < 0 ? -1 : std::max<TimeMs>(deadline - zk_.now(), 0);
      if (!co_await zk_.wait_for(gone, left)) {
        co_await zk_.remove(mine->path);
        co_return Error::OperationTimeout;
      }
    }
  }

  Task<Result<void>> release() {
    held_ = false;
    std::shared_ptr<Mine> mine = mine_;
    co_await zk_.wait_for(mine->created, -1);
    if (mine->path.empty()) co_return mine->error;
    for (;;) {
      auto gone = co_await zk_.remove(mine->path);
      if (gone || gone.error() == Error::NoNode) co_return Result<void>();
      if (gone.error() != Error::ConnectionLoss) co_return gone.error();
    }
  }

  bool holds() const { return held_; }

 private:
  // What the create's callback records; shared with it.
  struct Mine {
    std::string path;
    Error error = Error::Ok;
    Signal created;
  };
  Client& zk_;
  std::string dir_;
  std::shared_ptr<Mine> mine_;
  bool held_ = false;
};

const std::string kRecipe = "test/background-create-lock";

const bool registered = [] {
  Recipe r;
  r.name = kRecipe;
  r.summary = "a lock that takes its background create for done once a later call returned";
  r.family = RecipeFamily::Lock;
  r.make_lock = [](const HandleContext& c) { return exclusive<BackgroundCreateLock>(c.zk, c.dir); };
  Flaw f;
  f.property = "mutual-exclusion";
  f.flavour = Flavour::Curator;
  r.flaw = f;
  return register_recipe(std::move(r)).empty();
}();

constexpr std::uint64_t kSeeds = test::full_or_smoke<std::uint64_t>(300, 30);

// The first of `seeds` seeded runs, without faults, in which clients of
// `flavour` break mutual exclusion, or 0; every other violation fails the test.
std::uint64_t first_catch(Flavour flavour, std::uint64_t seeds) {
  const Workload w{.recipe = kRecipe, .clients = 4, .rounds = 4, .flavours = {flavour}};
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededDecisions d(seed);
    const RunResult r = run(w, d, {}, WorldConfig{});
    for (const Violation& v : r.violations) {
      if (v.property == "mutual-exclusion") return seed;
    }
    EXPECT_TRUE(r.violations.empty()) << flavour_name(flavour) << " seed " << seed << ": "
                                      << r.violations.front().property << ": " << r.violations.front().message;
  }
  return 0;
}

TEST(BackgroundOrder, ALockThatTakesItsBackgroundCreateForDoneHoldsWithTheCClient) {
  ASSERT_TRUE(registered);
  EXPECT_EQ(first_catch(Flavour::C, kSeeds), 0u);
}

TEST(BackgroundOrder, ALockThatTakesItsBackgroundCreateForDoneIsCaughtWithCuratorAndKazoo) {
  ASSERT_TRUE(registered);
  const std::uint64_t curator = first_catch(Flavour::Curator, kSeeds);
  const std::uint64_t kazoo = first_catch(Flavour::Kazoo, kSeeds);
  EXPECT_NE(curator, 0u);
  EXPECT_NE(kazoo, 0u);
  fmt::print("first caught with seed {} (curator), {} (kazoo)\n", curator, kazoo);
  // Even with every decision 0: a completion's step comes after what is
  // already due at its reply's instant, such as the listing's reply.
  for (Flavour f : {Flavour::Curator, Flavour::Kazoo}) {
    const Workload w{.recipe = kRecipe, .clients = 4, .rounds = 4, .flavours = {f}};
    ListDecisions zeros({});
    const RunResult r = run(w, zeros, {}, WorldConfig{});
    EXPECT_TRUE(std::any_of(r.violations.begin(), r.violations.end(),
                            [](const Violation& v) { return v.property == "mutual-exclusion"; }))
        << flavour_name(f);
  }
}

TEST(BackgroundOrder, TheHarnessCatchesItShrinksItAndItsScenarioReplays) {
  ASSERT_TRUE(registered);
  CheckOptions o;
  o.faults = {"none"};
  o.runs = test::full_or_smoke<std::int64_t>(100, 20);
  o.shrink_runs = test::full_or_smoke(200, 20);
  const Report r = check(kRecipe, o);
  EXPECT_THAT(r, Violates("mutual-exclusion"));
  const PropertyVerdict* v = r.find("mutual-exclusion");
  ASSERT_NE(v, nullptr);
  ParseError e;
  auto s = parse_scenario(v->scenario, "found.scn", &e);
  ASSERT_TRUE(s) << e.text();
  EXPECT_TRUE(run_scenario(*s).as_expected);
  fmt::print("shrunk to:\n{}", v->scenario);
}

}  // namespace
}  // namespace zksim::scenarios
