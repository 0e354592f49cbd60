// zksim-demo: a short tour of the simulated ZooKeeper server. It plays a
// three-client lock queue on the data tree and prints every step, so a new
// user sees sequential names, watches, expiry and multi at work.
#include "zksim/server.h"

#include <fmt/format.h>

#include <string>
#include <variant>

namespace {

using namespace zksim;

class Tour {
 public:
  Tour() : server_(ServerConfig{.tick_ms = 200}) {}

  SessionId open(const char* who, int timeout_ms) {
    SessionGrant g = server_.open_session(timeout_ms, now_);
    fmt::print("t={:>5}  {:<6} open session 0x{:016x}, timeout {} ms (zxid {:#x})\n", now_, who,
               g.id.value, g.timeout_ms, g.zxid.value);
    return g.id;
  }

  Outcome apply(const char* who, SessionId s, const Request& r, const std::string& what) {
    Outcome o = server_.apply(s, r, now_);
    std::string detail;
    if (auto* c = std::get_if<CreateResponse>(&o.response)) detail = " -> " + c->path;
    if (auto* c = std::get_if<ChildrenResponse>(&o.response)) {
      detail = fmt::format(" -> [{}]", fmt::join(c->children, ", "));
    }
    fmt::print("t={:>5}  {:<6} {:<40} {}{} (zxid {:#x})\n", now_, who, what, o.error, detail,
               o.zxid.value);
    notify(o);
    return o;
  }

  void notify(const Outcome& o) {
    for (const Notification& n : o.notifications) {
      fmt::print("         watch  -> session 0x{:016x}: {} {}\n", n.session.value,
                 event_type_name(n.event.type), n.event.path);
    }
  }

  void advance(TimeMs to) {
    now_ = to;
    for (const Outcome& o : server_.expire_due(now_)) {
      fmt::print("t={:>5}  server expired a session (zxid {:#x})\n", now_, o.zxid.value);
      notify(o);
    }
  }

  Server& server() { return server_; }
  TimeMs now() const { return now_; }

 private:
  Server server_;
  TimeMs now_ = 0;
};

}  // namespace

int main() {
  Tour t;
  fmt::print("zksim demo: three clients queue for a lock on a simulated ZooKeeper 3.8 server\n\n");
  SessionId a = t.open("alice", 1000);
  SessionId b = t.open("bob", 4000);
  SessionId c = t.open("carol", 4000);

  t.apply("alice", a, CreateRequest{.path = "/lock", .mode = CreateMode::Container}, "create /lock (container)");
  t.apply("alice", a, CreateRequest{.path = "/lock/n-", .mode = CreateMode::EphemeralSequential},
          "create /lock/n- (ephemeral sequential)");
  t.apply("bob", b, CreateRequest{.path = "/lock/n-", .mode = CreateMode::EphemeralSequential},
          "create /lock/n- (ephemeral sequential)");
  t.apply("carol", c, CreateRequest{.path = "/lock/n-", .mode = CreateMode::EphemeralSequential},
          "create /lock/n- (ephemeral sequential)");
  t.apply("bob", b, GetChildrenRequest{"/lock"}, "getChildren /lock");
  t.apply("bob", b, ExistsRequest{"/lock/n-0000000000", true}, "exists /lock/n-0000000000 (watch)");
  t.apply("carol", c, ExistsRequest{"/lock/n-0000000001", true}, "exists /lock/n-0000000001 (watch)");

  fmt::print("\nalice stops sending pings; only bob and carol stay in touch\n");
  for (TimeMs now = 500; now <= 1500; now += 500) {
    t.server().touch(b, now);
    t.server().touch(c, now);
    t.advance(now);
  }
  t.apply("bob", b, GetChildrenRequest{"/lock"}, "getChildren /lock");
  t.apply("bob", b, MultiRequest{{CheckRequest{"/lock/n-0000000001", Version{0}},
                                  SetDataRequest{"/lock", "owner=bob"}}},
          "multi [check own node, setData /lock]");
  t.apply("bob", b, DeleteRequest{"/lock/n-0000000001"}, "delete /lock/n-0000000001 (release)");
  t.apply("carol", c, DeleteRequest{"/lock/n-0000000002"}, "delete /lock/n-0000000002 (release)");

  for (const Outcome& o : t.server().reap(t.now() + 1)) {
    fmt::print("t={:>5}  container reaper: {} (zxid {:#x})\n", t.now() + 1, o.error, o.zxid.value);
    t.notify(o);
  }
  fmt::print("\n{} znodes, {} live sessions, {} watches, last zxid {:#x}\n",
             t.server().node_count(), t.server().sessions().size(), t.server().watch_count(),
             t.server().last_zxid().value);
  return 0;
}
