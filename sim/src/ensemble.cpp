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
    const TimeMs lag = static_cast<TimeMs>(decisions_.pick(kLagChoices)) * lag_ms_;
    push(f, Pending{.txn = shared}, shared->time + lag);
  }
}

void Ensemble::push(int f, Pending pending, TimeMs due) {
  Follower& fo = followers_[static_cast<std::size_t>(f)];
  fo.last_due = std::max(fo.last_due, due);
  fo.queue.push_back(std::move(pending));
  hooks_.at(fo.last_due, [this, f] { advance(f); });
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
