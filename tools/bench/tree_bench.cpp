// Throughput and memory of the node store, through the public Server API.
//
//   BM_OpMix/<nodes>/<idle sessions>/<watches>: one iteration is five
//   requests on small nodes (create, getData, setData, getChildren of a
//   5-child parent, delete) against a background of <nodes> pre-existing
//   znodes, <idle sessions> other live sessions and <watches> data watches on
//   background paths. items_per_second counts requests.
//   BM_Memory: builds 1,000,000 znodes with 16-byte data and reports the
//   growth of the heap in use (mallinfo2) and of the resident set (statm).
//
// Background znodes are "/bg/d<4 digits>/node-<7 digits>" (25 bytes), 1000
// per parent.
#include "zksim/server.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using zksim::CreateRequest;
using zksim::DeleteRequest;
using zksim::Error;
using zksim::GetChildrenRequest;
using zksim::GetDataRequest;
using zksim::Request;
using zksim::Server;
using zksim::SessionId;
using zksim::SetDataRequest;

constexpr std::int64_t kPerParent = 1000;
constexpr int kMixDirs = 64;
const std::string kData16 = "0123456789abcdef";

std::string background_dir(std::int64_t k) { return fmt::format("/bg/d{:04}", k / kPerParent); }
std::string background_node(std::int64_t k) {
  return fmt::format("/bg/d{:04}/node-{:07}", k / kPerParent, k);
}

// Designated initializers would leave members uninitialized (-Wextra).
CreateRequest create(std::string path, std::string data = {}) {
  CreateRequest r;
  r.path = std::move(path);
  r.data = std::move(data);
  return r;
}
GetDataRequest get_data(std::string path, bool watch) {
  GetDataRequest r;
  r.path = std::move(path);
  r.watch = watch;
  return r;
}

void must(Error e) {
  if (e != Error::Ok) {
    std::fprintf(stderr, "setup failed: %d\n", static_cast<int>(e));
    std::abort();
  }
}

// Creates `count` background znodes with 16-byte data as `session`.
void add_background(Server& server, SessionId session, std::int64_t count) {
  must(server.apply(session, create("/bg"), 0).error);
  for (std::int64_t k = 0; k < count; ++k) {
    if (k % kPerParent == 0) {
      must(server.apply(session, create(background_dir(k)), 0).error);
    }
    must(server.apply(session, create(background_node(k), kData16), 0)
             .error);
  }
}

struct MixFixture {
  std::vector<std::int64_t> args;
  std::unique_ptr<Server> server = std::make_unique<Server>();
  SessionId session;
  // kMixDirs groups of five requests; group g works on "/mix/d<g>/x".
  std::vector<Request> cycle;
};

// Building 1M nodes takes seconds, so the fixture of the last configuration
// is kept across the repeated calls Google Benchmark makes.
MixFixture& mix_fixture(const std::vector<std::int64_t>& args) {
  static std::unique_ptr<MixFixture> cached;
  if (cached && cached->args == args) return *cached;
  cached.reset();
  auto f = std::make_unique<MixFixture>();
  f->args = args;
  const std::int64_t nodes = args[0], idle = args[1], watches = args[2];
  Server& server = *f->server;
  f->session = server.open_session(30000, 0).id;
  add_background(server, f->session, nodes);
  for (std::int64_t i = 0; i < idle; ++i) server.open_session(30000, 0);
  // Watch w is on background node w % nodes, from watcher session w / nodes.
  SessionId watcher{};
  for (std::int64_t w = 0; w < watches; ++w) {
    if (w % nodes == 0) watcher = server.open_session(30000, 0).id;
    must(server.apply(watcher, get_data(background_node(w % nodes), true),
                      0)
             .error);
  }
  must(server.apply(f->session, create("/mix"), 0).error);
  for (int g = 0; g < kMixDirs; ++g) {
    std::string dir = fmt::format("/mix/d{:02}", g);
    must(server.apply(f->session, create(dir), 0).error);
    for (int c = 0; c < 4; ++c) {
      must(server.apply(f->session, create(fmt::format("{}/c{}", dir, c)), 0)
               .error);
    }
    std::string path = dir + "/x";
    f->cycle.emplace_back(create(path, kData16));
    f->cycle.emplace_back(get_data(path, false));
    SetDataRequest set;
    set.path = path;
    set.data = "fedcba9876543210";
    f->cycle.emplace_back(std::move(set));
    GetChildrenRequest children;
    children.path = dir;
    f->cycle.emplace_back(std::move(children));
    DeleteRequest del;
    del.path = path;
    f->cycle.emplace_back(std::move(del));
  }
  cached = std::move(f);
  return *cached;
}

void BM_OpMix(benchmark::State& state) {
  MixFixture& f = mix_fixture({state.range(0), state.range(1), state.range(2)});
  Server& server = *f.server;
  const std::size_t n = f.cycle.size();
  std::size_t next = 0;
  std::int64_t failures = 0;
  zksim::TimeMs now = 1;
  for (auto _ : state) {
    for (int op = 0; op < 5; ++op) {
      zksim::Outcome out = server.apply(f.session, f.cycle[next + static_cast<std::size_t>(op)], now);
      failures += out.error != Error::Ok;
      benchmark::DoNotOptimize(out);
    }
    next += 5;
    if (next == n) next = 0;
    ++now;
  }
  if (failures != 0) state.SkipWithError("a request of the mix failed");
  state.SetItemsProcessed(state.iterations() * 5);
  state.counters["nodes"] = static_cast<double>(server.node_count());
  state.counters["watches"] = static_cast<double>(server.watch_count());
}

// Everything malloc has handed out and not taken back.
std::int64_t heap_in_use() { return static_cast<std::int64_t>(mallinfo2().uordblks); }

std::int64_t resident_bytes() {
  long pages_total = 0, pages_resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
  std::fclose(f);
  return static_cast<std::int64_t>(pages_resident) * sysconf(_SC_PAGESIZE);
}

void BM_Memory(benchmark::State& state) {
  const std::int64_t count = state.range(0);
  for (auto _ : state) {
    malloc_trim(0);
    std::int64_t heap0 = heap_in_use(), rss0 = resident_bytes();
    auto server = std::make_unique<Server>();
    SessionId s = server->open_session(30000, 0).id;
    add_background(*server, s, count);
    malloc_trim(0);
    std::int64_t heap = heap_in_use() - heap0, rss = resident_bytes() - rss0;
    benchmark::DoNotOptimize(server);
    state.counters["znodes"] = static_cast<double>(server->node_count());
    state.counters["heap_MB"] = static_cast<double>(heap) / 1e6;
    state.counters["rss_MB"] = static_cast<double>(rss) / 1e6;
    state.counters["heap_bytes_per_znode"] = static_cast<double>(heap) / static_cast<double>(count);
    state.counters["rss_bytes_per_znode"] = static_cast<double>(rss) / static_cast<double>(count);
    state.PauseTiming();
    server.reset();
    state.ResumeTiming();
  }
}

// First, so that the resident set it measures starts from a fresh process.
BENCHMARK(BM_Memory)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_OpMix)
    ->ArgNames({"nodes", "idle_sessions", "watches"})
    ->Args({1000, 0, 0})
    ->Args({1000000, 0, 0})
    ->Args({1000, 100000, 0})
    ->Args({1000000, 100000, 0})
    ->Args({1000, 0, 1000000})
    ->Args({1000000, 0, 1000000});

}  // namespace

BENCHMARK_MAIN();
