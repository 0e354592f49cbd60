// Private state of zksim::World: its event loop (runtime::EventLoop),
// network (network.h), client handles (one per session, like a zhandle)
// and their client views, tasks and faults. world.cpp runs the tasks and
// wires the network's ends; server_host.cpp serves connections with the servers, an
// Ensemble (ensemble.h); client_library.cpp is the client library and
// sim_client.cpp the Client over it; nemesis.cpp and server_faults.cpp
// strike the faults.
#pragma once

#include "ensemble.h"
#include "network.h"
#include "node_reuse.h"
#include "zksim/event_loop.h"
#include "zksim/flavour.h"
#include "zksim/world.h"

#include <coroutine>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

namespace zksim {

class SimClient;
struct Handle;

struct SessionHash {
  std::size_t operator()(SessionId s) const noexcept { return std::hash<std::int64_t>{}(s.value); }
};


// A request a coroutine is waiting on; lives in the awaiting coroutine's frame.
struct PendingOp {
  std::int32_t kind = 0;      // index in Request
  std::string_view path;      // path_of(request), for watch registration and the trace
  Watcher watcher;            // registered when the reply allows
  bool recursive = false;     // add_watch mode
  WatcherType unwatch = WatcherType::Any;  // remove_all_watches: what to drop on Ok
  int view = -1;              // the client view that issued it
  std::uint32_t xid = 0;
  std::coroutine_handle<> waiter;
  std::optional<Outcome> result;
  std::uint64_t deferred = 0;   // the call that resumes an answer put off (answer_at_once)
  bool queued = false;        // waiting for a connection (else in flight)
  bool background = false;    // made by in_background: completes as its flavour's completions do
  bool close = false;         // a close() request, not a Request
  // Stays here, in place, until the op completes: the message that carries
  // it points at it. Starts as a sync, whose default needs no allocation (a
  // default CreateRequest would build the open ACL for every call).
  Request request{std::in_place_type<SyncRequest>};
};

// One session as a client library holds it: the C client's zhandle. As a
// runtime::Process it is paused and crashed with its process.
struct Handle : runtime::Process {
  int index = 0;
  int process = 0;
  const FlavourRules* rules = &rules_of(Flavour::C);  // the client library it behaves like
  int requested_timeout_ms = 0;
  int timeout_ms = 0;
  SessionId session;
  SessionState state = SessionState::Connecting;
  std::int64_t last_zxid = 0;
  std::uint32_t next_xid = 1;
  std::uint64_t next_unique = 1;            // for unique_id()
  std::uint64_t conn = 0;                   // current connection, 0 = none
  // The connect string, shuffled once; each connection attempt takes the
  // next server in it, round and round (the C client's addrvec_next).
  std::vector<int> servers;
  std::size_t next_server = 0;
  std::deque<PendingOp*> in_flight;         // sent, by xid (replies come in order)
  std::deque<PendingOp*> queued;
  // Watchers by path (ordered: session events reach them in path order).
  using WatchTable = std::map<std::string, std::vector<Watcher>, std::less<>>;
  struct Watches {
    WatchTable node, exist, child, persistent, recursive;
    bool empty() const {
      return node.empty() && exist.empty() && child.empty() && persistent.empty() && recursive.empty();
    }
  } watches;
  std::vector<int> views;                   // client ids sharing this handle
  TimeMs last_send = 0;
  TimeMs pause_start = 0;
  TimeMs cut_until = 0;                     // no connection before then (blip-all)
  // The nemesis's storm against this handle (see kNemesisStorm).
  struct Storm {
    int struck = 0;  // requests struck in a row
    int calm = 0;    // requests still to let through untouched
  } storm;
  // op-chain (fault.h): the chain aimed at this client's next request of
  // `kind`, and whether its next request loses its reply too (the second
  // fault of reply-lost-twice).
  struct Aimed {
    std::int32_t kind = -1;
    OpChain chain = OpChain::ReplyLost;
  };
  std::optional<Aimed> aimed;
  bool drop_next = false;
  // Neither crashed nor ended: calls go out, faults can strike.
  bool alive() const { return !crashed && state != SessionState::Closed && state != SessionState::Expired; }
  std::deque<std::pair<std::uint64_t, DownMsg>> held;  // (conn, msg) that arrived while paused
  // The library's own verdict that the session is lost, due while it stays
  // disconnected (FlavourRules::lost_after_suspended_timeout); 0: none.
  std::uint64_t lost_call = 0;
  // The library's threads besides the I/O thread and the recipes' own
  // (FlavourRules): each runs its steps in order; the time of its last one.
  struct Threads {
    TimeMs listener = 0;    // listeners_on_own_thread
    TimeMs event = 0;       // watchers_on_event_thread
    TimeMs completion = 0;  // Completions::OnOwnThread
  } threads;
  // While set, background calls that complete wait in held_completions
  // for their step to be queued (session_expired).
  bool hold_completions = false;
  std::vector<PendingOp*> held_completions;
};

struct World::Impl {
  Impl(WorldConfig c, DecisionSource& d);

  WorldConfig cfg;
  DecisionSource& decisions;
  Ensemble ensemble;
  Trace trace;
  runtime::EventLoop loop;
  Network net;
  TimeMs now() const { return loop.now(); }
  bool step(TimeMs limit);

  // --- clients ---
  std::vector<std::unique_ptr<Handle>> handles;
  std::vector<std::unique_ptr<SimClient>> clients;
  int next_process = 0;
  std::unordered_map<SessionId, int, SessionHash> handle_of_session;
  // The handle behind client `id` (World::open's or World::share's).
  Handle& handle_of_client(int id);
  // The nodes of the handles' watch tables, reused.
  detail::NodeReuse<Handle::WatchTable> watch_nodes;

  // --- tasks ---
  struct Root {
    int process;
    std::coroutine_handle<> h;
  };
  std::map<std::uint64_t, Root> roots;
  std::uint64_t next_root = 0;
  // Registers `task` as a root of `process`, suspended; the function returned starts it.
  std::function<void()> add_root(int process, Task<> task);

  // --- the network's ends (world.cpp) ---
  // `msg` goes up `h`'s connection, if it has one.
  void send_up(Handle& h, UpMsg msg);
  // Network::Hooks: a message reached a server; one reached a client.
  void at_server(std::uint64_t conn, UpMsg& msg);
  void at_client(std::uint64_t conn, DownMsg& msg);
  // The server closes its end: the client learns after what was already sent.
  void server_close(std::uint64_t conn);
  // The client closes its end (disconnect, crash): the server stops serving it.
  void client_close(Handle& h);

  // --- server side (server_host.cpp) ---
  Server& leader() { return ensemble.leader(); }
  void serve_connect(std::uint64_t conn, const UpMsg& msg);
  // Binds `session` to `conn` and tells the client it is connected.
  void connected(std::uint64_t conn, SessionId session);
  void serve_request(std::uint64_t conn, UpMsg& msg);
  // A request of a connection to a follower: a write goes to the leader and
  // is answered once the follower has applied it; a sync once the follower
  // has applied all the leader committed before it; a read at once from
  // the follower's replica, unless its session is owed an earlier answer.
  // Whether a read of `c`'s session on its follower waits: the server owes
  // the session an answer or holds a request of it, from any connection.
  bool owed_on_follower(const Conn& c) const;
  void serve_on_follower(Conn& c, std::uint64_t conn, UpMsg& msg);
  // The Ensemble's hooks: a follower applied a txn, or reached an answer.
  void follower_applied(int server, const Txn& txn, std::vector<Outcome>& outs);
  void follower_reached(int server, Pending& p);
  // The connection `w` names, if its server still serves it.
  Conn* still_served(const Waiter& w);
  // Sends the watch events of `out` to their sessions, moving them out of it
  // (nothing reads an outcome's notifications after this).
  void publish(Outcome& out, std::int64_t zxid);
  std::unordered_map<SessionId, std::uint64_t, SessionHash> session_conn;  // server side; never iterated
  // The server each session was last opened or validated on at the leader:
  // its owner (SessionTrackerImpl.setOwner). A write reaching the leader
  // from another server is refused (checkSession: SessionMovedException).
  std::unordered_map<SessionId, int, SessionHash> session_owner;  // never iterated
  // Sessions the server no longer hears pings from, by deadline.
  std::set<std::pair<TimeMs, SessionId>> silent;
  std::unordered_map<SessionId, TimeMs, SessionHash> silent_deadline;  // the key in `silent`
  void mark_silent(SessionId s, TimeMs deadline);
  void unmark_silent(SessionId s);
  std::optional<std::uint64_t> expiry_call;
  void go_silent(Handle& h, TimeMs since);
  void go_healthy(Handle& h);
  void schedule_expiry();
  void check_expiry();
  void expire_session(SessionId s);
  // The server holding `s`'s connection closes it once it has applied the
  // expiry (FinalRequestProcessor, closeSession); `server` just applied it.
  void close_expired(SessionId s, int server);
  void reap();

  // --- faults of the ensemble (server_faults.cpp) ---
  // Crashes server `i` (see Ensemble::crash); false if it may not.
  bool crash_server(int i, std::string_view why);
  // The same, and restarts it a drawn time up to pause_ms later.
  void crash_with_restart(int i, std::string_view why);
  void restart_server(int i);
  // The election is over: the new leader serves and tracks sessions afresh.
  void end_election();
  // Follower `f` receives no commit until `until`.
  void lag_burst(int f, TimeMs until);
  // Cuts follower `f` off from the leader (World::partition_server).
  bool partition_server(int f, TimeMs duration_ms);
  // Follower `f` notices cut `cut`, if it still lasts: it drops its clients.
  void notice_cut(int f, std::uint64_t cut);
  // Cut `cut` of follower `f` heals, if it still lasts.
  void end_cut(int f, std::uint64_t cut);
  // What a client of a cut follower sent that the leader must see first
  // (a connect, a write, a sync, a close) or that waits behind such a
  // request of its session, in arrival order: it reaches the leader (or
  // is served) when the cut heals, and is lost if the follower notices
  // the cut first. `msg` owns a copy of its request: the client's op may
  // end first (its connection broke) while the request is still on its way.
  struct Held {
    std::uint64_t conn;
    SessionId session;  // the connection's
    UpMsg msg;
  };
  std::map<int, std::vector<Held>> held;  // by follower
  void hold(Conn& c, std::uint64_t conn, const UpMsg& msg);
  // The cut of follower `f` healed: what it held goes on, in order.
  void release_held(int f);
  // The closeSession of `session` reaches the leader from connection
  // `conn` to `server`; the leader's outcome, published.
  Outcome forward_close(int server, std::uint64_t conn, SessionId session, std::uint32_t xid);
  // leader-crash struck: the next write to reach the leader crashes it.
  bool leader_crash_armed = false;
  // The leader crashes as the write `msg` of connection `conn` reaches it.
  void crash_leader_with(std::uint64_t conn, UpMsg& msg);
  // session-moved struck: the next write from a follower's client is on its
  // way to the leader when its session moves.
  bool session_move_armed = false;
  // The session of connection `conn` moves as its write `msg` goes to the leader.
  void move_session_with(std::uint64_t conn, UpMsg& msg);
  void strike_ensemble(TimedFault fault);

  // --- faults (nemesis.cpp) ---
  struct Armed {
    ScriptedFault fault;
    std::int32_t seen = 0;
    bool done = false;
  };
  std::vector<Armed> armed;
  // The fault to apply to a request of `h` reaching the server, if any.
  struct Strike {
    FaultKind kind;
    bool random = false;  // from the nemesis, not a scripted fault
    // A step of op-chain: its chain, and the kind it was aimed at (-1: the
    // second drop of reply-lost-twice, which strikes any kind).
    std::optional<OpChain> chain;
    std::int32_t aimed_kind = -1;
  };
  std::optional<Strike> fault_for(Handle& h, const UpMsg& msg);
  // op-chain strikes `h`'s request with the first fault of `a`'s chain.
  Strike fire_chain(Handle& h, Handle::Aimed a);
  // What the trace says of a step of op-chain: "op-chain <chain> on <kind>".
  static std::string chain_label(const Strike& s);
  // The follow-up of op-chain's strike `s` on `h`, once its first fault
  // broke the connection.
  void follow_chain(Handle& h, const Strike& s);
  // `cause`, if given, is added to the fault's trace detail.
  void apply_fault(FaultKind kind, Handle& h, TimeMs duration_ms, std::string_view cause = {});
  std::array<int, kFaultClasses> struck{};     // see World::struck()
  // The time-triggered nemesis: a window each timed_window_ms(), the first
  // opening first_window_ms after it starts, in which a timed class may
  // strike at a drawn instant; stops once no timed rate is set
  // (set_nemesis), and starts again when one is.
  bool timed_running = false;
  void start_timed_nemesis();
  TimeMs timed_window_ms() const;
  void timed_window();
  void strike_timed(TimedFault fault);
  // How long a timed outage lasts (a blip, a server down, a lag burst):
  // drawn, 1 ms to pause_ms.
  TimeMs drawn_outage_ms();
  // Cuts `h` off the server until `until`: its connection breaks and it
  // cannot reconnect before then.
  void cut_off(Handle& h, TimeMs until, std::string_view why);

  // --- client library (client_library.cpp) ---
  // Sends (or queues) op.request; false if it completed at once (op.result set).
  bool submit(Handle& h, PendingOp& op);
  // A call answered without the server (refused, or on a closed handle):
  // at once, as the C client does, up to kAnswersAtOnce in a row within one
  // step; past that through an event at the same instant. Without
  // optimisation GCC makes no tail call of a coroutine's symmetric
  // transfer, so a loop of such calls would grow the stack until it
  // overflowed. False: answered now; true: the caller waits for the event.
  bool answer_at_once(PendingOp& op, Outcome out);
  // A call answered without the server: at once (answer_at_once), or, for
  // a background call of a flavour whose completions run on a thread, as
  // that thread's step. The same return value.
  bool answer_locally(Handle& h, PendingOp& op, Outcome out);
  static constexpr int kAnswersAtOnce = 64;
  int answers_in_step = 0;
  void forget(Handle& h, PendingOp& op);
  void connect(Handle& h);
  // Tries connect(h) at `t` unless it reconnected or ended by then.
  void reconnect_at(Handle& h, TimeMs t);
  void on_down(Handle& h, DownMsg& msg);
  void complete(Handle& h, PendingOp& op, Outcome&& out);
  // The library's side of removeWatches: forgets the handle's watchers of
  // `type` on `path` (removeWatchers in the C client; Any also the add_watch ones).
  void drop_watchers(Handle& h, std::string_view path, WatcherType type);
  void disconnected(Handle& h);
  // The session is over, as the server said on reconnecting or as the
  // library decided (lost_after_suspended_timeout): pending calls fail with
  // SessionExpired, everyone is told Expired, and the handle either ends or,
  // if its flavour says so, starts a new session.
  void session_expired(Handle& h);
  // Tells `state` to the default watchers, the listeners (on their own
  // thread if the flavour has one) and `watchers`.
  void session_event(Handle& h, KeeperState state, const Handle::Watches& watchers);
  void tell_listeners(Handle& h, KeeperState state);

  // --- the client library's threads (client_threads.cpp) ---
  // What a scheduling choice is for (DecisionSource::pick_for): one of a
  // handle's threads, or its connection's messages.
  enum class Actor : int { Messages, Caller, Event, Listener, Tasks, Completion };
  static constexpr int kActors = 6;
  static int actor(const Handle& h, Actor a) { return h.index * kActors + static_cast<int>(a); }
  static int actor(int handle, Actor a) { return handle * kActors + static_cast<int>(a); }
  // Queues `fn` on one of `h`'s threads (`last`: Handle::Threads; `a` the
  // thread): it runs a drawn 0 to kThreadLagChoices - 1 ms from now, after
  // the thread's earlier steps, on behalf of `h`; `slot` as in
  // runtime::EventLoop::at_process.
  void on_thread(Handle& h, TimeMs& last, Actor a, std::function<void()> fn, std::uint64_t* slot = nullptr);
  // Runs the completion of background call `op` (its result set) where
  // `h`'s flavour runs completions (FlavourRules::completions): at once, or
  // as a step of the event thread or of the completion thread.
  void run_completion(Handle& h, PendingOp& op);
  // The lag of a step of `h`'s thread `a` that a flavour with recipes on
  // the caller's thread draws (0 to kThreadLagChoices - 1); 0, drawn from
  // nothing, for the others.
  std::uint32_t caller_lag(Handle& h, Actor a);
  // Wakes recipe coroutine `c` of `h`: returns `c` to resume at once or,
  // on a flavour whose recipes run on the caller's thread, may instead
  // schedule it as that thread's step a drawn moment later and return a
  // no-op handle (choice 0: at once, 1: after what is due now, 2: 1 ms
  // later); `slot` as in runtime::EventLoop::at_process.
  std::coroutine_handle<> wake(Handle& h, std::coroutine_handle<> c, std::uint64_t& slot);
  // How far behind the I/O thread a library thread runs, in ms (drawn per step).
  static constexpr std::uint32_t kThreadLagChoices = 3;
  // The listener thread's step: tells `state` to every listener of `h`.
  void listener_step(Handle& h, KeeperState state);
  // The ids of view `view`'s session listeners, in order.
  std::vector<std::uint64_t> listener_ids(int view) const;
  // Calls the listeners `ids` of view `view` that are still registered.
  void call_listeners(int view, const std::vector<std::uint64_t>& ids, const WatchedEvent& e);
  // Declares the session lost at `t` unless it reconnected or ended by then.
  void lose_at(Handle& h, TimeMs t);
  // How late the server expires a silent session of a flavour that starts a
  // new one (FlavourRules::new_session_after_expiry): a drawn quarter of the
  // session timeout, 0 to 4.
  static constexpr std::uint32_t kExpiryLagChoices = 5;
  void watch_event(Handle& h, const WatchedEvent& e, std::int64_t zxid);
  // Calls `watchers` with `e`, on the event thread if the flavour has one.
  void call_watchers(Handle& h, std::vector<Watcher> watchers, const WatchedEvent& e);
  void set_state(Handle& h, SessionState s);
  void fail_all(Handle& h, Error e);
  void pause(Handle& h, TimeMs duration_ms);
  void resume(Handle& h);
  void crash(int process);
  void record(TraceKind kind, int client, SessionId s, std::int64_t zxid, std::int32_t code,
              std::int32_t code2 = 0, std::uint32_t xid = 0, std::string_view path = {},
              std::string_view detail = {});
  bool paused(const Handle& h) const { return h.paused(now()); }
};

// The Client a recipe holds: a view of a Handle.
class SimClient final : public Client {
 public:
  SimClient(World::Impl& w, Handle& h, int id, std::string name)
      : w_(w), h_(h), id_(id), name_(std::move(name)) {}

  Task<Result<CreateResponse>> create(std::string path, std::string data, CreateMode mode,
                                      AclList acl, std::int64_t ttl_ms) override;
  Task<Result<void>> remove(std::string path, Version version) override;
  Task<Result<Stat>> exists(std::string path, Watcher watcher) override;
  Task<Result<DataResponse>> get_data(std::string path, Watcher watcher) override;
  Task<Result<Stat>> set_data(std::string path, std::string data, Version version) override;
  Task<Result<ChildrenResponse>> get_children(std::string path, Watcher watcher) override;
  Task<MultiResult> multi(std::vector<MultiOp> ops) override;
  Task<Result<void>> sync(std::string path) override;
  Task<Result<void>> add_watch(std::string path, AddWatchMode mode, Watcher watcher) override;
  Task<Result<void>> remove_all_watches(std::string path, WatcherType type) override;
  Task<Result<void>> close() override;
  SessionState state() const override { return h_.state; }
  SessionId session_id() const override { return h_.session; }
  void set_default_watcher(Watcher watcher) override { default_watcher = std::move(watcher); }
  std::uint64_t add_session_listener(Watcher listener) override {
    listeners.emplace(next_listener, std::move(listener));
    return next_listener++;
  }
  void remove_session_listener(std::uint64_t id) override { listeners.erase(id); }
  std::string unique_id() override;
  TimeMs now() const override { return w_.now(); }
  Task<void> sleep(TimeMs ms) override;
  Task<bool> wait_for(Signal s, TimeMs timeout_ms) override;
  Task<void> preemption_point() override;
  void post(Task<> task) override;
  void annotate(std::string text) override;

  int id() const { return id_; }
  const std::string& name() const { return name_; }
  Handle& handle() { return h_; }
  const Handle& handle() const { return h_; }
  Watcher default_watcher;
  std::map<std::uint64_t, Watcher> listeners;  // session listeners, by id

 private:
  void background(Task<> call) override;
  // Fills in a request about to be awaited.
  void prepare(PendingOp& op, Request request, Watcher watcher = {}, bool recursive = false);
  World::Impl& w_;
  Handle& h_;
  int id_;
  std::string name_;
  std::uint64_t next_listener = 1;
  // Set while background() starts its call: the next request prepared is
  // a background call.
  bool starting_background_ = false;
};

}  // namespace zksim
