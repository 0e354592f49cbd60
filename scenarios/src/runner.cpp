#include "workloads.h"

#include "zksim/scenarios/probes.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::scenarios {

std::optional<int> FencedCounter::read(std::int64_t fence) {
  if (fence < newest_) {
    ++refused_;
    return std::nullopt;
  }
  newest_ = fence;
  return value_;
}

bool FencedCounter::write(std::int64_t fence, int value) {
  if (fence < newest_) {
    ++refused_;
    return false;
  }
  newest_ = fence;
  value_ = value;
  ++accepted_;
  return true;
}

namespace detail {

bool session_over(const Client& zk) {
  return zk.state() == SessionState::Expired || zk.state() == SessionState::Closed;
}

void record_failure(History& h, std::size_t op, TimeMs now, Error e) {
  if (e == Error::ConnectionLoss) {
    h.info(op, now, e);
  } else {
    h.fail(op, now, e);
  }
}

void append(std::vector<Violation>& to, std::vector<Violation> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

std::size_t watches_left(const Server& server, const std::function<bool(const std::string&)>& allowed) {
  std::size_t n = 0;
  for (SessionId session : server.sessions()) {
    for (const std::string& watch : server.watches_of(session)) n += !allowed(watch);
  }
  return n;
}

}  // namespace detail

namespace {

const std::vector<detail::Family>& families() {
  static const std::vector<detail::Family> all{detail::lock_family(), detail::queue_family(),
                                               detail::barrier_family()};
  return all;
}

const detail::Family* family_of(const std::string& recipe) {
  for (const detail::Family& f : families()) {
    if (std::ranges::count(f.recipes, recipe)) return &f;
  }
  return nullptr;
}

}  // namespace

bool recipe_is_flawed(const std::string& name) { return name.starts_with("flawed/"); }

const std::vector<std::string>& recipe_names() {
  // The correct recipes of every family, then the flawed ones.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (bool flawed : {false, true}) {
      for (const detail::Family& f : families()) {
        for (const std::string& r : f.recipes) {
          if (recipe_is_flawed(r) == flawed) out.push_back(r);
        }
      }
    }
    return out;
  }();
  return names;
}

const std::vector<std::string>& property_names() {
  static const std::vector<std::string> names{
      "mutual-exclusion", "read-write-exclusion", "semaphore-leases", "one-leader",
      "server-exclusion", "fifo",               "herd-effect",      "fenced-exclusion",
      "queue-no-loss",
      "queue-no-duplicates", "queue-no-phantoms", "queue-fifo",     "barrier-enter",
      "barrier-leave",    "barrier-wait",         "liveness",         "no-leaks"};
  return names;
}

std::vector<std::string> properties_of(const std::string& recipe) {
  const detail::Family* f = family_of(recipe);
  return f ? f->properties(recipe) : std::vector<std::string>{};
}

WorldConfig FlawedRecipe::config() const {
  WorldConfig c;
  c.nemesis.per_mille[static_cast<int>(fault)] = per_mille;
  c.nemesis.pause_ms = 3000;
  c.nemesis.delay_ms = 50;
  return c;
}

const std::vector<FlawedRecipe>& flawed_recipes() {
  static const std::vector<FlawedRecipe> all{
      {"flawed/blog-rw-lock", "read-write-exclusion"},
      {"flawed/blog-rw-lock-index-fixed", "read-write-exclusion"},
      {"flawed/prefix-write-lock", "mutual-exclusion"},
      {"flawed/herd-lock", "herd-effect"},
      {"flawed/no-guid-lock", "liveness", FaultKind::DropAfterApply, 50},
      // Holds long enough to go on working after a pause.
      {"flawed/forgetful-lock", "mutual-exclusion", FaultKind::Pause, 30, 600},
  };
  return all;
}

RunResult run(const Workload& w, DecisionSource& decisions, const std::vector<ScriptedFault>& faults,
              WorldConfig config, TimeMs fault_phase_ms) {
  RunResult out;
  const detail::Family* family = family_of(w.recipe);
  // Before the world: the tasks the world destroys may still refer to it.
  detail::Shared s;
  World world(config, decisions);
  std::string problem;
  if (!family) {
    problem = fmt::format("unknown recipe '{}'", w.recipe);
  } else if (w.clients < 1 || w.rounds < 0) {
    problem = fmt::format("cannot run recipe '{}' with {} clients and {} rounds", w.recipe, w.clients, w.rounds);
  } else {
    problem = family->spawn(world, w, s);
  }
  if (!problem.empty()) {
    out.violations.push_back(Violation{"bad-workload", problem, {}, 0});
    return out;
  }
  for (const ScriptedFault& f : faults) world.schedule(f);
  world.run_until_done(fault_phase_ms);
  // Quiescence: faults stop; paused and crashed sessions time out; every
  // live waiter must then get its turn.
  world.set_nemesis({});
  const TimeMs settle = 20 * static_cast<TimeMs>(w.session_timeout_ms) + 60'000;
  world.run_until_done(world.now() + settle);
  world.run_until(world.now() + 2 * static_cast<TimeMs>(w.session_timeout_ms) + 1000);

  for (const TraceEvent& e : world.trace().events()) {
    if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Crash)) {
      s.history.note(e.client, e.time, "crashed");
    }
  }
  family->check(world, w, s, out);
  std::vector<Violation>& v = out.violations;
  std::stable_sort(v.begin(), v.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });

  out.probes = count_probes(world.trace().events(), s.history);
  out.history = std::move(s.history);
  out.completed_rounds = s.completed_rounds;
  out.trace_hash = world.trace().hash();
  out.trace_events = world.trace().size();
  out.end_time = world.now();
  out.trace = world.trace().take_events();
  return out;
}

}  // namespace zksim::scenarios
