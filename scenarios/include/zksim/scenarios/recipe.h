// Recipes as the harness knows them. A recipe is registered once, with its
// family (which workload drives it and which properties judge it), its
// traits, stated rather than guessed, and a factory for the handles the
// workload drives. zksim's own recipes, correct and flawed, are registered
// the same way as a user's (register_recipe here, or a plugin: plugin.h).
//
//   zksim::scenarios::Recipe r;
//   r.name = "my/lock";
//   r.summary = "my lock: one node per waiter, each watching its predecessor";
//   r.family = zksim::scenarios::RecipeFamily::Lock;
//   r.make_lock = [](const zksim::scenarios::HandleContext& c) {
//     return zksim::scenarios::exclusive<MyLock>(c.zk, c.dir);
//   };
//   std::string why = zksim::scenarios::register_recipe(std::move(r));  // "" when added
#pragma once

#include "zksim/client.h"
#include "zksim/flavour.h"
#include "zksim/recipes/hold.h"
#include "zksim/recipes/lock.h"
#include "zksim/recipes/queue.h"
#include "zksim/scenarios/checkers.h"
#include "zksim/scenarios/history.h"
#include "zksim/world.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::scenarios {

// What drives a recipe and what judges it (docs/harness.md):
//   Lock           clients acquire, hold, release: exclusion as believed, on
//                  the server and at a fenced counter, FIFO grants, herd effect
//   ReadWriteLock  the same with readers and writers (every third client writes)
//   Semaphore      at most `leases` holders at once
//   Election       one leader at a time; a leader asked leader() is named
//   Queue          producers put, consumers take: nothing lost, duplicated,
//                  made up or reordered (delivery at most once)
//   LockingQueue   the same, delivery at least once: a taken item is held
//                  until acked (or given back), one holder at a time
//   Barrier        a coordinator raises and lowers, the others wait: nobody
//                  passes a raised barrier
//   DoubleBarrier  every member enters and leaves: nobody in before all
//                  came, nobody out before all were leaving
//   Custom         the recipe drives its clients itself and judges the
//                  history they recorded with checks of its own (CustomFamily)
// Every family also judges liveness and leaks, and the others progress
// without faults.
enum class RecipeFamily : std::int32_t {
  Lock,
  ReadWriteLock,
  Semaphore,
  Election,
  Queue,
  LockingQueue,
  Barrier,
  DoubleBarrier,
  Custom,
};
inline constexpr int kRecipeFamilies = 9;
std::string_view family_name(RecipeFamily family);
std::optional<RecipeFamily> family_named(std::string_view name);

// What a handle is made with.
struct HandleContext {
  Client& zk;
  std::string dir;  // where its nodes live: the recipe's directory, or a barrier round's node
  std::string id;   // the handle's name ("c3"), unique in the run: an election candidate's id
  recipes::HoldListener on_hold;  // session news for the holder, if the recipe tells them
  int leases = 1;   // Semaphore: how many may hold at once
  int members = 1;  // DoubleBarrier: how many enter each round
};

// Lock, ReadWriteLock, Semaphore and Election: one holder's handle. `write`
// picks the write side of a read/write lock and is ignored by the others;
// an election's acquire is its campaign and its release its resignation.
class LockHandle {
 public:
  virtual ~LockHandle() = default;
  virtual Task<Result<recipes::Grant>> acquire(bool write, TimeMs timeout_ms) = 0;
  // One release per acquire granted (a semaphore's: the lease granted last).
  virtual Task<Result<void>> release(bool write) = 0;
  // Whether the holder still holds that side (for a recipe that tells of a
  // lost session: false from the moment it says "lost").
  virtual bool holds(bool write) const = 0;
  // Election: the current leader's id; the others: Unimplemented.
  virtual Task<Result<std::string>> leader() { co_return Error::Unimplemented; }
};

// Queue and LockingQueue.
class QueueHandle {
 public:
  virtual ~QueueHandle() = default;
  virtual Task<Result<void>> put(std::string value) = 0;
  virtual Task<Result<recipes::Item>> take(TimeMs timeout_ms) = 0;
  // LockingQueue: the item is done with (ack), or goes back to the queue.
  virtual Task<Result<void>> ack(recipes::Item) { co_return Error::Unimplemented; }
  virtual Task<Result<void>> give_back(recipes::Item) { co_return Error::Unimplemented; }
  // Queue: the value a take that failed may have removed, if it knows one.
  virtual std::optional<std::string> in_doubt() const { return std::nullopt; }
};

// Barrier: one handle per round, on the round's barrier node.
class BarrierHandle {
 public:
  virtual ~BarrierHandle() = default;
  virtual Task<Result<void>> raise() = 0;
  virtual Task<Result<void>> lower() = 0;
  virtual Task<Result<void>> wait(TimeMs timeout_ms) = 0;
};

// DoubleBarrier: one handle per round, in the round's directory.
class DoubleBarrierHandle {
 public:
  virtual ~DoubleBarrierHandle() = default;
  virtual Task<Result<void>> enter(TimeMs timeout_ms) = 0;
  virtual Task<Result<void>> leave(TimeMs timeout_ms) = 0;
};

struct Workload;  // workload.h

// A run of a Custom recipe, as its spawn gets it.
struct CustomRun {
  World& world;
  const Workload& workload;  // clients, rounds, hold and think times, ... as the campaign gives them
  History& history;          // record every call: invoke, then ok / fail / info (history.h)
  std::string dir;           // the recipe's directory
  // Client `i` of the workload (named "c<i>", with its session timeout and
  // client library), opened now.
  Client& open(int i);
};

// What a Custom recipe brings besides its traits: how its clients are
// driven, and what is judged of what they recorded. The harness adds
// liveness (no call left without an outcome once the run settled), leaks
// (traits.node_dirs, and watches) and runaway.
struct CustomFamily {
  // The properties its check reports (names of its own, or of
  // property.h's), in the order `zksim list` shows them.
  std::vector<std::string> properties;
  // Opens the clients it needs and spawns their tasks (World::spawn):
  // "" when done, else why the workload cannot run.
  std::function<std::string(CustomRun&)> spawn;
  // After the run settled: a violation for each property broken, judged on
  // the history (and, if it needs it, the server's ground truth).
  std::function<std::vector<Violation>(const History& history, const Server& server)> check;
};

// What the library a lock-like recipe is written for promises its caller
// about a grant, and so what the caller is held to believe.
enum class Contract : std::uint8_t {
  // The recipe heeds its session itself (zksim's own recipes): a grant is
  // held from its return until its release or a note of suspension or loss.
  Strict,
  // The caller heeds the library's connection news (Curator's
  // ConnectionStateListener, kazoo's listener; needs tells_loss): after
  // SUSPENDED it counts on no hold until RECONNECTED, after LOST on none
  // until it has released what it held. A grant returned while suspended
  // counts from RECONNECTED and is reported as "granted while suspended",
  // not judged (checkers.h, listener_view). The library's acquire fails
  // with the errors it chooses (Curator's gives NoNode once its retries of
  // an expired session's node run out): honest-expiry is not judged.
  Listener,
};

// What the harness must be told about a recipe; nothing is guessed.
struct RecipeTraits {
  // Lock, ReadWriteLock: the holder may acquire again, each acquire
  // released once (reentrancy).
  bool reentrant = false;
  // Lock-like: the recipe passes session news to HandleContext::on_hold
  // ("suspended", "reconnected", "lost"); then its holds() is judged after
  // a loss, and its SessionExpired and NoNode failures are judged.
  bool tells_loss = false;
  // What its library promises the caller about a grant (Contract).
  Contract contract = Contract::Strict;
  // ReadWriteLock: whether a contender node, by its name, is a writer's
  // (server-exclusion counts the writers ahead of a read).
  std::function<bool(std::string_view name)> write_node;
  // Where the recipe's nodes live, relative to its directory ("" for the
  // directory itself): nothing may be left there once the clients are done.
  // Empty: nodes it means to keep (a counter, a configuration); leaks are
  // then watches only.
  std::vector<std::string> node_dirs = {""};
  // Semaphore: the directory, relative to the recipe's, whose child
  // changes mean a lease was freed ("" if none is known): a waiter woken by
  // one must be granted before it waits again.
  std::string lease_dir;
  // Queue: the recipe states at-most-once delivery (a take removes the
  // item before its caller has it, as kazoo's Queue documents). An item a
  // take removed and then lost with ConnectionLoss, or a consumer crashing
  // mid-take, may then be gone for good: counted as "lost in transit", not
  // judged. Otherwise (exactly once) such an item is a queue-no-loss.
  bool at_most_once = false;
  // Queue, LockingQueue: the marker in an item node's name, and for the
  // locking queue the directories of items and of claims (relative).
  std::string item_marker;
  std::string items_dir;
  std::string claims_dir;
  // DoubleBarrier: the node the last member in creates in the round's
  // directory (its removal lets members leave).
  std::string ready_node;
};

// A recipe known to break a property: under which nemesis, and with which
// client library, the harness should catch it (the verdict matrix, docs/cli.md).
struct Flaw {
  std::string property;
  std::int32_t fault_class = 0;  // a FaultKind or TimedFault; rate 0: no faults needed
  std::uint32_t per_mille = 0;
  TimeMs hold_ms = 5;
  Flavour flavour = Flavour::C;
  bool varied = false;  // needs varied workloads (a downgrade, say)
  int servers = 1;      // needs an ensemble of this many (a flaw of the ensemble)
  // A world config with that nemesis (pauses of 3 s, longer than the
  // workloads' 2 s sessions) on `servers` servers (3 at least for a fault
  // class of the ensemble).
  WorldConfig config() const;
  // Its nemesis as a fault configuration is named: the class, or "none".
  std::string fault() const;
};

struct Recipe {
  std::string name;     // letters, digits and "-", "_", "/", "."; "flawed/..." for flawed ones by convention
  std::string summary;  // one line, for `zksim list`
  RecipeFamily family = RecipeFamily::Lock;
  RecipeTraits traits;
  // The factory for its family's handles (the others stay empty).
  std::function<std::unique_ptr<LockHandle>(const HandleContext&)> make_lock;
  std::function<std::unique_ptr<QueueHandle>(const HandleContext&)> make_queue;
  std::function<std::unique_ptr<BarrierHandle>(const HandleContext&)> make_barrier;
  std::function<std::unique_ptr<DoubleBarrierHandle>(const HandleContext&)> make_double_barrier;
  std::optional<CustomFamily> custom;  // Custom: how it runs and what it checks
  std::optional<Flaw> flaw;  // set: a flawed recipe, expected to be caught
  // Where it came from: "zksim", or the plugin's file.
  std::string origin = "zksim";
};

// Adds a recipe to the process's registry: "" when added, else why not (an
// empty or badly formed name, a name taken, no factory for its family, a
// factory of another family, reentrancy claimed by a family that cannot
// nest, a read/write lock without write_node).
std::string register_recipe(Recipe recipe);
// nullptr when no recipe has that name.
const Recipe* find_recipe(std::string_view name);
// Every recipe, zksim's own first, then in registration order. A Recipe
// stays where it is (and find_recipe's pointer valid) while others are added.
const std::deque<Recipe>& registered_recipes();

// Handles over a recipe class, made in place from `args`:
//   exclusive<L>: L has acquire(TimeMs) -> Task<Result<Grant>>, release()
//                 and holds() (recipes::Lock's shape);
//   read_write<L>: acquire_read/acquire_write, release_read/release_write,
//                 holds_read/holds_write (recipes::ReadWriteLock's);
//   election<E>:  campaign(TimeMs), resign(), is_leader(), and leader() if
//                 it has one (recipes::LeaderElection's).
template <class L>
class ExclusiveHandle final : public LockHandle {
 public:
  template <class... A>
  explicit ExclusiveHandle(A&&... args) : l_(std::forward<A>(args)...) {}
  Task<Result<recipes::Grant>> acquire(bool, TimeMs t) override { return l_.acquire(t); }
  Task<Result<void>> release(bool) override { return l_.release(); }
  bool holds(bool) const override { return l_.holds(); }

 private:
  L l_;
};

template <class L>
class ReadWriteHandle final : public LockHandle {
 public:
  template <class... A>
  explicit ReadWriteHandle(A&&... args) : l_(std::forward<A>(args)...) {}
  Task<Result<recipes::Grant>> acquire(bool write, TimeMs t) override {
    return write ? l_.acquire_write(t) : l_.acquire_read(t);
  }
  Task<Result<void>> release(bool write) override { return write ? l_.release_write() : l_.release_read(); }
  bool holds(bool write) const override { return write ? l_.holds_write() : l_.holds_read(); }

 private:
  L l_;
};

template <class E>
class ElectionHandle final : public LockHandle {
 public:
  template <class... A>
  explicit ElectionHandle(A&&... args) : e_(std::forward<A>(args)...) {}
  Task<Result<recipes::Grant>> acquire(bool, TimeMs t) override { return e_.campaign(t); }
  Task<Result<void>> release(bool) override { return e_.resign(); }
  bool holds(bool) const override { return e_.is_leader(); }
  Task<Result<std::string>> leader() override {
    if constexpr (requires { e_.leader(); }) {
      co_return co_await e_.leader();
    } else {
      co_return Error::Unimplemented;
    }
  }

 private:
  E e_;
};

template <class L, class... A>
std::unique_ptr<LockHandle> exclusive(A&&... args) {
  return std::make_unique<ExclusiveHandle<L>>(std::forward<A>(args)...);
}
template <class L, class... A>
std::unique_ptr<LockHandle> read_write(A&&... args) {
  return std::make_unique<ReadWriteHandle<L>>(std::forward<A>(args)...);
}
template <class E, class... A>
std::unique_ptr<LockHandle> election(A&&... args) {
  return std::make_unique<ElectionHandle<E>>(std::forward<A>(args)...);
}

}  // namespace zksim::scenarios
