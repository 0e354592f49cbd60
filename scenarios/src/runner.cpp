#include "workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

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

const std::vector<std::string>& recipe_names() {
  static const std::vector<std::string> names{
      "lock", "rw-lock", "semaphore", "election",
      "flawed/blog-rw-lock", "flawed/blog-rw-lock-index-fixed", "flawed/prefix-write-lock",
      "flawed/herd-lock", "flawed/no-guid-lock", "flawed/forgetful-lock"};
  return names;
}

bool recipe_is_flawed(const std::string& name) { return name.starts_with("flawed/"); }

const std::vector<std::string>& property_names() {
  static const std::vector<std::string> names{
      "mutual-exclusion", "read-write-exclusion", "semaphore-leases", "one-leader",
      "fifo",             "herd-effect",          "fenced-exclusion", "queue-no-loss",
      "queue-no-duplicates", "queue-no-phantoms", "queue-fifo",     "barrier-enter",
      "barrier-leave",    "liveness",             "no-leaks"};
  return names;
}

std::vector<std::string> properties_of(const std::string& recipe) {
  const auto& all = recipe_names();
  if (std::find(all.begin(), all.end(), recipe) == all.end()) return {};
  std::vector<std::string> out;
  if (recipe.find("rw-lock") != std::string::npos) {
    out = {"read-write-exclusion", "fenced-exclusion"};
  } else if (recipe == "semaphore") {
    out = {"semaphore-leases"};
  } else {
    out = {recipe == "election" ? "one-leader" : "mutual-exclusion", "fifo", "herd-effect",
           "fenced-exclusion"};
  }
  out.push_back("liveness");
  out.push_back("no-leaks");
  return out;
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

namespace {

bool is_rw(const std::string& r) { return r.find("rw-lock") != std::string::npos; }

// Watch events delivered per (txn, path): how many clients one change woke.
int max_wakeups(const Trace& trace) {
  std::map<std::pair<std::int64_t, std::string_view>, int> woken;  // views into `trace`
  int most = 0;
  for (const TraceEvent& e : trace.events()) {
    if (e.kind != TraceKind::Watch) continue;
    auto type = static_cast<EventType>(e.code);
    if (type != EventType::NodeDeleted && type != EventType::NodeChildrenChanged) continue;
    most = std::max(most, ++woken[{e.zxid, e.path}]);
  }
  return most;
}

// The stretches in which a client could not act on its belief (paused) or
// could not have known better (its session expired on the server, and its
// library had not heard yet); see Window in checkers.h.
std::vector<Window> excused_windows(const Trace& trace) {
  // Session id -> client, built at the first expiry (most runs have none).
  std::optional<std::map<std::int64_t, int>> client_of;
  auto client_of_session = [&](std::int64_t session) {
    if (!client_of) {
      client_of.emplace();
      for (const TraceEvent& e : trace.events()) {
        if (e.client >= 0 && e.session.value != 0) client_of->emplace(e.session.value, e.client);
      }
    }
    auto c = client_of->find(session);
    return c == client_of->end() ? std::optional<int>() : std::optional<int>(c->second);
  };
  std::vector<Window> out;
  std::map<int, std::size_t> open;  // client -> expiry window waiting for news
  for (const TraceEvent& e : trace.events()) {
    if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Pause)) {
      TimeMs ms = std::atoll(e.detail.c_str());
      out.push_back(Window{e.client, e.time, e.time + ms});
    } else if (e.kind == TraceKind::Server &&
               e.code == static_cast<std::int32_t>(ServerAction::SessionExpired)) {
      std::optional<int> c = client_of_session(e.session.value);
      if (!c) continue;
      open[*c] = out.size();
      out.push_back(Window{*c, e.time, INT64_MAX});
    } else if (e.kind == TraceKind::State && open.count(e.client) &&
               e.code != static_cast<std::int32_t>(SessionState::Connected)) {
      out[open[e.client]].to = e.time;
      open.erase(e.client);
    }
  }
  return out;
}

void append(std::vector<Violation>& to, std::vector<Violation> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

RunResult run(const Workload& w, DecisionSource& decisions, const std::vector<ScriptedFault>& faults,
              WorldConfig config, TimeMs fault_phase_ms) {
  RunResult out;
  World world(config, decisions);
  detail::Shared s;
  if (w.clients < 1 || w.rounds < 0 || !detail::spawn_lock_family(world, w, s)) {
    out.violations.push_back(Violation{"bad-workload", fmt::format("cannot run recipe '{}' with {} clients", w.recipe, w.clients), {}, 0});
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
  std::vector<std::string> pending_fs{"acquire", "acquire-read", "acquire-write", "release",
                                      "release-read", "release-write"};
  std::vector<Violation>& v = out.violations;
  const std::string& r = w.recipe;
  out.max_wakeups_per_release = max_wakeups(world.trace());
  const std::vector<Window> excused = excused_windows(world.trace());
  auto believed = [&](const char* acquire, const char* release) {
    return outside(beliefs(s.history, acquire, release), excused);
  };
  if (is_rw(r)) {
    append(v, check_read_write(believed("acquire-read", "release-read"),
                               believed("acquire-write", "release-write")));
  } else if (r == "semaphore") {
    // Wake-ups are reported, not judged: two waiters may watch one node
    // after the positions before them shifted.
    append(v, check_at_most(believed("acquire", "release"), w.leases, "semaphore-leases"));
  } else {
    append(v, check_at_most(believed("acquire", "release"), 1,
                            r == "election" ? "one-leader" : "mutual-exclusion"));
    append(v, check_fifo_grants(s.history, "acquire"));
    append(v, check_herd(out.max_wakeups_per_release, 1));
  }
  if (r != "semaphore") append(v, check_fenced_counter(s.counter.accepted(), s.counter.value()));
  append(v, check_no_pending(s.history, pending_fs));
  append(v, check_no_leaks(world.server().children(detail::kDir), world.server().watch_count()));
  std::stable_sort(v.begin(), v.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });

  out.history = std::move(s.history);
  out.completed_rounds = s.completed_rounds;
  out.trace_hash = world.trace().hash();
  out.trace_events = world.trace().size();
  out.end_time = world.now();
  out.trace = world.trace().take_events();
  return out;
}

}  // namespace zksim::scenarios
