#include "workloads.h"

#include "zksim/scenarios/campaign.h"
#include "zksim/scenarios/probes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

Client& open_client(World& world, const Workload& w, int i) {
  return world.open(fmt::format("c{}", i), w.session_timeout_ms, -1, flavour_of(w, i));
}

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

bool no_fault_struck(const Trace& trace) {
  return std::none_of(trace.events().begin(), trace.events().end(), [](const TraceEvent& e) { return is_fault(e); });
}

std::vector<Delivery> deliveries_of(const Trace& trace) {
  std::vector<Delivery> out;
  for (const TraceEvent& e : trace.events()) {
    if (e.kind == TraceKind::Watch && static_cast<EventType>(e.code) != EventType::None) {
      out.push_back(Delivery{e.client, e.time});
    }
  }
  return out;
}

std::vector<std::string> nodes_left(const Server& server, const std::string& dir,
                                    const std::vector<std::string>& node_dirs) {
  std::vector<std::string> out;
  for (const std::string& sub : node_dirs) {
    const std::string path = sub.empty() ? dir : dir + "/" + sub;
    for (const std::string& child : server.children(path)) out.push_back(sub.empty() ? child : sub + "/" + child);
  }
  return out;
}

std::size_t watches_left(const Server& server, const std::function<bool(const std::string&)>& allowed) {
  std::size_t n = 0;
  for (SessionId session : server.sessions()) {
    for (const std::string& watch : server.watches_of(session)) n += !allowed(watch);
  }
  return n;
}

namespace {

// Calls f(client, time) for each expiry of a client's session that `wanted`
// accepts, for the client and the handles sharing its session.
template <class Wanted, class F>
void for_each_expiry(const Trace& trace, const std::map<int, std::vector<int>>& sharers, Wanted wanted, F f) {
  std::map<std::int64_t, int> client_of;  // session id -> client
  for (const TraceEvent& e : trace.events()) {
    if (e.client >= 0 && e.session.value != 0) client_of.emplace(e.session.value, e.client);
  }
  for (const TraceEvent& e : trace.events()) {
    if (!wanted(e)) continue;
    auto c = client_of.find(e.session.value);
    if (c == client_of.end()) continue;
    f(c->second, e.time);
    auto views = sharers.find(c->second);
    if (views == sharers.end()) continue;
    for (int view : views->second) f(view, e.time);
  }
}

bool server_expired(const TraceEvent& e) {
  return e.kind == TraceKind::Server && e.code == static_cast<std::int32_t>(ServerAction::SessionExpired);
}

}  // namespace

void note_expiries(const Trace& trace, const std::map<int, std::vector<int>>& sharers, History& h) {
  for_each_expiry(trace, sharers, server_expired, [&h](int client, TimeMs t) { h.note(client, t, "expired"); });
}

std::map<int, std::vector<TimeMs>> expiry_times(const Trace& trace, const std::map<int, std::vector<int>>& sharers,
                                                bool declared_too) {
  std::map<int, std::vector<TimeMs>> out;
  auto either = [declared_too](const TraceEvent& e) {
    return server_expired(e) || (declared_too && e.kind == TraceKind::State &&
                                 e.code == static_cast<std::int32_t>(SessionState::Expired));
  };
  for_each_expiry(trace, sharers, either, [&out](int client, TimeMs t) { out[client].push_back(t); });
  return out;
}

SessionSpans session_spans(const Trace& trace, const std::map<int, std::vector<int>>& sharers) {
  std::map<std::int64_t, std::pair<int, SessionSpan>> by_session;  // id -> its client, its span
  std::vector<std::int64_t> order;                                  // sessions, as first used
  for (const TraceEvent& e : trace.events()) {
    if (e.client < 0 || e.session.value == 0 || by_session.count(e.session.value)) continue;
    by_session.emplace(e.session.value, std::make_pair(e.client, SessionSpan{e.time, INT64_MAX}));
    order.push_back(e.session.value);
  }
  for (const TraceEvent& e : trace.events()) {
    auto s = by_session.find(e.session.value);
    if (server_expired(e) && s != by_session.end()) s->second.second.expired = std::min(s->second.second.expired, e.time);
  }
  SessionSpans out;
  for (std::int64_t id : order) {
    const auto& [client, span] = by_session.at(id);
    out[client].push_back(span);
    if (auto views = sharers.find(client); views != sharers.end()) {
      for (int view : views->second) out[view].push_back(span);
    }
  }
  return out;
}

TimeMs drawn_timeout(DecisionSource& d, TimeMs timeout_ms) {
  constexpr auto n = static_cast<std::uint32_t>(std::size(kVariedTimeoutsMs));
  const std::uint32_t k = d.pick(n + 1);
  return k == 0 ? timeout_ms : kVariedTimeoutsMs[k - 1];
}

Client* drawn_share(World& world, Client& zk, Shared& s) {
  if (world.decisions().pick(2) == 0) return nullptr;
  Client& view = world.share(zk, fmt::format("c{}-2", world.id(zk)));
  s.sharers[world.id(zk)].push_back(world.id(view));
  return &view;
}

}  // namespace detail

namespace {

const std::vector<detail::Family>& families() {
  static const std::vector<detail::Family> all{detail::lock_family(), detail::queue_family(),
                                               detail::barrier_family(), detail::custom_family()};
  return all;
}

const detail::Family* family_of(const Recipe& recipe) {
  for (const detail::Family& f : families()) {
    if (std::ranges::count(f.serves, recipe.family)) return &f;
  }
  return nullptr;
}

// Workload::sequence_start: the recipe's directory and its node_dirs,
// there before the run with that counter. "" or why not.
std::string preset_directories(World& world, const Workload& w, const Recipe& recipe) {
  std::vector<std::string> dirs{detail::kDir};
  for (const std::string& d : recipe.traits.node_dirs) {
    if (!d.empty()) dirs.push_back(detail::kDir + "/" + d);
  }
  for (const std::string& d : dirs) {
    if (world.preset_node(d, w.sequence_start) != Error::Ok) {
      return fmt::format("sequence-start: cannot make the recipe's directory {} before the run", d);
    }
  }
  world.trace().add(0, TraceKind::Annotation, -1, SessionId{}, 0, 0, 0, 0, "",
                    fmt::format("sequence counters start at {} in {}", w.sequence_start, fmt::join(dirs, ", ")));
  return "";
}

// Views of the registry, made again when it grew.
struct RegistryViews {
  std::size_t seen = 0;
  std::vector<std::string> names;
  std::vector<FlawedRecipe> flawed;
  std::vector<std::string> properties;  // property.h's, then custom recipes' own
};
const RegistryViews& views() {
  static RegistryViews v;
  const auto& all = registered_recipes();
  if (v.seen == all.size()) return v;
  v = RegistryViews{all.size(), {}, {}, {}};
  for (int i = 0; i < kProperties; ++i) v.properties.push_back(name(static_cast<Property>(i)));
  for (const Recipe& r : all) {
    if (!r.custom) continue;
    for (const std::string& p : r.custom->properties) {
      if (std::find(v.properties.begin(), v.properties.end(), p) == v.properties.end()) v.properties.push_back(p);
    }
  }
  for (bool flawed : {false, true}) {
    for (const Recipe& r : all) {
      if (r.flaw.has_value() == flawed) v.names.push_back(r.name);
    }
  }
  for (const Recipe& r : all) {
    if (!r.flaw) continue;
    const Flaw& f = *r.flaw;
    v.flawed.push_back(FlawedRecipe{f, r.name});
  }
  return v;
}

}  // namespace

bool recipe_is_flawed(const std::string& name) {
  const Recipe* r = find_recipe(name);
  return r && r->flaw.has_value();
}

bool recipe_is_reentrant(const std::string& name) {
  const Recipe* r = find_recipe(name);
  return r && r->traits.reentrant;
}

const std::vector<std::string>& recipe_names() { return views().names; }

const std::vector<std::string>& property_names() { return views().properties; }

std::vector<std::string> properties_of(const std::string& recipe) {
  const Recipe* r = find_recipe(recipe);
  const detail::Family* f = r ? family_of(*r) : nullptr;
  if (!f) return {};
  std::vector<std::string> out = f->properties(*r);
  // Every run: the world keeps ZooKeeper's ordering guarantees (a recipe
  // cannot break them; a simulator that did would judge recipes on a
  // ZooKeeper that does not exist), it ends within its budget, and the
  // recipe does not take the process down with it.
  out.push_back(name(Property::SequentialConsistency));
  out.push_back(name(Property::WatchOrder));
  out.push_back(name(Property::Runaway));
  out.push_back(name(Property::Crashed));
  return out;
}

RunBudget budget_of(const Workload& w, const WorldConfig& config) {
  // A varied workload may give every client a second handle, and a round
  // two sections (read then write): as if twice the clients and rounds.
  const std::int64_t varied = w.varied ? 2 : 1;
  const auto clients = varied * std::max(w.clients, 0);
  const auto rounds = varied * std::max(w.rounds, 0);
  const TimeMs session = w.session_timeout_ms;
  // A round's own time, if every client's rounds ran one after another (an
  // exclusive lock): the hold, the think time, the longest wait a round may
  // make (a timeout, or the queues' and barriers' two session timeouts),
  // a margin for round trips, and with a nemesis one fault's worst delay
  // (a pause, then a session timing out and its news arriving).
  TimeMs wait = std::max<TimeMs>(w.timeout_ms, 2 * session);
  if (w.varied) wait = std::max(wait, std::ranges::max(kVariedTimeoutsMs));
  TimeMs round_ms = w.hold_ms + w.think_ms + wait + 200;
  if (config.nemesis.any()) round_ms += config.nemesis.pause_ms + config.nemesis.delay_ms + 4 * session;
  RunBudget b;
  b.fault_phase_ms = 2 * clients * rounds * round_ms + 60'000;
  b.settle_ms = b.fault_phase_ms + 20 * session + 60'000;
  // Steps: measured, a round of a correct recipe leaves at most about
  // 25 + 1.5 x clients trace events, the herd lock's 12 + 3.5 x clients
  // (every release wakes every waiter); faults add retries and
  // reconnections. Four times a bound above both, and a floor.
  const std::int64_t per_round = (40 + 5 * clients) * (config.nemesis.any() ? 2 : 1);
  const std::int64_t work = 4 * clients * rounds * per_round;
  // Time itself costs a step now and then: the container reaper's round
  // every container_check_ms, however idle the clients.
  const TimeMs periodic_ms = std::max<TimeMs>(config.container_check_ms, 1);
  std::int64_t timed = (b.fault_phase_ms + b.settle_ms) / periodic_ms;
  // And the time-triggered nemesis's windows in the fault phase, counted up
  // to the run's own work: a fault phase that outlasts them ends at half
  // the steps, as any fault phase does.
  if (config.nemesis.timed()) {
    const TimeMs window_ms = config.nemesis.window_ms > 0 ? config.nemesis.window_ms : timed_window_of(w);
    timed += std::min<std::int64_t>(b.fault_phase_ms / window_ms, work);
  }
  b.steps = static_cast<std::uint64_t>(work + 2 * timed + 100'000);
  return b;
}

TimeMs timed_window_of(const Workload& w) {
  return std::clamp<TimeMs>(w.hold_ms + w.think_ms, 10, kTimedWindowMs);
}

Flavour flavour_of(const Workload& w, int i) {
  return w.flavours.empty() ? Flavour::C : w.flavours[static_cast<std::size_t>(i) % w.flavours.size()];
}

std::string flavours_text(const std::vector<Flavour>& flavours, std::string_view sep) {
  std::string out;
  for (Flavour f : flavours) {
    if (!out.empty()) out += sep;
    out += flavour_name(f);
  }
  return out.empty() ? std::string(flavour_name(Flavour::C)) : out;
}

std::string ClientChoice::text() const { return drawn ? "any" : flavours_text(flavours, ","); }

std::string parse_client_choice(const std::vector<std::string>& words, ClientChoice& out, std::size_t* bad_word) {
  std::vector<std::string> known{"any"};
  for (int i = 0; i < kFlavours; ++i) known.emplace_back(flavour_name(static_cast<Flavour>(i)));
  const std::string hint = fmt::format("(known: {}; a list is 'c,curator' or 'c curator')", fmt::join(known, ", "));
  ClientChoice choice;
  choice.flavours.clear();
  std::size_t names = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    *bad_word = i;
    std::size_t start = 0;
    while (start <= words[i].size()) {
      std::size_t end = words[i].find_first_of(", \t", start);
      if (end == std::string::npos) end = words[i].size();
      const std::string name = words[i].substr(start, end - start);
      start = end + 1;
      if (name.empty()) {
        if (end == words[i].size()) break;
        continue;
      }
      ++names;
      if (name == "any") {
        choice.drawn = true;
        continue;
      }
      const std::optional<Flavour> f = flavour_named(name);
      if (!f) return fmt::format("unknown client flavour '{}' {}", name, hint);
      choice.flavours.push_back(*f);
    }
  }
  if (names == 0) {
    *bad_word = 0;
    return fmt::format("missing client flavour {}", hint);
  }
  if (choice.drawn && names > 1) return "'any' stands alone: each run draws every client's library";
  if (choice.drawn) choice.flavours = {Flavour::C};
  out = std::move(choice);
  return {};
}

std::string workload_problem(const Workload& w, const WorldConfig& config) {
  const Recipe* recipe = find_recipe(w.recipe);
  if (!recipe || !family_of(*recipe)) return fmt::format("unknown recipe '{}'", w.recipe);
  if (w.clients < 1 || w.rounds < 0) {
    return fmt::format("cannot run recipe '{}' with {} clients and {} rounds", w.recipe, w.clients, w.rounds);
  }
  if (w.flavours.empty()) return "no client flavour given";
  const std::uint64_t steps = budget_of(w, config).steps;
  if (steps > kMaxRunSteps) {
    return fmt::format("{} clients x {} rounds is too much for one run (a budget of {} steps, at most {}); "
                       "make more runs of fewer rounds",
                       w.clients, w.rounds, steps, kMaxRunSteps);
  }
  return {};
}

WorldConfig Flaw::config() const {
  WorldConfig c = nemesis_config(per_mille ? std::vector<int>{fault_class} : std::vector<int>{}, per_mille);
  c.servers = std::max(c.servers, servers);
  return c;
}

const std::vector<FlawedRecipe>& flawed_recipes() { return views().flawed; }

std::string Flaw::fault() const { return per_mille ? std::string(fault_class_name(fault_class)) : "none"; }

SwarmDraw swarm_draw(const Workload& w, const WorldConfig& config, DecisionSource& decisions) {
  SwarmDraw d{w, config, {}};
  std::string classes;
  for (int k = 0; k < kFaultClasses; ++k) {
    if (!config.nemesis.per_mille[k]) continue;
    if (decisions.pick(2) == 0) {
      d.config.nemesis.per_mille[k] = 0;
    } else {
      classes += fmt::format("{}{}", classes.empty() ? "" : ",", fault_class_name(k));
    }
  }
  d.summary = fmt::format("faults {}", classes.empty() ? "none" : classes);
  // Features: reentrant acquires, timeouts of a drawn size (0 included: a
  // try-lock), holds long enough to outlive a session, and varied
  // operation sequences (Workload::varied).
  if (recipe_is_reentrant(w.recipe) && decisions.pick(2) == 1) {
    d.workload.reentrant = true;
    d.summary += "; reentrant";
  }
  if (decisions.pick(2) == 1) {
    constexpr TimeMs kTimeouts[] = {0, 10, 250, 5000};
    d.workload.timeout_ms = kTimeouts[decisions.pick(4)];
    d.summary += fmt::format("; timeouts {} ms", d.workload.timeout_ms);
  }
  if (decisions.pick(2) == 1) {
    d.workload.hold_ms = 3 * static_cast<TimeMs>(w.session_timeout_ms) / 2;
    d.summary += fmt::format("; holds {} ms", d.workload.hold_ms);
  }
  if (decisions.pick(2) == 1) {
    d.workload.varied = true;
    d.summary += "; varied";
  }
  // And the client libraries: every client one flavour, or the three in
  // turn (kDrawnFlavours).
  const std::vector<Flavour> before = d.workload.flavours;
  const std::string clients = draw_flavours(d.workload, decisions);
  if (d.workload.flavours != before) d.summary += "; clients " + clients;
  return d;
}

std::string draw_flavours(Workload& w, DecisionSource& decisions) {
  if (std::uint32_t f = decisions.pick(std::size(kDrawnFlavours) + 1); f > 0) w.flavours = kDrawnFlavours[f - 1];
  return flavours_text(w.flavours, ",");
}

RunResult run(const Workload& given, DecisionSource& decisions, const std::vector<ScriptedFault>& faults,
              WorldConfig config, KeepTrace keep) {
  RunResult out;
  Workload w = given;
  if (given.swarm) {
    SwarmDraw d = swarm_draw(given, config, decisions);
    w = std::move(d.workload);
    config = d.config;
    out.swarm = std::move(d.summary);
  }
  std::string drawn_clients;
  if (!given.swarm && given.draw_flavours) drawn_clients = draw_flavours(w, decisions);
  if (config.nemesis.window_ms == 0) config.nemesis.window_ms = timed_window_of(w);
  // Before the world: the tasks the world destroys may still refer to it.
  detail::Shared s;
  World world(config, decisions);
  std::string problem = workload_problem(w, config);
  const Recipe* recipe = find_recipe(w.recipe);
  const detail::Family* family = recipe ? family_of(*recipe) : nullptr;
  if (problem.empty() && w.sequence_start != 0) problem = preset_directories(world, w, *recipe);
  if (problem.empty()) problem = family->spawn(world, w, *recipe, s);
  if (!problem.empty()) {
    out.violations.push_back(Violation{std::string(kBadWorkload), problem, {}, 0});
    return out;
  }
  if (!out.swarm.empty()) {
    world.trace().add(0, TraceKind::Annotation, -1, SessionId{}, 0, 0, 0, 0, "", "swarm: " + out.swarm);
  }
  if (!drawn_clients.empty()) {
    world.trace().add(0, TraceKind::Annotation, -1, SessionId{}, 0, 0, 0, 0, "", "clients drawn: " + drawn_clients);
  }
  const RunBudget budget = budget_of(w, config);
  world.set_step_limit(budget.steps);
  for (const ScriptedFault& f : faults) world.schedule(f);
  world.run_until_done(budget.fault_phase_ms, budget.steps / 2);
  // Quiescence: faults stop; paused and crashed sessions time out; every
  // live waiter must then get its turn.
  world.set_nemesis({});
  world.run_until_done(world.now() + budget.settle_ms);
  world.run_until(world.now() + 2 * static_cast<TimeMs>(w.session_timeout_ms) + 1000);
  const bool runaway = world.step_limit_reached();

  for (const TraceEvent& e : world.trace().events()) {
    if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Crash)) {
      s.history.note(e.client, e.time, "crashed");
      for (int view : s.sharers[e.client]) s.history.note(view, e.time, "crashed");
    }
  }
  family->check(world, w, *recipe, s, out);
  std::vector<Violation>& v = out.violations;
  detail::append(v, check_sequential_consistency(world.trace().events()));
  detail::append(v, check_watch_order(world.trace().events()));
  if (runaway) {
    // Cut short: waiters that never returned or returned late, and nodes
    // left behind, say nothing; what happened before the cut (exclusion,
    // order) still counts.
    std::erase_if(v, [](const Violation& x) {
      return x.property == name(Property::Liveness) || x.property == name(Property::Progress) || x.property == name(Property::NoLeaks);
    });
    // Who was still in a call, and in which: where the work without end is.
    std::vector<int> clients;
    std::string calls;
    for (const Op& o : s.history.ops()) {
      if (o.outcome != Outcome::Pending) continue;
      clients.push_back(o.client);
      calls += fmt::format("{}c{} in {} since t={}", calls.empty() ? "" : ", ", o.client, o.f, o.invoked);
    }
    v.push_back(Violation{name(Property::Runaway),
                          fmt::format("the run did not end within its budget of {} steps (stopped at t={}{}): "
                                      "livelock, or work without end",
                                      budget.steps, world.now(), calls.empty() ? std::string() : "; " + calls),
                          std::move(clients), world.now()});
  }
  std::stable_sort(v.begin(), v.end(), [](const Violation& a, const Violation& b) { return a.time < b.time; });

  const WakeupTally woken = count_wakeups(s.history, detail::deliveries_of(world.trace()));
  out.wakeups = woken.wakeups;
  out.wakeups_without_progress = woken.without_progress;
  out.probes = count_probes(world.trace().events(), s.history);
  for (int k = 0; k < kFaultClasses; ++k) out.struck[static_cast<std::size_t>(k)] = world.struck(k);
  out.completed_ops = static_cast<int>(std::count_if(s.history.ops().begin(), s.history.ops().end(),
                                                     [](const Op& o) { return o.outcome == Outcome::Ok; }));
  out.history = std::move(s.history);
  out.completed_rounds = s.completed_rounds;
  out.trace_hash = world.trace().hash();
  out.trace_events = world.trace().size();
  out.end_time = world.now();
  if (keep == KeepTrace::Yes) out.trace = world.trace().take_events();
  return out;
}

}  // namespace zksim::scenarios
