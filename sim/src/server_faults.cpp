// World::Impl's faults of the ensemble (docs/ensemble.md, "Faults of the
// ensemble"): servers crash and restart, a crashed leader is replaced by an
// election, a follower falls behind for a while or is cut off from the
// leader. The ensemble keeps the
// servers' state (ensemble.h); this side closes their connections and
// tells the trace.
#include "world_impl.h"

#include <algorithm>

namespace zksim {

bool World::Impl::crash_server(int i, std::string_view why) {
  if (i < 0 || i >= ensemble.size() || !ensemble.can_crash(i)) return false;
  const bool led = ensemble.is_leader(i);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(i).last_zxid().value,
         static_cast<int>(ServerAction::ServerCrashed), i, 0, {}, why);
  // Its clients lose their connections; when the leader goes, every
  // follower's too: they stop serving while they look for a leader
  // (QuorumPeer goes LOOKING and shuts its ZooKeeperServer down).
  for (std::uint64_t id = 1; id < net.end(); ++id) {
    Conn* c = net.find(id);
    if (c && c->server_open && (led || c->server == i)) server_close(id);
  }
  // What a cut follower held for the leader dies with either.
  if (led) held.clear();
  else held.erase(i);
  ensemble.crash(i, now(), cfg.election_ms);
  if (led) loop.call_at(ensemble.election_end(), [this] { end_election(); });
  return true;
}

void World::Impl::end_election() {
  // Another crash may have started a later election meanwhile.
  if (ensemble.electing(now())) return;
  // The new leader tracks every session afresh, from now.
  ensemble.renew_sessions(now());
  record(TraceKind::Server, -1, SessionId{}, leader().last_zxid().value,
         static_cast<int>(ServerAction::LeaderElected), ensemble.leader_index());
  schedule_expiry();
}

void World::Impl::restart_server(int i) {
  if (i < 0 || i >= ensemble.size() || ensemble.up(i)) return;
  ensemble.restart(i);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(i).last_zxid().value,
         static_cast<int>(ServerAction::ServerRestarted), i);
}

void World::Impl::lag_burst(int f, TimeMs until) {
  if (f < 0 || f >= ensemble.size() || ensemble.is_leader(f) || !ensemble.up(f)) return;
  ensemble.stall(f, until);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(f).last_zxid().value,
         static_cast<int>(ServerAction::LagBurst), f, 0, {},
         fmt::format("receives no commit for {} ms", until - now()));
}

bool World::Impl::partition_server(int f, TimeMs duration_ms) {
  if (f < 0 || f >= ensemble.size() || !ensemble.can_cut(f, now())) return false;
  const std::uint64_t cut = ensemble.begin_cut(f, now() + duration_ms);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(f).last_zxid().value,
         static_cast<int>(ServerAction::FollowerCut), f, 0, {},
         fmt::format("cut off from the leader for {} ms", duration_ms));
  // The leader hears its clients' sessions no more: their deadlines run.
  for (std::uint64_t id = 1; id < net.end(); ++id) {
    Conn* c = net.find(id);
    if (c && c->server_open && c->server == f && c->session != SessionId{}) {
      go_silent(*handles[static_cast<std::size_t>(c->handle)], now());
    }
  }
  if (duration_ms > cfg.partition_detect_ms) {
    loop.call_at(now() + cfg.partition_detect_ms, [this, f, cut] { notice_cut(f, cut); });
  }
  loop.call_at(now() + duration_ms, [this, f, cut] { end_cut(f, cut); });
  return true;
}

void World::Impl::notice_cut(int f, std::uint64_t cut) {
  if (ensemble.cut(f) != cut) return;  // ended by a crash
  // Follower.followLeader's read times out: the follower shuts its
  // ZooKeeperServer down, closing every client connection, and goes
  // LOOKING. What it forwarded never reached the leader.
  ensemble.notice_cut(f);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(f).last_zxid().value,
         static_cast<int>(ServerAction::FollowerLooking), f, 0, {},
         fmt::format("no word from the leader for {} ms", cfg.partition_detect_ms));
  held.erase(f);
  for (std::uint64_t id = 1; id < net.end(); ++id) {
    Conn* c = net.find(id);
    if (c && c->server_open && c->server == f) server_close(id);
  }
}

void World::Impl::end_cut(int f, std::uint64_t cut) {
  if (ensemble.cut(f) != cut) return;  // ended by a crash
  // The leader's commits flow in (or it syncs with the leader, if it was
  // looking), then what its clients sent reaches the leader, in order.
  ensemble.end_cut(f);
  record(TraceKind::Server, -1, SessionId{}, ensemble.server(f).last_zxid().value,
         static_cast<int>(ServerAction::FollowerRejoined), f);
  for (std::uint64_t id = 1; id < net.end(); ++id) {
    Conn* c = net.find(id);
    if (c && c->server_open && c->server == f) go_healthy(*handles[static_cast<std::size_t>(c->handle)]);
  }
  release_held(f);
}

void World::Impl::crash_leader_with(std::uint64_t conn, UpMsg& msg) {
  leader_crash_armed = false;
  const Conn& c = *net.find(conn);
  // Decision 0, the milder: the proposal had not reached a quorum and the
  // new leader truncates it. 1: a quorum logged it, so it survives (ZAB).
  const bool committed = decisions.pick(2) == 1;
  if (committed) {
    Outcome out = ensemble.apply(c.session, *msg.request, now(), nullptr, Waiter{});
    // Nobody hears of it from this leader: every connection closes with it.
    out.notifications.clear();
  }
  record(TraceKind::Fault, msg.view, c.session, leader().last_zxid().value,
         static_cast<int>(FaultKind::DropBeforeApply), 0, msg.xid, path_of(*msg.request),
         committed ? "leader crashed: write committed, reply lost" : "leader crashed: write lost");
  crash_with_restart(ensemble.leader_index(), "leader-crash");
}

void World::Impl::move_session_with(std::uint64_t conn, UpMsg& msg) {
  session_move_armed = false;
  Conn& c = *net.find(conn);
  // Decision 0, the milder: the client reconnected elsewhere before the
  // write reached the leader, which refuses it (PrepRequestProcessor's
  // checkSession: SESSIONMOVED; the old server closes the connection).
  // 1: the leader took it first, and the move lost only the reply.
  const bool applied = decisions.pick(2) == 1;
  if (applied) serve_on_follower(c, conn, msg);
  record(TraceKind::Fault, msg.view, c.session, leader().last_zxid().value,
         static_cast<int>(applied ? FaultKind::DropAfterApply : FaultKind::DropBeforeApply), 0, msg.xid,
         path_of(*msg.request), applied ? "session moved: write applied, reply lost" : "session moved: write refused");
  server_close(conn);
}

void World::Impl::crash_with_restart(int i, std::string_view why) {
  if (!crash_server(i, why)) return;
  loop.call_at(now() + drawn_outage_ms(), [this, i] { restart_server(i); });
}

void World::Impl::strike_ensemble(TimedFault fault) {
  if (ensemble.size() < 2) return;
  switch (fault) {
    case TimedFault::LagBurst: {
      std::vector<int> followers;
      for (int s = 0; s < ensemble.size(); ++s) {
        if (!ensemble.is_leader(s) && ensemble.up(s)) followers.push_back(s);
      }
      if (followers.empty()) return;
      ++struck[static_cast<std::size_t>(fault)];
      const int f = followers[decisions.pick(static_cast<std::uint32_t>(followers.size()))];
      lag_burst(f, now() + drawn_outage_ms());
      return;
    }
    case TimedFault::ServerCrash: {
      std::vector<int> crashable;
      for (int s = 0; s < ensemble.size(); ++s) {
        if (ensemble.can_crash(s)) crashable.push_back(s);
      }
      if (crashable.empty()) return;
      ++struck[static_cast<std::size_t>(fault)];
      crash_with_restart(crashable[decisions.pick(static_cast<std::uint32_t>(crashable.size()))], "server-crash");
      return;
    }
    case TimedFault::LeaderCrash: {
      if (leader_crash_armed || !ensemble.can_crash(ensemble.leader_index())) return;
      ++struck[static_cast<std::size_t>(fault)];
      // The next write the leader takes is the one in flight; without one
      // by the window's end, the leader crashes with none.
      leader_crash_armed = true;
      loop.call_at(now() + timed_window_ms(), [this] {
        if (!leader_crash_armed) return;
        leader_crash_armed = false;
        crash_with_restart(ensemble.leader_index(), "leader-crash");
      });
      return;
    }
    case TimedFault::Partition: {
      std::vector<int> cuttable;
      for (int s = 0; s < ensemble.size(); ++s) {
        if (ensemble.can_cut(s, now())) cuttable.push_back(s);
      }
      if (cuttable.empty()) return;
      ++struck[static_cast<std::size_t>(fault)];
      const int f = cuttable[decisions.pick(static_cast<std::uint32_t>(cuttable.size()))];
      partition_server(f, drawn_outage_ms());
      return;
    }
    case TimedFault::SessionMoved: {
      if (session_move_armed) return;
      ++struck[static_cast<std::size_t>(fault)];
      session_move_armed = true;
      loop.call_at(now() + timed_window_ms(), [this] {
        if (!session_move_armed) return;
        session_move_armed = false;
        // No write came: a drawn client moves all the same.
        Handle& h = *handles[decisions.pick(static_cast<std::uint32_t>(handles.size()))];
        if (h.alive()) apply_fault(FaultKind::DropBeforeApply, h, 0);
      });
      return;
    }
    default:
      return;
  }
}

}  // namespace zksim
