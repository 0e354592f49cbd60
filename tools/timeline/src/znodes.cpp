// Znode lifetimes from a trace. The trace records what clients sent and got,
// not the server's tree, so three things are inferred (and said so):
// - a sequential create's name: among the paths later events use that are
//   the requested path plus a ten-digit suffix, first used no earlier than
//   the create, the lowest one above the last suffix given in that directory
//   (when none is left in a directory where other creates were sequential,
//   the node is shown as the requested path and "?");
// - the end of an ephemeral node whose session ended: certain when some
//   client saw NodeDeleted at that transaction or ZNONODE afterwards; without
//   such news, a node that never had children is taken to have gone with it;
// - a create or delete applied while its reply was lost (the fault says so),
//   and a create that never got a reply at all when a later event names a
//   node it would have made.
#include "model.h"

#include "zksim/fault.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace zksim::timeline::detail {
namespace {

constexpr std::int32_t kCreate = 0, kDelete = 1;

bool sequential_of(std::string_view name, std::string_view prefix) {
  if (name.size() != prefix.size() + 10 || !name.starts_with(prefix)) return false;
  std::string_view suffix = name.substr(prefix.size());
  return std::all_of(suffix.begin() + 1, suffix.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         ((suffix[0] >= '0' && suffix[0] <= '9') || suffix[0] == '-');
}

std::string parent_of(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos || slash == 0 ? "/" : path.substr(0, slash));
}

struct Lifetimes {
  const std::vector<TraceEvent>& trace;
  std::map<std::string, TimeMs> first_seen;   // path -> when an event first named it
  std::map<std::int64_t, TimeMs> txn_time;    // zxid -> when the server applied it (first seen)
  // Per requested sequential path (filled when a create first asks for it):
  // the names it can still be given, by sequence number, then name, with
  // when an event first named them.
  using Names = std::map<std::pair<std::int64_t, std::string>, TimeMs>;
  std::map<std::string, Names> untaken;
  std::set<std::string> sequential_dirs;      // where some create's sequential name is known
  std::map<std::string, std::int64_t> last_suffix;  // directory -> the last sequence number given
  std::vector<Znode> nodes;
  std::vector<SessionId> session;             // per node: the creator's session
  std::map<std::string, std::size_t> alive;   // path -> node
  std::map<std::int64_t, std::set<std::size_t>> alive_of;  // session -> its nodes in `alive`
  // Nodes whose creator's session ended while they were there: the node
  // index -> when, unless later news says otherwise.
  std::map<std::size_t, TimeMs> orphaned;

  void seen(const std::string& path, TimeMs t) {
    auto [it, fresh] = first_seen.emplace(path, t);
    if (!fresh) it->second = std::min(it->second, t);
  }

  TimeMs when(std::int64_t zxid, TimeMs fallback) const {
    auto it = txn_time.find(zxid);
    return it == txn_time.end() ? fallback : std::min(it->second, fallback);
  }

  // The name a create of `requested` applied at `t` got: among the names
  // not given yet that events first named no earlier than `t`, the lowest
  // sequence number above the last one given in that directory, or else
  // the lowest (ties: the first name in byte order). "" if none.
  std::string name_for(const std::string& requested, TimeMs t) {
    auto [names, fresh] = untaken.try_emplace(requested);
    if (fresh) {
      for (auto it = first_seen.lower_bound(requested); it != first_seen.end() && it->first.starts_with(requested); ++it) {
        if (sequential_of(it->first, requested)) {
          names->second.emplace(std::pair(std::atoll(it->first.c_str() + requested.size()), it->first), it->second);
        }
      }
    }
    Names& left = names->second;
    const auto eligible = [&](Names::iterator from) {
      while (from != left.end() && from->second < t) ++from;
      return from;
    };
    const std::string dir = parent_of(requested);
    const auto last = last_suffix.find(dir);
    auto best = eligible(last == last_suffix.end() ? left.begin() : left.lower_bound({last->second + 1, std::string()}));
    if (best == left.end()) best = eligible(left.begin());
    if (best == left.end()) return {};
    last_suffix[dir] = best->first.first;
    std::string name = best->first.second;
    left.erase(best);
    return name;
  }

  void created(const TraceEvent& e, const std::string& how, bool unanswered = false) {
    const TimeMs t = unanswered ? e.time : when(e.zxid, e.time);
    std::string name = name_for(e.path, t);
    std::string note;
    if (unanswered && name.empty()) return;  // perhaps never applied
    if (!name.empty()) {
      note = " (its sequential name inferred from the paths later events use)";
    } else if (sequential_dirs.count(parent_of(e.path))) {
      name = e.path + "?";
      note = " (a sequential node whose name never appeared in the trace)";
    } else {
      name = e.path;
    }
    if (auto it = alive.find(name); it != alive.end()) end(it->second, t, "replaced in the trace by a create of the same name");
    const int client = e.client;
    alive[name] = nodes.size();
    alive_of[e.session.value].insert(nodes.size());
    session.push_back(e.session);
    const std::string zxid = unanswered ? std::string() : fmt::format("zxid {:#x}, ", e.zxid);
    nodes.push_back(Znode{name, client, t, -1,
                          fmt::format("{}: created by c{} at t={} ({}{}){}", name, client, t, zxid, how, note)});
  }

  void end(std::size_t i, TimeMs t, const std::string& how) {
    Znode& z = nodes[i];
    z.deleted = t;
    z.detail += fmt::format("; gone at t={}: {}", t, how);
    alive.erase(z.path);
    alive_of[session[i].value].erase(i);
    orphaned.erase(i);
  }

  void deleted(const std::string& path, TimeMs t, const std::string& how) {
    if (auto it = alive.find(path); it != alive.end()) end(it->second, t, how);
  }

  void session_ended(const TraceEvent& e) {
    const TimeMs t = when(e.zxid, e.time);
    for (std::size_t i : alive_of[e.session.value]) orphaned.emplace(i, t);
  }

  // What later events say of an orphaned node.
  void news(const TraceEvent& e) {
    auto it = alive.find(e.path);
    if (it == alive.end() || !orphaned.count(it->second)) return;
    const std::size_t i = it->second;
    const TimeMs t = orphaned[i];
    const auto err = static_cast<Error>(e.code);
    if (e.kind == TraceKind::Watch && static_cast<EventType>(e.code) == EventType::NodeDeleted) {
      end(i, when(e.zxid, e.time), fmt::format("its session ended (c{} saw NodeDeleted)", e.client));
    } else if (e.kind == TraceKind::Response && err == Error::NoNode && e.code2 != kCreate) {
      end(i, t, fmt::format("its session ended (ephemeral: c{} got ZNONODE at t={})", e.client, e.time));
    } else if (e.kind == TraceKind::Response && err == Error::Ok && e.code2 != kCreate) {
      orphaned.erase(i);  // still there: not ephemeral
    }
  }

  void run() {
    for (const TraceEvent& e : trace) {
      if (!e.path.empty()) seen(e.path, e.time);
      if (e.zxid != 0 && e.kind != TraceKind::State && e.kind != TraceKind::Request) txn_time.emplace(e.zxid, e.time);
    }
    std::set<std::string> requested;
    for (const TraceEvent& e : trace) {
      if (e.kind != TraceKind::Request || e.code != kCreate || !requested.insert(e.path).second) continue;
      for (auto it = first_seen.lower_bound(e.path); it != first_seen.end() && it->first.starts_with(e.path); ++it) {
        if (sequential_of(it->first, e.path)) {
          sequential_dirs.insert(parent_of(e.path));
          break;
        }
      }
    }
    // Creates that never got an answer (the client crashed, say) may still
    // have been applied: they are shown when a later event names the node.
    std::set<std::size_t> unanswered;
    std::map<std::pair<int, std::uint32_t>, std::size_t> asked;  // (client, xid) -> request
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceEvent& e = trace[i];
      if (e.kind == TraceKind::Request && e.code == kCreate) {
        asked[{e.client, e.xid}] = i;
        unanswered.insert(i);
      } else if ((e.kind == TraceKind::Response || e.kind == TraceKind::Fault) && asked.count({e.client, e.xid})) {
        unanswered.erase(asked[{e.client, e.xid}]);
        asked.erase({e.client, e.xid});
      }
    }
    // The request a lost reply answered: (client, xid) -> kind.
    std::map<std::pair<int, std::uint32_t>, std::int32_t> sent;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceEvent& e = trace[i];
      news(e);
      if (unanswered.count(i)) created(e, "its reply never came: shown from the request", true);
      if (e.kind == TraceKind::Request) sent[{e.client, e.xid}] = e.code;
      const bool applied_ok = e.kind == TraceKind::Fault && e.code == static_cast<std::int32_t>(FaultKind::DropAfterApply) &&
                              e.detail.starts_with("applied ZOK");
      const std::int32_t kind = e.kind == TraceKind::Response ? e.code2
                                : applied_ok && sent.count({e.client, e.xid}) ? sent[{e.client, e.xid}]
                                                                              : -2;
      const bool ok = applied_ok || (e.kind == TraceKind::Response && e.code == 0);
      if (ok && kind == kCreate) created(e, applied_ok ? "reply lost" : "create ok");
      if (ok && kind == kDelete) {
        deleted(e.path, when(e.zxid, e.time),
                fmt::format("deleted by c{}{}", e.client, applied_ok ? " (reply lost)" : ""));
      }
      if (e.kind == TraceKind::Watch && static_cast<EventType>(e.code) == EventType::NodeDeleted) {
        deleted(e.path, when(e.zxid, e.time), fmt::format("deleted (c{} saw NodeDeleted)", e.client));
      }
      if (e.kind == TraceKind::Server && (e.code == static_cast<std::int32_t>(ServerAction::SessionExpired) ||
                                          e.code == static_cast<std::int32_t>(ServerAction::SessionClosed))) {
        session_ended(e);
      }
    }
    // No news: leaves (no node was ever made under them) went with their
    // session (ephemeral, inferred).
    std::set<std::string> paths;
    for (const Znode& z : nodes) paths.insert(z.path);
    const auto has_children = [&](const std::string& path) {
      auto it = paths.lower_bound(path + "/");
      return it != paths.end() && it->starts_with(path + "/");
    };
    for (const auto& [i, t] : std::map<std::size_t, TimeMs>(orphaned)) {
      if (!has_children(nodes[i].path)) end(i, t, "its session ended (ephemeral, inferred)");
    }
  }
};

}  // namespace

std::vector<Znode> znode_lifetimes(const std::vector<TraceEvent>& trace,
                                   const std::vector<std::pair<std::string, TimeMs>>& values) {
  Lifetimes l{trace};
  for (const auto& [path, t] : values) l.seen(path, t);
  l.run();
  std::vector<Znode> out = std::move(l.nodes);
  std::stable_sort(out.begin(), out.end(), [](const Znode& a, const Znode& b) { return a.created < b.created; });
  return out;
}

}  // namespace zksim::timeline::detail
