// The lock family: exclusive locks (correct and flawed), leader election,
// the semaphore, and read/write locks. Each client loops: acquire, a fenced
// read-modify-write of the shared counter while it believes it holds,
// release, think; a varied workload draws each round's timeout, nesting and
// read/write shape, and a second handle per client (see Round, spawn).
// Checked: exclusion as the clients believed it (less the
// stretches they could not have known better), FIFO grants, herd wake-ups,
// the fenced counter, liveness and leaks.
#include "workloads.h"

#include "zksim/path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

namespace zksim::scenarios::detail {

namespace {

using recipes::Grant;
using recipes::HoldListener;

bool is_rw(const Recipe& r) { return r.family == RecipeFamily::ReadWriteLock; }
bool is_election(const Recipe& r) { return r.family == RecipeFamily::Election; }
bool is_semaphore(const Recipe& r) { return r.family == RecipeFamily::Semaphore; }

// Read/write locks: which clients write (every third). Which nodes are a
// writer's, the recipe says (RecipeTraits::write_node).
bool writes(int client) { return client % 3 == 0; }

// The server's view of a grant: does the node exist, and how many
// conflicting contenders in its directory were created before it (for a
// read grant of a read/write lock, only writers conflict). `held` is a
// node the same holder holds already (a read taken under its own write: a
// downgrade): the grant then stands where that node stands, and writers
// queued behind it wait for it, so only those before it conflict.
ServerGrant server_view(const Server& server, const Recipe& recipe, int client, TimeMs now, const std::string& node,
                        bool read_grant, const std::string& held) {
  ServerGrant g{client, now, node, false, 0};
  std::optional<Stat> own = server.stat(node);
  if (!own) return g;
  g.exists = true;
  std::optional<Stat> first = held.empty() ? own : server.stat(held);
  if (!first) first = own;
  const std::string_view dir = parent_of(node);
  // The held node, if it is one of dir's children: its name.
  const std::string_view held_name =
      !held.empty() && parent_of(held) == dir ? name_of(held) : std::string_view();
  server.for_each_child(dir, [&](std::string_view child, const Stat& other) {
    if (read_grant && !recipe.traits.write_node(child)) return;
    if (!held_name.empty() && child == held_name) return;
    if (other.czxid < first->czxid) ++g.ahead;
  });
  return g;
}

// One round of a lock client. Without Workload::varied: a section on the
// client's side, nested twice when w.reentrant. A varied workload draws
// the timeout, the nesting, and for a read/write lock the shape.
struct Round {
  enum class Shape { Plain, ReadThenWrite, Downgrade };
  Shape shape = Shape::Plain;
  bool write = false;  // the plain round's side
  TimeMs timeout_ms = -1;
  int depth = 1;       // acquires nested in one section
  bool ask_leader = false;  // an election's leader asks leader() while it leads
};

// Reentrancy is the locks' (a second lease is not; resign ends a
// leadership whatever the count).
bool nests(const Recipe& recipe) {
  return recipe.family == RecipeFamily::Lock || recipe.family == RecipeFamily::ReadWriteLock;
}

Round draw_round(DecisionSource& d, const Workload& w, const Recipe& recipe, bool write) {
  Round r{Round::Shape::Plain, write, w.timeout_ms, w.reentrant && nests(recipe) ? 2 : 1};
  if (!w.varied) return r;
  r.timeout_ms = drawn_timeout(d, w.timeout_ms);
  if (recipe.traits.reentrant) r.depth += static_cast<int>(d.pick(3));
  if (is_election(recipe)) r.ask_leader = d.pick(2) == 1;
  if (is_rw(recipe)) {
    switch (d.pick(5)) {
      case 1: r.write = false; break;
      case 2: r.write = true; break;
      case 3: r.shape = Round::Shape::ReadThenWrite; break;
      case 4: r.shape = Round::Shape::Downgrade; break;
      default: break;
    }
  }
  return r;
}

// What a holder knows of its recipe, shared with the recipe's hold
// listener: the recipe to ask, the side it last acquired or worked under,
// and whether the recipe told it "lost" since it last invoked an acquire.
struct Asker {
  LockHandle* lock = nullptr;
  bool write = false;
  bool told_lost = false;
};

// Asks the recipe whether it still holds; a yes after it told the holder
// "lost" is noted "holds" for check_holds_after_loss (the only yes that
// property judges, so no other is noted).
bool ask_holds(const Asker& a, History& h, int id, TimeMs now) {
  const bool held = a.lock && a.lock->holds(a.write);
  if (held && a.told_lost) h.note(id, now, "holds");
  return held;
}

// What a client's calls share; lives in lock_client's frame.
struct Holder {
  Client& zk;
  int id;
  const Workload& w;
  const Recipe& recipe;
  Shared& s;
  LockHandle& lock;
  Asker& asker;
  bool rw;
  DecisionSource& decisions;
  std::string call(const char* f, bool write) const {
    return rw ? fmt::format("{}-{}", f, write ? "write" : "read") : std::string(f);
  }
};

// Invokes and records one acquire of side `write`; the grant, if ok. `held`:
// a node this holder already holds (see server_view).
Task<std::optional<Grant>> acquire_once(const Holder& h, bool write, TimeMs timeout_ms, std::string held) {
  auto op = h.s.history.invoke(h.id, h.call("acquire", write), h.zk.now());
  h.asker.write = write;
  h.asker.told_lost = false;
  auto g = co_await h.lock.acquire(write, timeout_ms);
  if (!g) {
    record_failure(h.s.history, op, h.zk.now(), g.error());
    co_return std::nullopt;
  }
  h.s.grants.push_back(server_view(h.s.world->server(), h.recipe, h.id, h.zk.now(), g->node, h.rw && !write, held));
  h.s.history.ok(op, h.zk.now(), g->node, g->fence);
  co_return *g;
}

Task<> release_once(const Holder& h, bool write) {
  auto op = h.s.history.invoke(h.id, h.call("release", write), h.zk.now());
  auto done = co_await h.lock.release(write);
  if (done) {
    h.s.history.ok(op, h.zk.now());
  } else {
    record_failure(h.s.history, op, h.zk.now(), done.error());
  }
}

// Works hold_ms in three slices, giving up early once it no longer holds
// side `write`; true if it held to the end.
Task<bool> work(const Holder& h, bool write) {
  bool held = true;
  h.asker.write = write;
  for (int slice = 0; slice < 3 && held; ++slice) {
    co_await h.zk.sleep(std::max<TimeMs>(h.w.hold_ms / 3, 1));
    held = ask_holds(h.asker, h.s.history, h.id, h.zk.now());
  }
  co_return held;
}

// One section: acquires side `write` `depth` times, does a fenced
// read-modify-write while it believes it holds (writers and exclusive
// holders), releases. A downgrade takes the read side under the write
// before releasing it, then reads and releases the read. True if granted.
Task<bool> section(const Holder& h, bool write, TimeMs timeout_ms, int depth, bool downgrade, bool ask_leader) {
  std::optional<Grant> g = co_await acquire_once(h, write, timeout_ms, "");
  if (!g) co_return false;
  int held_depth = 1;
  for (int i = 1; i < depth; ++i) {
    std::optional<Grant> again = co_await acquire_once(h, write, timeout_ms, "");
    held_depth += again.has_value();
  }
  if (ask_leader) {
    auto op = h.s.history.invoke(h.id, "leader", h.zk.now());
    auto named = co_await h.lock.leader();
    if (named) {
      h.s.history.ok(op, h.zk.now(), std::move(*named));
    } else {
      record_failure(h.s.history, op, h.zk.now(), named.error());
    }
  }
  const bool fenced = !is_semaphore(h.recipe) && (write || !h.rw);
  std::optional<int> v;
  if (fenced) v = h.s.counter.read(g->fence);
  const bool held = co_await work(h, write);
  if (fenced && v && held) h.s.counter.write(g->fence, *v + 1);
  std::optional<Grant> under;
  if (downgrade) under = co_await acquire_once(h, false, timeout_ms, g->node);
  // Under the strict contract a lost hold ends with one release; a varied
  // holder whose recipe no longer holds may rely on that. Curator and kazoo
  // want one release per acquire whatever happened (Contract::Listener).
  if (h.recipe.traits.contract == Contract::Strict && h.w.varied && held_depth > 1 && !h.lock.holds(write) &&
      h.decisions.pick(2) == 1) {
    held_depth = 1;
  }
  for (; held_depth > 0; --held_depth) co_await release_once(h, write);
  if (under) {
    co_await work(h, false);
    co_await release_once(h, false);
  }
  co_return true;
}

Task<> lock_client(Client& zk, int id, Workload w, const Recipe& recipe, Shared& s, std::unique_ptr<LockHandle> lock,
                   std::shared_ptr<Asker> asker, DecisionSource& decisions) {
  const bool write = asker->write;
  const Holder h{zk, id, w, recipe, s, *lock, *asker, is_rw(recipe), decisions};
  for (int round = 0; round < w.rounds && !session_over(zk); ++round) {
    const Round r = draw_round(decisions, w, recipe, write);
    if (r.shape == Round::Shape::ReadThenWrite) {
      s.completed_rounds += co_await section(h, false, r.timeout_ms, r.depth, false, false);
      co_await zk.sleep(w.think_ms);
      s.completed_rounds += co_await section(h, true, r.timeout_ms, r.depth, false, false);
    } else {
      const bool downgrade = r.shape == Round::Shape::Downgrade;
      s.completed_rounds += co_await section(h, r.write || downgrade, r.timeout_ms, r.depth, downgrade, r.ask_leader);
    }
    co_await zk.sleep(w.think_ms);
  }
}

// Spawns a lock client on `zk` (a client, or a second handle on its
// session); "" on success.
std::string spawn_holder(World& world, Client& zk, const Workload& w, const Recipe& recipe, Shared& s) {
  const int id = world.id(zk);
  auto asker = std::make_shared<Asker>();
  asker->write = writes(id);
  // At the instant the recipe tells "lost", it must already say it does
  // not hold: that is when its holder stops trusting it.
  HoldListener on_hold = [&s, &zk, id, asker](recipes::HoldEvent e) {
    s.history.note(id, zk.now(), recipes::hold_event_name(e));
    if (e != recipes::HoldEvent::Lost) return;
    asker->told_lost = true;
    ask_holds(*asker, s.history, id, zk.now());
  };
  auto lock = recipe.make_lock(HandleContext{zk, kDir, fmt::format("c{}", id), std::move(on_hold), w.leases, w.clients});
  if (!lock) return fmt::format("recipe '{}' made no handle", recipe.name);
  asker->lock = lock.get();
  world.spawn(zk, lock_client(zk, id, w, recipe, s, std::move(lock), std::move(asker), world.decisions()));
  return {};
}

std::string spawn(World& world, const Workload& w, const Recipe& recipe, Shared& s) {
  s.world = &world;
  std::vector<Client*> clients;
  for (int i = 0; i < w.clients; ++i) {
    clients.push_back(&open_client(world, w, i));
    if (std::string problem = spawn_holder(world, *clients.back(), w, recipe, s); !problem.empty()) return problem;
  }
  if (!w.varied) return {};
  for (Client* zk : clients) {
    if (Client* view = drawn_share(world, *zk, s)) {
      if (std::string problem = spawn_holder(world, *view, w, recipe, s); !problem.empty()) return problem;
    }
  }
  return {};
}

std::vector<std::string> properties(const Recipe& r) {
  std::vector<std::string> out;
  if (is_rw(r)) {
    out = {name(Property::ReadWriteExclusion), name(Property::ServerExclusion), name(Property::HerdEffect), name(Property::FencedExclusion)};
  } else if (is_semaphore(r)) {
    out = {name(Property::SemaphoreLeases), name(Property::ServerExclusion), name(Property::HerdEffect)};
  } else {
    out = {is_election(r) ? name(Property::OneLeader) : name(Property::MutualExclusion), name(Property::ServerExclusion), name(Property::Fifo),
           name(Property::HerdEffect), name(Property::FencedExclusion)};
  }
  if (r.traits.tells_loss) {
    out.push_back(name(Property::HoldsAfterLoss));
    if (r.traits.contract == Contract::Strict) out.push_back(name(Property::HonestExpiry));
  }
  out.push_back(name(Property::Liveness));
  out.push_back(name(Property::Progress));
  out.push_back(name(Property::NoLeaks));
  return out;
}

// Calls f(change, first, event) for every watch event that wakes a waiter
// (a node deleted, a child list changed). `change` numbers the change
// behind it, one transaction on one path, in the order changes first woke
// someone; `first` is true at its first event.
template <class F>
void for_each_wakeup(const Trace& trace, F&& f) {
  // The changes so far (views into `trace`), searched from the latest: the
  // events of one change come close together.
  std::vector<std::pair<std::int64_t, std::string_view>> changes;
  for (const TraceEvent& e : trace.events()) {
    if (e.kind != TraceKind::Watch) continue;
    auto type = static_cast<EventType>(e.code);
    if (type != EventType::NodeDeleted && type != EventType::NodeChildrenChanged) continue;
    const std::pair<std::int64_t, std::string_view> key{e.zxid, e.path};
    auto it = std::find(changes.rbegin(), changes.rend(), key);
    const bool first = it == changes.rend();
    if (first) changes.push_back(key);
    f(first ? changes.size() - 1 : static_cast<std::size_t>(changes.rend() - it) - 1, first, e);
  }
}

// Whether `client` is in `clients` already, else adds it. A client woken
// twice by one change counts once: on an ensemble it can be, when it
// reconnects to a server that has not applied the change yet and sets its
// watch again there (the event did not advance its last seen zxid).
bool seen_before(std::vector<int>& clients, int client) {
  if (std::find(clients.begin(), clients.end(), client) != clients.end()) return true;
  clients.push_back(client);
  return false;
}

// The change that woke the most clients (the first to reach that count).
Wakeups max_wakeups(const Trace& trace) {
  struct Change {
    int count = 0;
    TimeMs time = 0;
    std::string_view path;  // into `trace`
  };
  std::vector<Change> woken;
  std::vector<std::pair<std::size_t, int>> counted;  // (change, client), each once
  std::optional<std::size_t> most;
  for_each_wakeup(trace, [&](std::size_t change, bool first, const TraceEvent& e) {
    if (first) woken.push_back(Change{0, e.time, e.path});
    const std::pair<std::size_t, int> key{change, e.client};
    if (std::find(counted.rbegin(), counted.rend(), key) != counted.rend()) return;
    counted.push_back(key);
    const int count = ++woken[change].count;
    if (!most || count > woken[*most].count) most = change;
  });
  if (!most) return {};
  Wakeups out{woken[*most].count, woken[*most].time, std::string(woken[*most].path), {}};
  for (const auto& [change, client] : counted) {
    if (change == *most) out.clients.push_back(client);
  }
  std::sort(out.clients.begin(), out.clients.end());
  return out;
}

// Which side each client's acquires were for, in the order invoked.
class Roles {
 public:
  explicit Roles(const History& h) {
    for (const Op& o : h.ops()) {
      if (o.f == "acquire-read" || o.f == "acquire-write") {
        per_client_[o.client].push_back({o.invoked, o.outcome == Outcome::Pending ? INT64_MAX : o.completed,
                                         o.f == "acquire-write"});
      }
    }
  }
  // Whether the watch event that reached `client` (and the handles sharing
  // its session) at `t` woke a writer: the side of the acquire waiting then,
  // or, if none was, of the client's last acquire (a watch its wait left).
  // nullopt: handles on that session waited for both sides, and the trace,
  // which names the session, cannot say whose watch it was.
  std::optional<bool> woke_writer(int client, const std::vector<int>& sharers, TimeMs t) const {
    std::optional<bool> waiting;
    bool both = false;
    auto consider = [&](int c) {
      const Acquire* last = last_before(c, t);
      if (!last || last->ended < t) return;
      both = both || (waiting && *waiting != last->write);
      waiting = last->write;
    };
    consider(client);
    for (int c : sharers) consider(c);
    if (both) return std::nullopt;
    if (waiting) return waiting;
    const Acquire* last = last_before(client, t);
    return last ? last->write : writes(client);
  }

 private:
  struct Acquire {
    TimeMs invoked, ended;
    bool write;
  };
  const Acquire* last_before(int client, TimeMs t) const {
    auto it = per_client_.find(client);
    if (it == per_client_.end()) return nullptr;
    const Acquire* last = nullptr;
    for (const Acquire& a : it->second) {
      if (a.invoked > t) break;
      last = &a;
    }
    return last;
  }
  std::map<int, std::vector<Acquire>> per_client_;
};

// Every change that woke waiters of a read/write lock, by role.
std::vector<SharedWakeups> shared_wakeups(const Trace& trace, const Recipe& recipe, const Roles& roles,
                                          const std::map<int, std::vector<int>>& sharers) {
  static const std::vector<int> none;
  std::vector<SharedWakeups> out;
  for_each_wakeup(trace, [&](std::size_t change, bool first, const TraceEvent& e) {
    if (first) {
      const bool deleted = static_cast<EventType>(e.code) == EventType::NodeDeleted;
      out.push_back(SharedWakeups{e.time, e.path, deleted && !recipe.traits.write_node(name_of(e.path)), {}, {}});
    }
    SharedWakeups& w = out[change];
    auto views = sharers.find(e.client);
    const std::optional<bool> writer = roles.woke_writer(e.client, views == sharers.end() ? none : views->second, e.time);
    if (writer) seen_before(*writer ? w.writers : w.readers, e.client);
  });
  return out;
}

// The stretches in which a client could not act on its belief (paused) or
// could not have known better (the server expired the session it was in,
// and it had not been told yet); see Window in checkers.h. A client whose
// flavour runs session listeners on their own thread is told when they run;
// others when their library's state changes. A client that had already
// left that session (a flavour that declares the session lost by itself
// and opens a new one) knew, and is not excused.
std::vector<Window> excused_windows(const Trace& trace, const Workload& w,
                                    const std::map<int, std::vector<int>>& sharers) {
  auto news = [&](const TraceEvent& e) {
    if (rules_of(flavour_of(w, e.client)).listeners_on_own_thread) {
      return e.kind == TraceKind::Listener && e.code != static_cast<std::int32_t>(KeeperState::SyncConnected);
    }
    return e.kind == TraceKind::State && e.code != static_cast<std::int32_t>(SessionState::Connected);
  };
  std::map<std::int64_t, int> client_of;  // session -> client, as its state changes name them
  std::map<int, std::int64_t> current;   // client -> the session its last state change was in
  std::vector<Window> out;
  std::map<int, std::size_t> open;  // client -> expiry window waiting for news
  for (const TraceEvent& e : trace.events()) {
    if (e.kind == TraceKind::State) {
      current[e.client] = e.session.value;
      if (e.session.value != 0) client_of.emplace(e.session.value, e.client);
    }
    if (e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::Pause)) {
      TimeMs ms = std::atoll(e.detail.c_str());
      out.push_back(Window{e.client, e.time, e.time + ms});
    } else if (e.kind == TraceKind::Server &&
               e.code == static_cast<std::int32_t>(ServerAction::SessionExpired)) {
      auto c = client_of.find(e.session.value);
      if (c == client_of.end() || current[c->second] != e.session.value) continue;
      open[c->second] = out.size();
      out.push_back(Window{c->second, e.time, INT64_MAX});
    } else if (open.count(e.client) && news(e)) {
      // The instant the news arrives is in: a reply processed at that same
      // instant (a grant) still came before the news.
      out[open[e.client]].to = e.time + 1;
      open.erase(e.client);
    }
  }
  // The trace names a session by its first handle; the others share its
  // windows.
  for (std::size_t i = 0, n = out.size(); i < n; ++i) {
    auto views = sharers.find(out[i].client);
    if (views == sharers.end()) continue;
    for (int view : views->second) out.push_back(Window{view, out[i].from, out[i].to});
  }
  return out;
}

// The watch events that woke semaphore waiters on the leases (a child
// change of traits.lease_dir: a lease freed), in delivery order.
std::vector<Delivery> lease_deliveries(const Trace& trace, const Recipe& recipe) {
  const std::string leases = kDir + "/" + recipe.traits.lease_dir;
  std::vector<Delivery> out;
  for (const TraceEvent& e : trace.events()) {
    if (e.kind == TraceKind::Watch && static_cast<EventType>(e.code) == EventType::NodeChildrenChanged &&
        e.path == leases) {
      out.push_back(Delivery{e.client, e.time});
    }
  }
  return out;
}

void check(World& world, const Workload& w, const Recipe& r, Shared& s, RunResult& out) {
  std::vector<Violation>& v = out.violations;
  Wakeups worst = max_wakeups(world.trace());
  out.max_wakeups_per_release = worst.count;
  if (worst.count > 1) worst.causes = wakeup_causes(worst, world.trace(), s.history);
  std::vector<Window> excused = excused_windows(world.trace(), w, s.sharers);
  if (r.traits.contract == Contract::Listener) {
    ListenerView view = listener_view(s.history, {{"acquire", "release"},
                                                  {"acquire-read", "release-read"},
                                                  {"acquire-write", "release-write"}});
    excused.insert(excused.end(), view.windows.begin(), view.windows.end());
    out.granted_while_suspended = view.granted_while_suspended;
  }
  auto believed = [&](const char* acquire, const char* release) {
    return outside(beliefs(s.history, acquire, release), excused);
  };
  append(v, check_server_grants(s.grants, is_semaphore(r) ? w.leases : 1, excused));
  if (is_rw(r)) {
    append(v, check_read_write(believed("acquire-read", "release-read"),
                               believed("acquire-write", "release-write")));
    append(v, check_shared_herd(shared_wakeups(world.trace(), r, Roles(s.history), s.sharers)));
  } else if (is_semaphore(r)) {
    // Only the internal lock's holder waits on the leases, and the lock's
    // waiters each on their predecessor: one wake-up a change.
    append(v, check_at_most(believed("acquire", "release"), w.leases, name(Property::SemaphoreLeases)));
    append(v, check_herd(worst, 1));
  } else {
    append(v, check_at_most(believed("acquire", "release"), 1,
                            is_election(r) ? name(Property::OneLeader) : name(Property::MutualExclusion)));
    append(v, check_fifo_grants(s.history, "acquire", excused));
    append(v, check_herd(worst, 1));
  }
  if (!is_semaphore(r)) append(v, check_fenced_counter(s.counter.accepted(), s.counter.value()));
  const std::vector<std::string> acquires{"acquire", "acquire-read", "acquire-write"};
  append(v, check_holds_after_loss(s.history, acquires));
  if (r.traits.tells_loss && r.traits.contract == Contract::Strict) append(v, check_honest_expiry(s.history, expiry_times(world.trace(), s.sharers, /*declared_too=*/true)));
  append(v, check_no_pending(s.history, {"acquire", "acquire-read", "acquire-write", "release",
                                         "release-read", "release-write"}));
  // Without a timeout (none drawn either: not varied) an acquire waits as
  // long as it takes; and a waiter
  // whose watched node goes only when its turn came is granted when woken
  // (a read/write lock's writer may be woken by a reader while an older
  // reader holds). The semaphore's waiter is woken first in its internal
  // lock and then waits on the leases, where a change is a lease freed:
  // only those wake-ups are judged.
  if (is_election(r) && no_fault_struck(world.trace())) append(v, check_leader_named(s.history));
  if (w.timeout_ms < 0 && !w.varied && no_fault_struck(world.trace())) {
    append(v, check_all_ok(s.history, acquires));
    std::vector<Delivery> woken = deliveries_of(world.trace());
    if (is_rw(r)) std::erase_if(woken, [](const Delivery& d) { return writes(d.client); });
    if (is_semaphore(r)) woken = r.traits.lease_dir.empty() ? std::vector<Delivery>{} : lease_deliveries(world.trace(), r);
    append(v, check_wakeups_progress(s.history, woken));
  }
  append(v, check_no_leaks(nodes_left(world.server(), kDir, r.traits.node_dirs), world.server().watch_count()));
}

}  // namespace

Family lock_family() {
  return Family{{RecipeFamily::Lock, RecipeFamily::ReadWriteLock, RecipeFamily::Semaphore, RecipeFamily::Election},
                spawn, properties, check};
}

}  // namespace zksim::scenarios::detail
