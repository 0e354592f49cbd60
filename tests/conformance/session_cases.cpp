// Sessions: close and expiry as the session itself and as others see them.
// Expiry: the simulator injects FaultKind::ExpireSession; on the real server
// a second handle attaches to the session with its id and password and
// closes it, while the client is kept away from the server (TcpGate), so
// both give the client Disconnected, then Expired on reconnect.
#include "harness.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim {
namespace {

using namespace conf;

std::vector<std::string> states(const Seen& s) {
  std::vector<std::string> out;
  for (const auto& e : s.events) {
    out.push_back(fmt::format("{}/{}{}", event_type_name(e.type), keeper_state_name(e.state),
                              e.path.empty() ? std::string() : fmt::format(" {}", e.path)));
  }
  return out;
}

CONFORMANCE_CASE(Session, ExpiredClientHearsDisconnectedThenExpired) {
  Client* b = co_await env.open();
  Seen def, listener;
  b->set_default_watcher(def.watcher());
  b->add_session_listener(listener.watcher());
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.events("default", def.events);
  rec.events("listener", listener.events);
}

CONFORMANCE_CASE(Session, ExpiryReachesEveryRegisteredWatcher) {
  Client* b = co_await env.open();
  Seen ex, data;
  rec.put("create", co_await env.a().create(env.path("a"), "", CreateMode::Persistent));
  rec.put("b exists", co_await b->exists(env.path("missing"), ex.watcher()));
  rec.put("b get", co_await b->get_data(env.path("a"), data.watcher()));
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.events("exists watcher", ex.events);
  rec.events("data watcher", data.events);
}

CONFORMANCE_CASE(Session, CallsAfterExpiryAreInvalidState) {
  Client* b = co_await env.open();
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.line(fmt::format("state expired: {}", b->state() == SessionState::Expired));
  rec.put("exists", co_await b->exists(env.root()));
  rec.put("create", co_await b->create(env.path("a"), "", CreateMode::Persistent));
  rec.put("close", co_await b->close());
  rec.line(fmt::format("state still expired: {}", b->state() == SessionState::Expired));
}

CONFORMANCE_CASE(Session, ExpiryDeletesEphemeralsAsAnotherSessionSees) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Seen w;
  rec.put("e1", co_await b->create(env.path("e1"), "", CreateMode::Ephemeral));
  rec.put("e2", co_await b->create(env.path("e2"), "", CreateMode::EphemeralSequential));
  rec.put("p", co_await b->create(env.path("p"), "", CreateMode::Persistent));
  rec.put("exists e1", co_await zk.exists(env.path("e1"), w.watcher()));
  rec.put("children", co_await zk.get_children(env.root(), w.watcher()));
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.line(fmt::format("arrived: {}", co_await wait_events(zk, w, 2)));
  // The server deletes a session's ephemerals in no fixed order: a set.
  std::vector<std::string> evs = states(w);
  std::sort(evs.begin(), evs.end());
  rec.line(fmt::format("a events (as a set): [{}]", fmt::join(evs, "; ")));
  rec.put("children", co_await zk.get_children(env.root()));
  rec.put("next", co_await zk.create(env.path("n"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Session, CloseDeletesEphemeralsAtOnce) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  rec.put("e", co_await b->create(env.path("e"), "", CreateMode::Ephemeral));
  rec.put("close", co_await b->close());
  rec.put("exists", co_await zk.exists(env.path("e")));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Session, OpeningASessionUsesAZxid) {
  Client& zk = env.a();
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  Client* b = co_await env.open();
  rec.put("b", co_await b->create(env.path("b"), "", CreateMode::Persistent));
}

CONFORMANCE_CASE(Session, ClosingASessionUsesOneZxid) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  rec.put("e1", co_await b->create(env.path("e1"), "", CreateMode::Ephemeral));
  rec.put("e2", co_await b->create(env.path("e2"), "", CreateMode::Ephemeral));
  rec.put("close", co_await b->close());
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Session, CallsAfterCloseAreInvalidState) {
  Client* b = co_await env.open();
  rec.put("close", co_await b->close());
  rec.line(fmt::format("closed: {}", b->state() == SessionState::Closed));
  rec.put("get", co_await b->get_data(env.root()));
  rec.put("sync", co_await b->sync(env.root()));
  rec.put("close again", co_await b->close());
}

CONFORMANCE_CASE(Session, ClosedClientHearsNoSessionEvent) {
  Client* b = co_await env.open();
  Seen def;
  b->set_default_watcher(def.watcher());
  rec.put("close", co_await b->close());
  co_await settle(env.a());
  rec.events("default", def.events);
}

CONFORMANCE_CASE(Session, SessionListenerCanBeRemoved) {
  Client* b = co_await env.open();
  Seen kept, removed;
  b->add_session_listener(kept.watcher());
  std::uint64_t id = b->add_session_listener(removed.watcher());
  b->remove_session_listener(id);
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.events("kept", kept.events);
  rec.events("removed", removed.events);
}

CONFORMANCE_CASE(Session, ExpiryUsesOneZxid) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  rec.put("e1", co_await b->create(env.path("e1"), "", CreateMode::Ephemeral));
  rec.put("e2", co_await b->create(env.path("e2"), "", CreateMode::Ephemeral));
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.put("a", co_await zk.create(env.path("a"), "", CreateMode::Persistent));
  rec.put("root", co_await zk.exists(env.root()));
}

CONFORMANCE_CASE(Session, EphemeralOwnersAfterAnotherSessionExpires) {
  Client& zk = env.a();
  Client* b = co_await env.open();
  Client* c = co_await env.open();
  rec.put("b eph", co_await b->create(env.path("eb"), "", CreateMode::Ephemeral));
  rec.put("c eph", co_await c->create(env.path("ec"), "", CreateMode::Ephemeral));
  rec.line(fmt::format("expired: {}", co_await env.expire(*b)));
  rec.put("eb", co_await zk.exists(env.path("eb")));
  rec.put("ec", co_await zk.exists(env.path("ec")));
}

}  // namespace
}  // namespace zksim
