// Workloads drive N simulated clients through a recipe, record a History,
// and the runner checks every property that applies to the recipe.
//
//   zksim::scenarios::Workload wl{.recipe = "lock", .clients = 5, .rounds = 10};
//   zksim::SeededDecisions d(42);
//   auto r = zksim::scenarios::run(wl, d, {});
//   if (!r.violations.empty()) fmt::print("{}\n", r.violations[0].message);
#pragma once

#include "zksim/scenarios/checkers.h"
#include "zksim/scenarios/history.h"
#include "zksim/scenarios/recipe.h"
#include "zksim/world.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zksim::scenarios {

// A counter that holders read and increment, each access carrying the
// accessor's fence: an access with a fence older than the newest seen is
// refused (reads too, so a stale read-modify-write cannot slip between a
// newer holder's read and write).
class FencedCounter {
 public:
  std::optional<int> read(std::int64_t fence);
  bool write(std::int64_t fence, int value);
  int value() const { return value_; }
  int accepted() const { return accepted_; }
  int refused() const { return refused_; }

 private:
  std::int64_t newest_ = 0;
  int value_ = 0, accepted_ = 0, refused_ = 0;
};

struct Workload {
  std::string recipe = "lock";   // a name from recipe_names()
  int clients = 5;
  int rounds = 10;               // acquisitions (or items, or rounds) per client
  TimeMs hold_ms = 5;            // time inside the critical section (or with an item, or raised)
  TimeMs think_ms = 5;           // time between rounds
  // Acquire timeout, negative: none. Queues and barriers: the timeout of
  // every take, wait, enter and leave; negative: two session timeouts.
  TimeMs timeout_ms = -1;
  int session_timeout_ms = 2000;
  bool reentrant = false;        // acquire twice, release twice
  int leases = 2;                // semaphore
  int producers = 1;             // queues: clients 0..producers-1 put, the others take
  // The client library each client behaves like (flavour.h): client i is
  // flavours[i % size], so one entry gives every client the same flavour.
  std::vector<Flavour> flavours = {Flavour::C};
  // Varied operation sequences, as user code does them: each client's
  // sequence is drawn from the run's decisions. At the start, whether it
  // also works through a second recipe handle on its own session
  // (World::share); then each round draws its acquire timeout (0: a
  // try-lock; 1 to 5000 ms: giving up mid-wait), its reentrant nesting
  // (reentrant recipes) and, for a read/write lock, its shape: read, write,
  // read then write, or a downgrade (write, a read taken under it, the write
  // released, then the read). A nested holder whose recipe says its hold
  // was lost draws whether it ends it with one release, as the recipes
  // allow, or with one per acquire. Queues draw each take's timeout, a
  // second producer or consumer handle, and, for the locking queue, whether
  // a consumer gives an item back (release) instead of acking it. Decision 0 draws today's round, so a run
  // whose decisions are all 0 is the same run as without.
  bool varied = false;
  // Swarm testing (Groce et al., ISSTA 2012): each run draws, from its
  // decisions, which of the nemesis's fault classes stay on and which
  // workload features it adds (see swarm_draw), so rare combinations get
  // runs of their own. Decision 0 turns a class off and adds nothing.
  bool swarm = false;
  // Each run draws its clients' libraries (`client any`): every client C
  // (decision 0: `flavours` as given), Curator or kazoo, or the three in
  // turn (kDrawnFlavours); a swarm run draws them anyway.
  bool draw_flavours = false;
  // The sequence counter of the recipe's directories (its own and
  // RecipeTraits::node_dirs) as the run starts. 0: the recipe makes them
  // itself; otherwise they were there before the run with this counter
  // (World::preset_node), and near 2^31 (kWrapStarts) the wrap falls
  // within the run.
  std::int32_t sequence_start = 0;
};

// The sequence starts near the wrap that a search draws: the counter then
// reaches 2^31-1 after a few creates (ZooKeeper 3.8 repeats it there).
inline constexpr std::int32_t kWrapStarts[] = {2147483647 - 7, 2147483647 - 2, 2147483647};

// The timeouts a varied round draws from (after decision 0, the workload's
// own): 0 is a try-lock, the others give up mid-wait or not at all.
inline constexpr TimeMs kVariedTimeoutsMs[] = {0, 1, 5, 20, 250, 5000};

// The client libraries a swarm run, or one with Workload::draw_flavours,
// may draw instead of the workload's own (after decision 0, which keeps
// them).
inline const std::vector<Flavour> kDrawnFlavours[] = {
    {Flavour::Curator}, {Flavour::Kazoo}, {Flavour::C, Flavour::Curator, Flavour::Kazoo}};

// What a swarm run drew: `w` and `config` as the run uses them, and a line
// for people ("faults pause,burst; reentrant; timeouts 250 ms").
struct SwarmDraw {
  Workload workload;
  WorldConfig config;
  std::string summary;
};
// Draws a swarm run's classes and features from `decisions` (the first
// decisions of the run). REQUIRES: w.swarm.
SwarmDraw swarm_draw(const Workload& w, const WorldConfig& config, DecisionSource& decisions);

// Draws the clients' libraries of one run into w.flavours (kDrawnFlavours,
// or decision 0: as they are); what they are now, for people ("c",
// "curator", "c,curator,kazoo").
std::string draw_flavours(Workload& w, DecisionSource& decisions);

// The client libraries of a workload as people write them, the same on the
// command line (`--client`) and in a file (`client` line): "any" alone
// (each run draws them, Workload::draw_flavours), or flavour names separated
// by commas, blanks or both ("c,curator,kazoo", "c curator kazoo"), client i
// taking the (i mod n)th.
struct ClientChoice {
  std::vector<Flavour> flavours = {Flavour::C};
  bool drawn = false;
  std::string text() const;  // "any", or the names joined by commas
};
// Parses `words` (a file line's words after `client`, or one option value):
// "" and `out` set, or why not, with `*bad_word` the index of the word at
// fault.
std::string parse_client_choice(const std::vector<std::string>& words, ClientChoice& out, std::size_t* bad_word);

// The flavour of client `i` of `w`.
Flavour flavour_of(const Workload& w, int i);
// "c", or the flavours' names joined by `sep` ("c,curator").
std::string flavours_text(const std::vector<Flavour>& flavours, std::string_view sep);

// The recipes a workload can drive, correct and flawed.
const std::vector<std::string>& recipe_names();
bool recipe_is_flawed(const std::string& name);
// Whether the recipe's holder may acquire again (Workload::reentrant).
bool recipe_is_reentrant(const std::string& name);

// Every property a checker can report: property.h's in their order, then
// those of registered custom recipes (CustomFamily). Made again when the
// registry grows.
const std::vector<std::string>& property_names();
// The properties a run of `recipe` checks, in property_names() order
// (empty: unknown recipe).
std::vector<std::string> properties_of(const std::string& recipe);

// A flawed recipe (one registered with a Flaw, recipe.h), by name: the
// property it breaks, and the nemesis, hold time and client flavour that
// expose it. The list is made again when the registry grows, so a pointer
// into it lasts until then.
struct FlawedRecipe : Flaw {
  std::string recipe;
};
const std::vector<FlawedRecipe>& flawed_recipes();

struct RunResult {
  History history;
  std::vector<Violation> violations;  // every property checked, in time order
  std::uint64_t trace_hash = 0;
  std::size_t trace_events = 0;
  int max_wakeups_per_release = 0;
  // Watch events that woke a call, and those after which the call made no
  // progress (count_wakeups in checkers.h): a metric, not a property.
  int wakeups = 0;
  int wakeups_without_progress = 0;
  // Contract::Listener (recipe.h): grants returned while the caller had
  // heard SUSPENDED, counted from RECONNECTED; reported, not judged.
  int granted_while_suspended = 0;
  // RecipeTraits::at_most_once: items a take may have removed unseen
  // (check_queue); reported, not judged.
  int lost_in_transit = 0;
  int completed_rounds = 0;
  int completed_ops = 0;  // calls that ended ok
  // How often the nemesis struck with each fault class (World::struck).
  std::array<int, kFaultClasses> struck{};
  TimeMs end_time = 0;
  std::vector<TraceEvent> trace;     // the world's trace, for replay and pictures
  std::map<std::string, int> probes;  // coverage probe -> times reached in this run
  std::string swarm;                  // what a swarm run drew (SwarmDraw::summary); "" otherwise
};

// What one run may spend, sized from its workload so that a correct recipe
// never comes near it: simulated time with the nemesis on, then to settle,
// and steps (World::steps()) in all, of which at most half with faults.
// Simulated time costs nothing by itself; steps are work and memory.
// The window of the time-triggered nemesis a run of `w` gets when its
// config leaves NemesisRates::window_ms 0: a round's own time (a hold and a
// think time), from 10 ms to kTimedWindowMs. A timed class's rate is then
// the chance that a round's worth of time is struck, whatever the run's
// length: with one window a second, runs of 5 ms holds, which end within
// about 100 ms, were never struck at all.
TimeMs timed_window_of(const Workload& w);

struct RunBudget {
  TimeMs fault_phase_ms = 0;
  TimeMs settle_ms = 0;
  std::uint64_t steps = 0;
};
RunBudget budget_of(const Workload& w, const WorldConfig& config);

// The most steps a run may be given. A run keeps its trace, about one event
// a step at about 230 bytes each (measured), so a run stays under about
// 1 GB even when it runs away. A workload whose budget is larger cannot run.
inline constexpr std::uint64_t kMaxRunSteps = 4'000'000;

// Why `w` cannot run ("" if it can): an unknown recipe, fewer than one
// client, negative rounds, or a budget over kMaxRunSteps.
std::string workload_problem(const Workload& w, const WorldConfig& config = {});

// Runs `w` in a fresh world: `config` (delays, nemesis), `decisions`, the
// scripted `faults`. After every task finished, or the fault phase's time or
// steps ran out, the nemesis stops and the run quiesces; then every property
// that applies to the recipe is checked. A run that reaches its step budget
// is stopped and violates `runaway` (livelock, or work without end); its
// liveness and leaks are then not judged, since it was cut short. A workload
// that cannot run: one violation "bad-workload". With KeepTrace::No the
// result's `trace` stays empty (its hash and count are still given): what a
// campaign, which keeps only verdicts, asks for.
enum class KeepTrace : bool { No, Yes };
RunResult run(const Workload& w, DecisionSource& decisions, const std::vector<ScriptedFault>& faults,
              WorldConfig config = {}, KeepTrace keep = KeepTrace::Yes);

}  // namespace zksim::scenarios
