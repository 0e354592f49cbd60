#include "ensemble.h"

#include <algorithm>
#include <cassert>

namespace zksim {

Ensemble::Ensemble(int servers, const ServerConfig& config, DecisionSource& decisions, TimeMs lag_ms,
                   Hooks hooks)
    : followers_(static_cast<std::size_t>(servers)), decisions_(decisions), lag_ms_(lag_ms),
      hooks_(std::move(hooks)) {
  assert(servers >= 1);
  for (int i = 0; i < servers; ++i) servers_.push_back(std::make_unique<Server>(config));
}

SessionGrant Ensemble::open_session(int requested_timeout_ms, TimeMs now, Waiter waiter) {
  SessionGrant g = leader().open_session(requested_timeout_ms, now);
  if (size() > 1) {
    commit(Txn{.kind = Txn::Kind::OpenSession, .zxid = g.zxid, .time = now, .session = g.id,
               .timeout_ms = requested_timeout_ms, .waiter = waiter});
  }
  return g;
}

Outcome Ensemble::close_session(SessionId session, TimeMs now, Waiter waiter) {
  const Zxid before = leader().last_zxid();
  Outcome out = leader().close_session(session, now);
  if (size() > 1 && leader().last_zxid() != before) {
    commit(Txn{.kind = Txn::Kind::CloseSession, .zxid = out.zxid, .time = now, .session = session,
               .waiter = waiter});
  }
  return out;
}

Outcome Ensemble::expire(SessionId session, TimeMs now) {
  const Zxid before = leader().last_zxid();
  Outcome out = leader().expire(session, now);
  if (size() > 1 && leader().last_zxid() != before) {
    commit(Txn{.kind = Txn::Kind::Expire, .zxid = out.zxid, .time = now, .session = session});
  }
  return out;
}

std::vector<Outcome> Ensemble::reap(TimeMs now) {
  const Zxid before = leader().last_zxid();
  std::vector<Outcome> outs = leader().reap(now);
  if (size() > 1 && leader().last_zxid() != before) {
    commit(Txn{.kind = Txn::Kind::Reap, .zxid = leader().last_zxid(), .time = now});
  }
  return outs;
}

Error Ensemble::force_cversion(const std::string& path, std::int32_t cversion) {
  const Error e = leader().force_cversion(path, cversion);
  // Not a transaction: a fault hook that every replica gets in order.
  if (size() > 1 && e == Error::Ok) {
    commit(Txn{.kind = Txn::Kind::SetCversion, .zxid = leader().last_zxid(), .path = path,
               .cversion = cversion});
  }
  return e;
}

Error Ensemble::preset_node(const std::string& path, std::int32_t cversion) {
  for (auto& s : servers_) {
    if (Error e = s->preset_node(path, cversion); e != Error::Ok) return e;
  }
  return Error::Ok;
}

Outcome Ensemble::apply(SessionId session, const Request& request, TimeMs now, ChildOrder* order,
                        Waiter waiter) {
  const Zxid before = leader().last_zxid();
  Outcome out = leader().apply(session, request, now, order);
  if (size() > 1 && leader().last_zxid() != before) {
    commit(Txn{.kind = Txn::Kind::Write, .zxid = out.zxid, .time = now, .session = session,
               .request = std::make_shared<const Request>(request), .waiter = waiter});
  }
  return out;
}

void Ensemble::defer(int f, Pending pending, TimeMs now) {
  assert(!is_leader(f));
  push(f, std::move(pending), now);
}

void Ensemble::commit(Txn txn) {
  auto shared = std::make_shared<const Txn>(std::move(txn));
  for (int f = 0; f < size(); ++f) {
    if (is_leader(f)) continue;
    // A crashed server draws nothing: it catches up when it restarts.
    const TimeMs lag = up(f) ? static_cast<TimeMs>(decisions_.pick(kLagChoices)) * lag_ms_ : 0;
    push(f, Pending{.txn = shared}, shared->time + lag);
  }
}

bool Ensemble::owes(int f, SessionId session) const {
  const std::deque<Pending>& queue = followers_[static_cast<std::size_t>(f)].queue;
  return std::any_of(queue.begin(), queue.end(), [&](const Pending& p) {
    return p.txn ? p.txn->session == session && p.txn->waiter.server == f : p.session == session;
  });
}

void Ensemble::push(int f, Pending pending, TimeMs due) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  fo.last_due = std::max(fo.last_due, due);
  fo.queue.push_back(std::move(pending));
  // A crashed server's queue waits for its restart.
  if (!fo.up) return;
  hooks_.at(fo.last_due, [this, f, g = fo.generation] {
    if (followers_[static_cast<std::size_t>(f)].generation == g) advance(f);
  });
}

int Ensemble::quorum_members() const {
  return static_cast<int>(
      std::count_if(followers_.begin(), followers_.end(), [](const Follower& f) { return f.up && !f.cut; }));
}

bool Ensemble::can_crash(int i) const {
  return up(i) && 2 * (quorum_members() - (cut(i) ? 0 : 1)) > size();
}

bool Ensemble::can_cut(int f, TimeMs now) const {
  return !is_leader(f) && up(f) && !cut(f) && !electing(now) && 2 * (quorum_members() - 1) > size();
}

std::uint64_t Ensemble::begin_cut(int f, TimeMs until) {
  assert(!is_leader(f) && up(f) && !cut(f));
  followers_[static_cast<std::size_t>(f)].cut = ++cuts_;
  stall(f, until);
  return cuts_;
}

void Ensemble::notice_cut(int f) { followers_[static_cast<std::size_t>(f)].looking = true; }

void Ensemble::end_cut(int f) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  fo.cut = 0;
  fo.looking = false;
  catch_up(f);
}

void Ensemble::crash(int i, TimeMs now, TimeMs election_ms) {
  assert(can_crash(i));
  Follower& fo = followers_[static_cast<std::size_t>(i)];
  fo.up = false;
  fo.cut = 0;
  fo.looking = false;
  ++fo.generation;
  // What it owed its clients goes with it; its log of commits stays.
  std::erase_if(fo.queue, [](const Pending& p) { return !p.txn; });
  if (!is_leader(i)) return;
  for (Follower& other : followers_) {
    other.cut = 0;
    other.looking = false;
  }
  for (int s = size() - 1; s >= 0; --s) {
    if (followers_[static_cast<std::size_t>(s)].up) {
      leader_ = s;
      break;
    }
  }
  catch_up(leader_);
  electing_until_ = now + election_ms;
  // The others sync with the new leader before they serve again.
  for (int s = 0; s < size(); ++s) {
    if (s != leader_ && followers_[static_cast<std::size_t>(s)].up) catch_up(s);
  }
}

void Ensemble::restart(int i) {
  Follower& fo = followers_[static_cast<std::size_t>(i)];
  if (fo.up) return;
  fo.up = true;
  catch_up(i);
}

void Ensemble::renew_sessions(TimeMs now) {
  for (SessionId s : leader().sessions()) leader().touch(s, now);
}

void Ensemble::stall(int f, TimeMs until) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  fo.last_due = std::max(fo.last_due, until);
}

void Ensemble::catch_up(int f) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  ++fo.generation;
  while (!fo.queue.empty()) advance(f);
  fo.last_due = 0;
}

void Ensemble::advance(int f) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  Pending p = std::move(fo.queue.front());
  fo.queue.pop_front();
  if (!p.txn) {
    hooks_.reached(f, p);
    return;
  }
  const Txn& t = *p.txn;
  Server& s = server(f);
  std::vector<Outcome> outs;
  switch (t.kind) {
    case Txn::Kind::OpenSession: {
      const SessionGrant g = s.open_session(t.timeout_ms, t.time);
      assert(g.id == t.session);
      outs.push_back(Outcome{.zxid = g.zxid});
      break;
    }
    case Txn::Kind::CloseSession:
      outs.push_back(s.close_session(t.session, t.time));
      break;
    case Txn::Kind::Expire:
      outs.push_back(s.expire(t.session, t.time));
      break;
    case Txn::Kind::Write:
      outs.push_back(s.apply(t.session, *t.request, t.time));
      break;
    case Txn::Kind::Reap:
      outs = s.reap(t.time);
      break;
    case Txn::Kind::SetCversion:
      s.force_cversion(t.path, t.cversion);
      break;
  }
  // A replica that applies the leader's transactions in order makes the same zxids.
  assert(s.last_zxid() == t.zxid);
  hooks_.applied(f, t, outs);
}

}  // namespace zksim
