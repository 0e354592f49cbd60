// A random workload for world-level tests: clients issuing a mix of
// requests chosen by the same decision source that drives the world, under
// a nemesis that injects every fault class.
#pragma once

#include "zksim/world.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace zksim::test {

inline Task<> random_client(Client& c, DecisionSource& d, int steps) {
  for (int i = 0; i < steps; ++i) {
    switch (d.pick(8)) {
      case 0:
        co_await c.create("/w/n-", "", CreateMode::EphemeralSequential);
        break;
      case 1:
        co_await c.get_children("/w", [](const WatchedEvent&) {});
        break;
      case 2:
        co_await c.set_data("/w", std::to_string(i));
        break;
      case 3:
        co_await c.exists("/w/x", [](const WatchedEvent&) {});
        break;
      case 4:
        co_await c.create("/w/x", "", CreateMode::Ephemeral);
        break;
      case 5:
        co_await c.remove("/w/x");
        break;
      case 6:
        co_await c.get_data("/w", [](const WatchedEvent&) {});
        break;
      default:
        co_await c.sleep(static_cast<TimeMs>(d.pick(50)));
        break;
    }
  }
}

inline WorldConfig faulty_config() {
  WorldConfig cfg;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropBeforeApply)] = 20;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::DropAfterApply)] = 20;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::ExpireSession)] = 5;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::Pause)] = 10;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::Crash)] = 2;
  cfg.nemesis.per_mille[static_cast<int>(FaultKind::Delay)] = 20;
  cfg.nemesis.pause_ms = 2500;
  cfg.nemesis.delay_ms = 40;
  return cfg;
}

// Runs `clients` random clients for `steps` steps each under `config`;
// returns the trace hash.
inline std::uint64_t random_run_in(const WorldConfig& config, DecisionSource& d, int clients, int steps,
                                   const Trace** keep = nullptr, World** world_out = nullptr) {
  static thread_local std::unique_ptr<World> last;
  last = std::make_unique<World>(config, d);
  World& w = *last;
  Client& first = w.open("c0", 3000);
  w.spawn(first, [](Client& c) -> Task<> { co_await c.create("/w", "", CreateMode::Persistent); }(first));
  w.run_until(20);
  for (int i = 0; i < clients; ++i) {
    Client& c = i == 0 ? first : w.open(fmt::format("c{}", i), 3000);
    w.spawn(c, random_client(c, d, steps));
  }
  w.run_until_done(200'000);
  w.run_until(w.now() + 10'000);  // let sessions settle and expire
  if (keep) *keep = &w.trace();
  if (world_out) *world_out = &w;
  return w.trace().hash();
}

// The same under faulty_config().
inline std::uint64_t random_run(DecisionSource& d, int clients, int steps,
                                const Trace** keep = nullptr, World** world_out = nullptr) {
  return random_run_in(faulty_config(), d, clients, steps, keep, world_out);
}

}  // namespace zksim::test
