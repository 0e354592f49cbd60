// Differential property: random programs of requests, run against
// zksim::Server and against the independent TreeModel, must agree after
// every step on the Outcome (error, reply zxid, every response field, the
// notifications in order) and on the whole visible state (every node's data,
// Stat and ACL, children, sessions, ephemerals, watches, last zxid).
#include "tree_model.h"

#include "zksim/server.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace zksim::test {
namespace {

constexpr int kSlots = 3;            // session slots
constexpr int kMaxSteps = 150;       // per program
constexpr int kSessionTimeoutMs = 6000;

// --- the program -------------------------------------------------------

struct CloseSession {};
// Opens a new session in the lowest slot whose session is closed, if any
// (the step's own slot does not matter).
struct OpenSession {};
using Action = std::variant<Request, CloseSession, OpenSession>;

struct Step {
  int slot = 0;         // whose session sends it
  TimeMs advance = 0;   // simulated time that passes before it
  Action action;
};

struct Program {
  std::vector<Step> steps;
};

// --- printing ----------------------------------------------------------

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7F) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out + "\"";
}

std::string show_acl(const AclList& acl) {
  std::vector<std::string> parts;
  for (const Acl& a : acl) parts.push_back(fmt::format("{}:{}:{}", a.id.scheme, a.id.id, a.perms));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

std::string show_stat(const Stat& s) {
  return fmt::format(
      "{{czxid={} mzxid={} ctime={} mtime={} version={} cversion={} aversion={} "
      "ephemeralOwner={:#x} dataLength={} numChildren={} pzxid={}}}",
      s.czxid, s.mzxid, s.ctime, s.mtime, s.version, s.cversion, s.aversion,
      static_cast<std::uint64_t>(s.ephemeralOwner), s.dataLength, s.numChildren, s.pzxid);
}

std::string show_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> quoted;
  for (const std::string& p : paths) quoted.push_back(quote(p));
  return fmt::format("[{}]", fmt::join(quoted, ","));
}

std::string show_op(const MultiOp& op) {
  return std::visit(
      [](const auto& r) -> std::string {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, CreateRequest>) {
          return fmt::format("create({}, {}, {}, mode={}, ttl={})", quote(r.path), quote(r.data),
                             show_acl(r.acl), static_cast<int>(r.mode), r.ttl_ms);
        } else if constexpr (std::is_same_v<R, DeleteRequest>) {
          return fmt::format("delete({}, v={})", quote(r.path), r.version);
        } else if constexpr (std::is_same_v<R, SetDataRequest>) {
          return fmt::format("setData({}, {}, v={})", quote(r.path), quote(r.data), r.version);
        } else {
          return fmt::format("check({}, v={})", quote(r.path), r.version);
        }
      },
      op);
}

std::string show_request(const Request& request) {
  return std::visit(
      [](const auto& r) -> std::string {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_constructible_v<MultiOp, R>) {
          return show_op(MultiOp{r});
        } else if constexpr (std::is_same_v<R, ExistsRequest>) {
          return fmt::format("exists({}, watch={})", quote(r.path), r.watch);
        } else if constexpr (std::is_same_v<R, GetDataRequest>) {
          return fmt::format("getData({}, watch={})", quote(r.path), r.watch);
        } else if constexpr (std::is_same_v<R, GetChildrenRequest>) {
          return fmt::format("getChildren({}, watch={})", quote(r.path), r.watch);
        } else if constexpr (std::is_same_v<R, SyncRequest>) {
          return fmt::format("sync({})", quote(r.path));
        } else if constexpr (std::is_same_v<R, SetAclRequest>) {
          return fmt::format("setACL({}, {}, v={})", quote(r.path), show_acl(r.acl), r.version);
        } else if constexpr (std::is_same_v<R, MultiRequest>) {
          std::vector<std::string> ops;
          for (const MultiOp& op : r.ops) ops.push_back(show_op(op));
          return fmt::format("multi[{}]", fmt::join(ops, "; "));
        } else {
          return "<request outside the program alphabet>";
        }
      },
      request);
}

std::string show_step(const Step& s) {
  std::string what = std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, Request>) return show_request(a);
        if constexpr (std::is_same_v<A, CloseSession>) return "closeSession";
        if constexpr (std::is_same_v<A, OpenSession>) return "openSession";
      },
      s.action);
  return fmt::format("slot {} +{}ms {}", s.slot, s.advance, what);
}

void showValue(const Program& p, std::ostream& os) {
  os << p.steps.size() << " steps";
  for (std::size_t i = 0; i < p.steps.size(); ++i) os << "\n  #" << i << " " << show_step(p.steps[i]);
}

std::string show_result_value(const std::variant<std::monostate, CreateResponse, StatResponse>& v) {
  if (const auto* c = std::get_if<CreateResponse>(&v)) {
    return fmt::format("created {} {}", quote(c->path), show_stat(c->stat));
  }
  if (const auto* s = std::get_if<StatResponse>(&v)) return show_stat(s->stat);
  return "-";
}

// Every field of every response kind.
std::string show_response(const Response& response) {
  return std::visit(
      [](const auto& r) -> std::string {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, std::monostate>) {
          return "none";
        } else if constexpr (std::is_same_v<R, CreateResponse>) {
          return fmt::format("Create{{{} {}}}", quote(r.path), show_stat(r.stat));
        } else if constexpr (std::is_same_v<R, StatResponse>) {
          return fmt::format("Stat{}", show_stat(r.stat));
        } else if constexpr (std::is_same_v<R, DataResponse>) {
          return fmt::format("Data{{{} {}}}", quote(r.data), show_stat(r.stat));
        } else if constexpr (std::is_same_v<R, ChildrenResponse>) {
          return fmt::format("Children{{{} {}}}", show_paths(r.children), show_stat(r.stat));
        } else if constexpr (std::is_same_v<R, PathsResponse>) {
          return fmt::format("Paths{{{}}}", show_paths(r.paths));
        } else if constexpr (std::is_same_v<R, CountResponse>) {
          return fmt::format("Count{{{}}}", r.count);
        } else if constexpr (std::is_same_v<R, SyncResponse>) {
          return fmt::format("Sync{{{}}}", quote(r.path));
        } else if constexpr (std::is_same_v<R, AclResponse>) {
          return fmt::format("Acl{{{} {}}}", show_acl(r.acl), show_stat(r.stat));
        } else {
          std::vector<std::string> parts;
          for (const OpResult& o : r.results) {
            parts.push_back(fmt::format("{} {}", o.error, show_result_value(o.value)));
          }
          return fmt::format("Multi[{}]", fmt::join(parts, "; "));
        }
      },
      response);
}

std::string show_notifications(const std::vector<Notification>& ns) {
  std::vector<std::string> parts;
  for (const Notification& n : ns) {
    parts.push_back(fmt::format("{:#x} {} {} {}", static_cast<std::uint64_t>(n.session.value),
                                event_type_name(n.event.type), keeper_state_name(n.event.state),
                                quote(n.event.path)));
  }
  return fmt::format("[{}]", fmt::join(parts, "; "));
}

std::string show_node(const std::optional<NodeView>& n) {
  if (!n) return "absent";
  return fmt::format("{} data={} acl={} {}", quote(n->path), quote(n->data), show_acl(n->acl),
                     show_stat(n->stat));
}

std::string show_sessions(const std::vector<SessionId>& ids) {
  std::vector<std::string> parts;
  for (SessionId s : ids) parts.push_back(fmt::format("{:#x}", static_cast<std::uint64_t>(s.value)));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

// --- comparison --------------------------------------------------------

// Collects "what: server X, model Y" lines for the values that differ.
class Diff {
 public:
  template <class T>
  void expect(const std::string& what, const T& server, const T& model) {
    if (server != model) lines_.push_back(fmt::format("{}: server {}, model {}", what, server, model));
  }
  bool empty() const { return lines_.empty(); }
  std::string str() const { return fmt::format("{}", fmt::join(lines_, "\n    ")); }

 private:
  std::vector<std::string> lines_;
};

void compare_outcome(Diff& d, const Outcome& server, const Outcome& model) {
  d.expect("error", fmt::format("{}", server.error), fmt::format("{}", model.error));
  d.expect("reply zxid", server.zxid.value, model.zxid.value);
  d.expect("connection dropped", server.connection_dropped, model.connection_dropped);
  d.expect("response", show_response(server.response), show_response(model.response));
  d.expect("notifications", show_notifications(server.notifications),
           show_notifications(model.notifications));
}

// The whole visible state, through Server's ground-truth accessors.
void compare_state(Diff& d, const Server& server, const model::TreeModel& model) {
  d.expect("last zxid", server.last_zxid().value, model.last_zxid());
  d.expect("sessions", show_sessions(server.sessions()), show_sessions(model.sessions()));
  d.expect("node count", server.node_count(), model.paths().size());
  for (const std::string& path : model.paths()) {
    d.expect("node " + quote(path), show_node(server.node(path)), show_node(model.node(path)));
    d.expect("children of " + quote(path), show_paths(server.children(path)),
             show_paths(model.children(path)));
  }
  for (SessionId s : model.sessions()) {
    std::string who = show_sessions({s});
    d.expect("watches of " + who, show_paths(server.watches_of(s)), show_paths(model.watches_of(s)));
    d.expect("ephemerals of " + who, show_paths(server.ephemerals(s)),
             show_paths(model.ephemerals(s)));
  }
}

// --- running -----------------------------------------------------------

// A Server and a TreeModel driven in lockstep, with kSlots session slots.
class Lockstep {
 public:
  Lockstep() {
    for (int slot = 0; slot < kSlots; ++slot) open(slot, diff_);
  }

  // Runs one step on both sides; the differences, empty when they agree.
  Diff step(const Step& s) {
    Diff d;
    now_ += s.advance;
    SessionId session = slots_[static_cast<std::size_t>(s.slot)];
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, Request>) {
            compare_outcome(d, server_.apply(session, a, now_), model_.apply(session, a, now_));
          } else if constexpr (std::is_same_v<A, CloseSession>) {
            compare_outcome(d, server_.close_session(session, now_),
                            model_.close_session(session, now_));
          } else {
            reopen_first_closed(d);
          }
        },
        s.action);
    compare_state(d, server_, model_);
    return d;
  }

  const Diff& setup_diff() const { return diff_; }

 private:
  void reopen_first_closed(Diff& d) {
    for (int slot = 0; slot < kSlots; ++slot) {
      if (!server_.session_alive(slots_[static_cast<std::size_t>(slot)])) {
        open(slot, d);
        return;
      }
    }
  }

  void open(int slot, Diff& d) {
    SessionGrant g = server_.open_session(kSessionTimeoutMs, now_);
    SessionGrant m = model_.open_session(kSessionTimeoutMs, now_);
    d.expect("session id", g.id.value, m.id.value);
    d.expect("session timeout", g.timeout_ms, m.timeout_ms);
    d.expect("createSession zxid", g.zxid.value, m.zxid.value);
    slots_[static_cast<std::size_t>(slot)] = g.id;
  }

  Server server_;
  model::TreeModel model_;
  std::array<SessionId, kSlots> slots_{};
  TimeMs now_ = 1000;
  Diff diff_;
};

void check_program(const Program& program) {
  Lockstep lockstep;
  RC_ASSERT(lockstep.setup_diff().empty());
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    Diff d = lockstep.step(program.steps[i]);
    if (!d.empty()) {
      RC_FAIL(fmt::format("step #{} ({}) diverged:\n    {}", i, show_step(program.steps[i]),
                          d.str()));
    }
  }
}

// --- generators --------------------------------------------------------

// Valid paths that collide often, the sequential names the first creates
// under "/a/" and "/s" get, system paths, and invalid paths.
rc::Gen<std::string> gen_path() {
  using namespace std::string_literals;
  return rc::gen::weightedElement<std::string>({
      {10, "/a"}, {6, "/a/b"}, {6, "/b"}, {3, "/a/b/c"}, {3, "/b/a"}, {3, "/s"},
      {3, "/"}, {1, "/a/0000000000"}, {1, "/a/0000000001"}, {1, "/s0000000000"},
      {1, "/s0000000001"}, {1, "/zookeeper"}, {1, "/zookeeper/config"},
      {1, "/zookeeper/config/x"}, {1, "/zookeeper/quota/q"},
      {2, "/a/"}, {1, "a"}, {1, ""}, {1, "/a//b"}, {1, "/a/."}, {1, "/a\0b"s},
  });
}

rc::Gen<std::string> gen_data() { return rc::gen::element<std::string>("", "x", "hello"); }

rc::Gen<Version> gen_version() {
  return rc::gen::weightedElement<Version>(
      {{4, kAnyVersion}, {3, Version{0}}, {2, Version{1}}, {1, Version{2}}});
}

rc::Gen<bool> gen_watch() { return rc::gen::weightedElement<bool>({{2, true}, {1, false}}); }

AclList world(int perms) { return {Acl{perms, Id{"world", "anyone"}}}; }

// Mostly open; some lacking one permission; some invalid (empty, "auth"
// without an authenticated id); one with a duplicate entry.
rc::Gen<AclList> gen_acl() {
  return rc::gen::weightedElement<AclList>({
      {12, open_acl()},
      {1, read_acl()},
      {1, world(perms::kAll & ~perms::kCreate)},
      {1, world(perms::kAll & ~perms::kDelete)},
      {1, world(perms::kAll & ~perms::kRead)},
      {1, world(perms::kAll & ~perms::kWrite)},
      {1, world(perms::kAll & ~perms::kAdmin)},
      {1, AclList{}},
      {1, creator_all_acl()},
      {1, AclList{open_acl()[0], open_acl()[0]}},
  });
}

rc::Gen<CreateMode> gen_mode() {
  return rc::gen::weightedElement<CreateMode>({
      {5, CreateMode::Persistent},
      {3, CreateMode::Ephemeral},
      {2, CreateMode::PersistentSequential},
      {2, CreateMode::EphemeralSequential},
      {1, CreateMode::Container},
      {1, CreateMode::PersistentWithTtl},
      {1, CreateMode::PersistentSequentialWithTtl},
  });
}

// A TTL fitting the mode, or (when `wrong`) one that does not.
std::int64_t ttl_for(CreateMode mode, bool wrong) {
  if (is_ttl(mode)) return wrong ? 0 : 100;
  return wrong ? 100 : -1;
}

rc::Gen<CreateRequest> gen_create() {
  return rc::gen::apply(
      [](std::string path, std::string data, AclList acl, CreateMode mode, bool wrong_ttl) {
        return CreateRequest{std::move(path), std::move(data), std::move(acl), mode,
                             ttl_for(mode, wrong_ttl)};
      },
      gen_path(), gen_data(), gen_acl(), gen_mode(),
      rc::gen::weightedElement<bool>({{9, false}, {1, true}}));
}

rc::Gen<DeleteRequest> gen_delete() {
  return rc::gen::construct<DeleteRequest>(gen_path(), gen_version());
}
rc::Gen<SetDataRequest> gen_set_data() {
  return rc::gen::construct<SetDataRequest>(gen_path(), gen_data(), gen_version());
}
rc::Gen<CheckRequest> gen_check() {
  return rc::gen::construct<CheckRequest>(gen_path(), gen_version());
}
rc::Gen<SetAclRequest> gen_set_acl() {
  return rc::gen::construct<SetAclRequest>(gen_path(), gen_acl(), gen_version());
}
template <class R>
rc::Gen<R> gen_read() {
  return rc::gen::construct<R>(gen_path(), gen_watch());
}

template <class To, class From>
rc::Gen<To> as(rc::Gen<From> g) {
  return rc::gen::map(std::move(g), [](From f) { return To{std::move(f)}; });
}

rc::Gen<MultiOp> gen_multi_op() {
  return rc::gen::weightedOneOf<MultiOp>({
      {4, as<MultiOp>(gen_create())},
      {3, as<MultiOp>(gen_delete())},
      {2, as<MultiOp>(gen_set_data())},
      {1, as<MultiOp>(gen_check())},
  });
}

rc::Gen<MultiRequest> gen_multi() {
  auto ops = rc::gen::nonEmpty(rc::gen::container<std::vector<MultiOp>>(gen_multi_op()));
  return rc::gen::construct<MultiRequest>(rc::gen::resize(4, std::move(ops)));
}

// Relative frequencies of the step kinds.
struct Mix {
  std::size_t create, remove, set_data, check, exists, get_data, get_children, sync, set_acl,
      multi, close, open;
};

constexpr Mix kBalanced{6, 4, 3, 1, 4, 3, 4, 1, 1, 3, 1, 2};
constexpr Mix kMultiHeavy{2, 1, 1, 1, 2, 1, 2, 0, 0, 10, 1, 2};
constexpr Mix kSessionChurn{6, 2, 2, 0, 3, 2, 3, 0, 0, 2, 3, 4};

rc::Gen<Action> gen_action(const Mix& m) {
  auto req = [](auto g) { return as<Action>(as<Request>(std::move(g))); };
  return rc::gen::weightedOneOf<Action>({
      {m.create, req(gen_create())},
      {m.remove, req(gen_delete())},
      {m.set_data, req(gen_set_data())},
      {m.check, req(gen_check())},
      {m.exists, req(gen_read<ExistsRequest>())},
      {m.get_data, req(gen_read<GetDataRequest>())},
      {m.get_children, req(gen_read<GetChildrenRequest>())},
      {m.sync, req(rc::gen::construct<SyncRequest>(gen_path()))},
      {m.set_acl, req(gen_set_acl())},
      {m.multi, req(gen_multi())},
      {m.close, rc::gen::just<Action>(CloseSession{})},
      {m.open, rc::gen::just<Action>(OpenSession{})},
  });
}

rc::Gen<Step> gen_step(const Mix& m) {
  return rc::gen::construct<Step>(rc::gen::inRange(0, kSlots),
                                  rc::gen::element<TimeMs>(0, 1, 10, 1000), gen_action(m));
}

rc::Gen<Program> gen_program(const Mix& m) {
  auto steps = rc::gen::container<std::vector<Step>>(gen_step(m));
  return rc::gen::construct<Program>(rc::gen::resize(kMaxSteps, std::move(steps)));
}

// --- properties (100 programs each by default; RC_PARAMS overrides) ----

RC_GTEST_PROP(TreeModelProperty, ServerMatchesModel, ()) {
  check_program(*gen_program(kBalanced));
}

RC_GTEST_PROP(TreeModelProperty, ServerMatchesModelMultiHeavy, ()) {
  check_program(*gen_program(kMultiHeavy));
}

RC_GTEST_PROP(TreeModelProperty, ServerMatchesModelWithSessionChurn, ()) {
  check_program(*gen_program(kSessionChurn));
}

}  // namespace
}  // namespace zksim::test
