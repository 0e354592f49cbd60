// The simulator beside a real ZooKeeper 3.8 server, in one run, on the same
// workloads through the same client interface:
//   - lock handoffs: 5 clients contending on one recipes::Lock, each
//     acquiring and releasing at once; items_per_second counts grants;
//   - create+delete pairs from one client; items_per_second counts pairs.
// Both figures are wall-clock (for the simulator: the real time a simulated
// run takes). The real server is started as the tests start it
// (zksim_zk_server). The last line prints the ratios simulator / real,
// from the medians when --benchmark_repetitions > 1.
#include "zk_server.h"
#include "zksim/real_client.h"
#include "zksim/recipes/lock.h"
#include "zksim/world.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <zookeeper/zookeeper.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using namespace zksim;

constexpr int kContenders = 5;

test::ZkServer& server() {
  static test::ZkServer s;
  return s;
}

// Each contender takes the lock `grants` times, releasing it at once.
Task<> contend(Client& zk, std::string dir, int grants, int& granted) {
  recipes::Lock lock(zk, dir);
  for (int i = 0; i < grants; ++i) {
    auto g = co_await lock.acquire();
    if (!g) co_return;
    ++granted;
    auto released = co_await lock.release();
    if (!released) co_return;
  }
}

Task<> create_delete(Client& zk, std::string dir, int pairs, int& done) {
  for (int i = 0; i < pairs; ++i) {
    auto made = co_await zk.create(dir + "/n", "", CreateMode::Persistent);
    if (!made) co_return;
    auto gone = co_await zk.remove(dir + "/n");
    if (!gone) co_return;
    ++done;
  }
}

Task<> make_dir(Client& zk, std::string dir) {
  co_await zk.create("/bench", "", CreateMode::Persistent);
  co_await zk.create(dir, "", CreateMode::Persistent);
}

WorldConfig bench_world() {
  WorldConfig cfg;
  cfg.keep_trace = false;
  cfg.delay_choices = 1;
  return cfg;
}

// Per iteration: `per_client` grants for each of 5 contenders.
void BM_LockHandoffs_Sim(benchmark::State& state) {
  const int per_client = static_cast<int>(state.range(0));
  SeededDecisions decisions(1);
  World world(bench_world(), decisions);
  std::vector<Client*> clients;
  for (int i = 0; i < kContenders; ++i) clients.push_back(&world.open(fmt::format("c{}", i), 30000));
  int granted = 0;
  for (auto _ : state) {
    for (Client* c : clients) world.spawn(*c, contend(*c, "/bench/lock", per_client, granted));
    if (!world.run_until_done(world.now() + 100'000'000)) state.SkipWithError("did not finish");
  }
  if (granted != state.iterations() * kContenders * per_client) state.SkipWithError("a grant failed");
  state.SetItemsProcessed(granted);
}

void BM_LockHandoffs_Real(benchmark::State& state) {
  if (server().hosts().empty()) return state.SkipWithError(server().error().c_str());
  const int per_client = static_cast<int>(state.range(0));
  RealLoop loop;
  std::vector<std::unique_ptr<RealClient>> clients;
  for (int i = 0; i < kContenders; ++i) clients.push_back(RealClient::open(loop, server().hosts(), 10000));
  loop.spawn(make_dir(*clients[0], "/bench/lock"));
  loop.run_until_done(10'000);
  int granted = 0;
  for (auto _ : state) {
    for (auto& c : clients) loop.spawn(contend(*c, "/bench/lock", per_client, granted));
    if (!loop.run_until_done(120'000)) state.SkipWithError("did not finish");
  }
  if (granted != state.iterations() * kContenders * per_client) state.SkipWithError("a grant failed");
  state.SetItemsProcessed(granted);
}

void BM_CreateDelete_Sim(benchmark::State& state) {
  const int pairs = static_cast<int>(state.range(0));
  SeededDecisions decisions(1);
  World world(bench_world(), decisions);
  Client& c = world.open("c", 30000);
  world.spawn(c, make_dir(c, "/bench/cd"));
  world.run_until_done(1'000'000);
  int done = 0;
  for (auto _ : state) {
    world.spawn(c, create_delete(c, "/bench/cd", pairs, done));
    if (!world.run_until_done(world.now() + 100'000'000)) state.SkipWithError("did not finish");
  }
  if (done != state.iterations() * pairs) state.SkipWithError("an operation failed");
  state.SetItemsProcessed(done);
}

void BM_CreateDelete_Real(benchmark::State& state) {
  if (server().hosts().empty()) return state.SkipWithError(server().error().c_str());
  const int pairs = static_cast<int>(state.range(0));
  RealLoop loop;
  auto c = RealClient::open(loop, server().hosts(), 10000);
  loop.spawn(make_dir(*c, "/bench/cd"));
  loop.run_until_done(10'000);
  int done = 0;
  for (auto _ : state) {
    loop.spawn(create_delete(*c, "/bench/cd", pairs, done));
    if (!loop.run_until_done(120'000)) state.SkipWithError("did not finish");
  }
  if (done != state.iterations() * pairs) state.SkipWithError("an operation failed");
  state.SetItemsProcessed(done);
}

BENCHMARK(BM_LockHandoffs_Sim)->Arg(2000)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LockHandoffs_Real)->Arg(100)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CreateDelete_Sim)->Arg(10'000)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CreateDelete_Real)->Arg(1000)->UseRealTime()->Unit(benchmark::kMillisecond);

// The console output, plus each benchmark's rate (the median when there are
// repetitions) for the ratio line.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal.
  RatioReporter()
      : ConsoleReporter(::isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      auto it = r.counters.find("items_per_second");
      if (it == r.counters.end() || r.error_occurred) continue;
      const std::string& name = r.run_name.function_name;
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median") median_[name] = it->second;
      } else {
        last_[name] = it->second;
      }
    }
  }
  double rate(const std::string& name) const {
    if (auto it = median_.find(name); it != median_.end()) return it->second;
    auto it = last_.find(name);
    return it == last_.end() ? 0 : it->second.value;
  }
  void print_ratios() const {
    auto line = [this](const char* what, const std::string& bm) {
      double sim = rate("BM_" + bm + "_Sim"), real = rate("BM_" + bm + "_Real");
      if (sim <= 0 || real <= 0) return fmt::print("{}: not measured\n", what);
      fmt::print("{}: simulator {:.0f}/s, real server {:.0f}/s, ratio {:.0f}x\n", what, sim, real,
                 sim / real);
    };
    line("lock handoffs", "LockHandoffs");
    line("create+delete pairs", "CreateDelete");
  }

 private:
  std::map<std::string, benchmark::Counter> median_, last_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Level 0 silences the C client.
  zoo_set_debug_level(static_cast<ZooLogLevel>(0));
  if (!server().start()) fmt::print(stderr, "real server: {}\n", server().error());
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  server().stop();
  benchmark::Shutdown();
  return 0;
}
