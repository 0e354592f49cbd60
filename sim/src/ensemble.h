// The servers of a world: replicas of one ZooKeeper state, each a
// zksim::Server, server 0 the first leader. The leader orders every transaction:
// it applies it at once, and so decides its zxid and its outcome. Each
// follower applies the committed transactions in zxid order, each one a
// drawn lag after the last (Learner.processPacket's COMMIT); what a
// client's own server must answer once it has caught up (a write's reply,
// a sync, a read behind the session's pending write) waits in that
// server's queue. An ensemble of one has no followers, keeps no log and
// draws nothing.
//
// Servers fail (docs/ensemble.md, "Faults of the ensemble"): a crashed
// server applies nothing and serves nobody until it restarts, caught up
// with everything committed meanwhile (Learner.syncWithLeader). When the
// leader crashes, the live server with the highest index is elected (all
// logs hold every committed transaction, so FastLeaderElection's tie-break
// on the server id decides) and has applied everything before the
// election ends; until then no server serves. A follower can also fall
// behind for a while (a lag burst): what is committed meanwhile reaches it
// only when the burst ends. A follower cut off from the leader (a
// partition) receives nothing meanwhile either; once it notices, it serves
// nobody until the cut heals and it has caught up. For the quorum a cut
// follower counts as down. The host holds what its clients send the leader.
//
// The ensemble does not know connections or clients: a Waiter is opaque to
// it, and the host hears of each step through Hooks.
#pragma once

#include "zksim/decision.h"
#include "zksim/server.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zksim {

// Who is answered once the client's own server has applied (or reached)
// what the answer waits for.
struct Waiter {
  int server = -1;  // the server the client is connected to
  std::uint64_t conn = 0;
  std::uint32_t xid = 0;
};

// A committed transaction, as every follower replays it.
struct Txn {
  enum class Kind : std::uint8_t { OpenSession, CloseSession, Expire, Write, Reap, SetCversion };
  Kind kind = Kind::Write;
  Zxid zxid;        // the last zxid it made (a reap makes one per node)
  TimeMs time = 0;  // the leader's clock, so every replica stamps the same times
  SessionId session;
  int timeout_ms = 0;                      // OpenSession: as requested
  std::shared_ptr<const Request> request;  // Write
  std::string path;                        // SetCversion
  std::int32_t cversion = 0;               // SetCversion
  Waiter waiter;
};

// An item of a follower's queue: a committed transaction to apply, or an
// answer due once the follower has applied everything before it.
struct Pending {
  std::shared_ptr<const Txn> txn;
  Waiter waiter;
  SessionId session;
  std::shared_ptr<const Request> request;  // to serve there then (a read, a sync)
  std::optional<Outcome> outcome;          // or the leader's answer (a write that made no txn)
  // Or the answer to a connect of a session the follower has not applied
  // the createSession of yet.
  bool connect = false;
};

class Ensemble {
 public:
  struct Hooks {
    // Runs `fn` at simulated time `t`, after what is already due then.
    std::function<void(TimeMs, std::function<void()>)> at;
    // Follower `server` applied `txn`; `outs` are its outcomes there, whose
    // notifications are for the watches held on that server.
    std::function<void(int server, const Txn& txn, std::vector<Outcome>& outs)> applied;
    // Follower `server` reached `pending`, an answer (not a txn).
    std::function<void(int server, Pending& pending)> reached;
  };
  // How many lags a follower draws from, each `lag_ms` long (0: none).
  static constexpr std::uint32_t kLagChoices = 4;

  // REQUIRES: servers >= 1.
  Ensemble(int servers, const ServerConfig& config, DecisionSource& decisions, TimeMs lag_ms,
           Hooks hooks);

  int size() const { return static_cast<int>(servers_.size()); }
  int leader_index() const { return leader_; }
  bool is_leader(int server) const { return server == leader_index(); }
  bool up(int server) const { return followers_[static_cast<std::size_t>(server)].up; }
  // Up, not in an election, not looking for its leader: it takes
  // connections and requests.
  bool serving(int server, TimeMs now) const { return up(server) && !electing(now) && !looking(server); }
  bool electing(TimeMs now) const { return now < electing_until_; }
  // When the election in progress (or the last one) ends.
  TimeMs election_end() const { return electing_until_; }
  // Whether server `i` may crash: it is up, and a quorum (a majority of
  // size(), up and not cut off) stays without it.
  bool can_crash(int i) const;

  // The cut follower `f` is in (ids count from 1), 0 if none.
  std::uint64_t cut(int f) const { return followers_[static_cast<std::size_t>(f)].cut; }
  // Whether follower `f` has noticed its cut and looks for a leader.
  bool looking(int f) const { return followers_[static_cast<std::size_t>(f)].looking; }
  // Whether follower `f` may be cut off now: a follower, up, not cut, no
  // election going on, and a quorum stays without it.
  bool can_cut(int f, TimeMs now) const;
  // Follower `f` is cut off from the leader until `until`: it receives
  // nothing committed from now (as a stall). Returns the cut's id.
  // REQUIRES: can_cut(f, now).
  std::uint64_t begin_cut(int f, TimeMs until);
  // Follower `f` noticed its cut: it serves nobody until it ends.
  void notice_cut(int f);
  // Follower `f`'s cut heals: it applies everything committed meanwhile
  // (and reaches what waited behind it) and serves again.
  void end_cut(int f);

  // Server `i` stops: it applies nothing and answers nothing from now on;
  // its cut, if any, ends with it (and every cut, if it led: a cut was
  // from it). If it led, the live server with the highest index leads from now, and
  // the ensemble serves nobody before `now + election_ms`; at that time
  // every session's deadline starts afresh (call renew_sessions).
  // REQUIRES: can_crash(i).
  void crash(int i, TimeMs now, TimeMs election_ms);
  // Server `i` is back, having applied everything committed so far. No-op if up.
  void restart(int i);
  // The new leader's session tracker: every session's deadline counts
  // from `now` (LeaderSessionTracker, loaded afresh by the new leader).
  void renew_sessions(TimeMs now);
  // Follower `f` receives nothing committed from now until `until`, then
  // all of it, in order.
  void stall(int f, TimeMs until);
  Server& server(int i) { return *servers_[static_cast<std::size_t>(i)]; }
  Server& leader() { return server(leader_index()); }

  // The leader's transactions, each as zksim::Server's of the same name,
  // then handed to every follower. `waiter` is answered by its server once
  // that server has applied the transaction (a follower; the leader's
  // own clients are answered by the caller at once).
  SessionGrant open_session(int requested_timeout_ms, TimeMs now, Waiter waiter);
  Outcome close_session(SessionId session, TimeMs now, Waiter waiter);
  Outcome expire(SessionId session, TimeMs now);
  std::vector<Outcome> reap(TimeMs now);
  Error force_cversion(const std::string& path, std::int32_t cversion);
  // Server::preset_node on every server.
  Error preset_node(const std::string& path, std::int32_t cversion);
  // Applies a request on the leader; a write's transaction (failed ones
  // included) goes to the followers, a read or a write that made none
  // (an expired session, a dropped connection) goes nowhere.
  Outcome apply(SessionId session, const Request& request, TimeMs now, ChildOrder* order,
                Waiter waiter);

  // Queues `pending` on follower `f` behind everything committed so far.
  // REQUIRES: !is_leader(f).
  void defer(int f, Pending pending, TimeMs now);
  // Whether follower `f`'s queue holds something of `session` its own
  // clients sent there (a transaction it forwarded, an answer it owes),
  // whichever connection of the session sent it.
  bool owes(int f, SessionId session) const;

 private:
  struct Follower {
    std::deque<Pending> queue;
    TimeMs last_due = 0;  // the queue's items fall due in order
    bool up = true;
    std::uint64_t cut = 0;  // Ensemble::cut
    bool looking = false;
    // The queue's scheduled advances are of this generation; a crash or a
    // catch-up starts a new one, and an older advance does nothing.
    std::uint64_t generation = 0;
  };
  // Hands `txn` to every follower, each at a drawn lag after `txn.time`.
  void commit(Txn txn);
  void push(int f, Pending pending, TimeMs due);
  // Applies or reaches the front of follower `f`'s queue.
  void advance(int f);
  // Applies (or reaches) everything in follower `f`'s queue now.
  void catch_up(int f);

  std::vector<std::unique_ptr<Server>> servers_;
  std::vector<Follower> followers_;  // by server index; the leader's stays empty
  DecisionSource& decisions_;
  TimeMs lag_ms_;
  Hooks hooks_;
  // How many servers count for the quorum: up and not cut off.
  int quorum_members() const;

  int leader_ = 0;
  TimeMs electing_until_ = 0;
  std::uint64_t cuts_ = 0;
};

}  // namespace zksim
