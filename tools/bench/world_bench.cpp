// End-to-end simulated client operations per second: a coroutine on one
// client issues create / getData / setData / exists / delete through the
// whole path (client library -> network -> server -> network -> client),
// while <sessions> - 1 other sessions sit connected and idle. Pings are
// simulated lazily, so idle sessions should cost nothing: the figure must
// stay flat from 1 to 10,000 sessions. items_per_second counts operations;
// allocs_per_op, heap allocations (operator new) per operation, whole path.
#include "zksim/world.h"

#include "alloc_count.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>

namespace {

using namespace zksim;

constexpr int kOpsPerBatch = 1000;  // 200 rounds of 5 operations

Task<> batch(Client& c, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    std::string path = fmt::format("/b/n{}", i);
    co_await c.create(path, "0123456789abcdef", CreateMode::Persistent);
    co_await c.get_data(path);
    co_await c.set_data(path, "fedcba9876543210");
    co_await c.exists(path);
    co_await c.remove(path);
  }
}

// Makes /b, then runs one batch on `active` per iteration.
void run_batches(benchmark::State& state, World& world, Client& active) {
  world.spawn(active, [](Client& c) -> Task<> {
    co_await c.create("/b", "", CreateMode::Persistent);
  }(active));
  world.run_until_done(1'000'000);
  const std::uint64_t allocations_before = bench::allocations();
  for (auto _ : state) {
    world.spawn(active, batch(active, kOpsPerBatch / 5));
    if (!world.run_until_done(world.now() + 10'000'000)) state.SkipWithError("batch did not finish");
  }
  state.SetItemsProcessed(state.iterations() * kOpsPerBatch);
  state.counters["allocs_per_op"] =
      static_cast<double>(bench::allocations() - allocations_before) / static_cast<double>(state.iterations() * kOpsPerBatch);
}

WorldConfig bench_config(int servers) {
  WorldConfig cfg;
  cfg.keep_trace = false;
  cfg.delay_choices = 1;
  cfg.servers = servers;
  return cfg;
}

void BM_ClientOps(benchmark::State& state) {
  const int sessions = static_cast<int>(state.range(0));
  SeededDecisions decisions(1);
  World world(bench_config(1), decisions);
  Client& active = world.open("active", 30000);
  for (int i = 1; i < sessions; ++i) world.open(fmt::format("idle{}", i), 30000);
  run_batches(state, world, active);
  state.counters["sessions"] = sessions;
  state.counters["trace_events"] = static_cast<double>(world.trace().size());
}
BENCHMARK(BM_ClientOps)->Arg(1)->Arg(100)->Arg(10'000)->Unit(benchmark::kMillisecond);

// The same batches on an ensemble of 1, 3 or 5 servers, the client on the
// last server (a follower but on one server): each write waits for its
// server to apply it, each read is answered from its replica.
void BM_ClientOpsOnServers(benchmark::State& state) {
  const int servers = static_cast<int>(state.range(0));
  SeededDecisions decisions(1);
  World world(bench_config(servers), decisions);
  Client& active = world.open("active", 30000, -1, Flavour::C, {servers - 1});
  run_batches(state, world, active);
}
BENCHMARK(BM_ClientOpsOnServers)->ArgName("servers")->Arg(1)->Arg(3)->Arg(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
