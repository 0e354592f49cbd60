// count_probes: one pass over a run's trace. Almost every event is a
// request or a reply that went as planned; the loop decides that with a few
// branch-free comparisons and moves on. Only the rare events (errors,
// faults, state changes, the server's own actions, and watch events once a
// reconnect or an expiry happened) get a closer look; the History is read
// afterwards, and its beliefs only if there was an expiry or a crash.
#include "zksim/scenarios/probes.h"

#include "probe_ids.h"
#include "zksim/request.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdlib>

namespace zksim::scenarios {
namespace {

using namespace detail;

constexpr std::int32_t kCreate = request_kind<CreateRequest>;
constexpr std::int32_t kDelete = request_kind<DeleteRequest>;
constexpr std::int32_t kExists = request_kind<ExistsRequest>;
constexpr std::int32_t kGetData = request_kind<GetDataRequest>;

template <class E>
constexpr std::int32_t code(E e) {
  return static_cast<std::int32_t>(e);
}

// What the pass remembers about a client. Paths point into the trace.
struct ClientState {
  SessionId session;
  bool was_connected = false;
  // The highest zxid in the trace when the client last reconnected. Every
  // change committed later has a higher zxid, so a watch event with a zxid
  // no higher is for a change committed while it was disconnected.
  std::int64_t reconnect_floor = -1;
  std::uint32_t applied_lost_xid = 0;      // a request applied, its reply lost
  const std::string* applied_lost_path = nullptr;
  std::uint32_t not_applied_xid = 0;       // a request lost before it was applied
  const std::string* lost_create = nullptr;  // a lost create's prefix, until found again
  TimeMs pause_from = -1, pause_to = -1;
  bool pause_expired = false;
};

struct Moment {
  int client = -1;
  TimeMs time = 0;
  std::int64_t zxid = 0;
};

struct TimedOut {
  int client = -1;
  TimeMs from = 0, to = 0;
  bool withdrew = false;
};

// A node name with ZooKeeper's sequential suffix ("%010d": at least nine
// trailing digits, whatever the sign).
bool sequential(const std::string& path) {
  if (path.size() < 11) return false;
  for (std::size_t i = path.size() - 9; i < path.size(); ++i) {
    if (path[i] < '0' || path[i] > '9') return false;
  }
  return true;
}

class Pass {
 public:
  Pass(std::span<const TraceEvent> trace, const History& history) : trace_(trace), history_(history) {
    for (const Op& op : history.ops()) {
      if (op.outcome != Outcome::Fail || !op.f.starts_with("acquire")) continue;
      if (op.error == Error::OperationTimeout) timed_out_.push_back(TimedOut{op.client, op.invoked, op.completed});
      if (op.error == Error::SessionExpired) ++n_[kContenderSessionExpired];
    }
    update_looked_at();
  }

  std::array<int, kProbes> run() {
    std::int64_t top_zxid = 0;
    const TraceEvent* events = trace_.data();
    for (std::size_t i = 0, end = trace_.size(); i < end; ++i) {
      const TraceEvent& e = events[i];
      top_zxid = std::max(top_zxid, e.zxid);
      // Branch-free: a reply with an error, or a kind looked at now.
      const auto kind = static_cast<unsigned>(e.kind);
      const bool look = ((looked_at_ >> (kind & 31U)) & 1U) |
                        ((kind == static_cast<unsigned>(TraceKind::Response)) & (e.code != 0));
      if (look) closer_look(i, top_zxid);
    }
    for (const TimedOut& t : timed_out_) n_[kTimeoutWithdrewNode] += t.withdrew;
    count_history();
    return n_;
  }

 private:
  static constexpr unsigned bit(TraceKind k) { return 1U << static_cast<unsigned>(k); }

  // The kinds every event of which gets a closer look: the rare ones;
  // successful replies too while a lost create waits to be found or an
  // acquire timed out (its withdrawal is a delete); watch events once a
  // reconnect or an expiry happened.
  void update_looked_at() {
    looked_at_ = bit(TraceKind::State) | bit(TraceKind::Fault) | bit(TraceKind::Server);
    if (lost_creates_ > 0 || !timed_out_.empty()) looked_at_ |= bit(TraceKind::Response);
    if (watch_events_) looked_at_ |= bit(TraceKind::Watch);
  }

  ClientState& client(std::int32_t id) {
    if (static_cast<std::size_t>(id) >= clients_.size()) clients_.resize(static_cast<std::size_t>(id) + 1);
    return clients_[static_cast<std::size_t>(id)];
  }

  void closer_look(std::size_t i, std::int64_t top_zxid) {
    const TraceEvent& e = trace_[i];
    if (e.client < 0) {
      if (e.kind == TraceKind::Server && e.code == code(ServerAction::SessionExpired)) expired(e);
      return;
    }
    ClientState& c = client(e.client);
    switch (e.kind) {
      case TraceKind::Response:
        reply(i, c);
        break;
      case TraceKind::Watch:
        // A missed watch fired on reconnect carries the server's zxid at
        // that time, not the deletion's: it names no expiry.
        if (e.zxid <= c.reconnect_floor) {
          ++n_[kReconnectFiredMissedWatch];
        } else if (e.code == code(EventType::NodeDeleted) &&
                   std::any_of(expiries_.begin(), expiries_.end(),
                               [&](const Moment& x) { return x.zxid == e.zxid; })) {
          ++n_[kWatchFiredByExpiry];
        }
        break;
      case TraceKind::State:
        if (e.code != code(SessionState::Connected)) break;
        if (c.was_connected) {
          c.reconnect_floor = top_zxid;
          watch_events_ = true;
          update_looked_at();
        }
        c.was_connected = true;
        c.session = e.session;
        break;
      case TraceKind::Fault:
        fault(e, c);
        break;
      default:
        break;
    }
  }

  void expired(const TraceEvent& e) {
    auto owner = std::find_if(clients_.begin(), clients_.end(),
                              [&](const ClientState& c) { return c.session == e.session; });
    if (owner == clients_.end()) return;  // never connected: nothing it could hold
    expiries_.push_back(Moment{static_cast<int>(owner - clients_.begin()), e.time, e.zxid});
    watch_events_ = true;
    update_looked_at();
    if (!owner->pause_expired && owner->pause_from <= e.time && e.time <= owner->pause_to) {
      owner->pause_expired = true;
      ++n_[kPausedPastSessionTimeout];
    }
  }

  void fault(const TraceEvent& e, ClientState& c) {
    switch (static_cast<FaultKind>(e.code)) {
      case FaultKind::DropAfterApply:
        // A request's drop carries its xid (0: a connection broken at a
        // time); the world writes "applied <error>, reply lost".
        if (e.xid != 0 && e.detail.starts_with("applied ZOK")) {
          c.applied_lost_xid = e.xid;
          c.applied_lost_path = &e.path;
        }
        break;
      case FaultKind::DropBeforeApply:
        if (e.xid != 0) c.not_applied_xid = e.xid;
        break;
      case FaultKind::Pause:
        c.pause_from = e.time;
        c.pause_to = e.time + std::atoll(e.detail.c_str());  // the world writes "<ms> ms"
        c.pause_expired = false;
        break;
      case FaultKind::Crash:
        crashes_.push_back(Moment{e.client, e.time, e.zxid});
        break;
      default:
        break;
    }
  }

  void reply(std::size_t i, ClientState& c) {
    const TraceEvent& e = trace_[i];
    if (e.code == code(Error::NoNode) && (e.code2 == kExists || e.code2 == kGetData) &&
        sequential(e.path) && !own_node(i)) {
      ++n_[kPredecessorGoneBeforeWatch];
    }
    // The dropped request's ConnectionLoss names its kind.
    if (e.code == code(Error::ConnectionLoss) && e.xid != 0) {
      if (e.xid == c.applied_lost_xid) {
        c.applied_lost_xid = 0;
        if (e.code2 == kCreate) {
          ++n_[kCreateAppliedReplyLost];
          if (!c.lost_create) ++lost_creates_;
          c.lost_create = c.applied_lost_path;
          update_looked_at();
        }
        if (e.code2 == kDelete) ++n_[kDeleteAppliedReplyLost];
      }
      if (e.xid == c.not_applied_xid) {
        c.not_applied_xid = 0;
        if (e.code2 == kCreate) ++n_[kCreateNotApplied];
      }
    }
    if (c.lost_create && e.code2 == kExists && e.code == code(Error::Ok) &&
        e.path.starts_with(*c.lost_create)) {
      ++n_[kLostCreateFoundAgain];
      c.lost_create = nullptr;
      --lost_creates_;
      update_looked_at();
    }
    if (e.code2 == kDelete && (e.code == code(Error::Ok) || e.code == code(Error::NoNode))) {
      for (TimedOut& t : timed_out_) {
        if (t.client == e.client && t.from <= e.time && e.time <= t.to) t.withdrew = true;
      }
    }
  }

  // Whether the reply at `i` is about the client's own node: its path is
  // the path the client's latest create asked for (the node's prefix) and a
  // sequential suffix. Looked up backwards, as this is rare.
  bool own_node(std::size_t i) const {
    const TraceEvent& e = trace_[i];
    for (std::size_t j = i; j-- > 0;) {
      const TraceEvent& r = trace_[j];
      if (r.kind == TraceKind::Request && r.client == e.client && r.code == kCreate) {
        return e.path.starts_with(r.path) && e.path.size() <= r.path.size() + 11;
      }
    }
    return false;
  }

  // Every belief of every acquire/release pair the lock-like workloads record.
  std::vector<Belief> all_beliefs() const {
    std::vector<Belief> out = beliefs(history_, "acquire", "release");
    for (const char* side : {"read", "write"}) {
      auto more = beliefs(history_, fmt::format("acquire-{}", side), fmt::format("release-{}", side));
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }

  // The History's part: holders' notes, and the beliefs around the expiries
  // and crashes the trace showed.
  void count_history() {
    for (const Note& note : history_.notes()) {
      if (note.what == "reconnected") ++n_[kHolderReconnected];
      if (note.what == "lost") ++n_[kHolderToldLost];
    }
    if (expiries_.empty() && crashes_.empty()) return;
    const std::vector<Belief> all = all_beliefs();
    for (const Moment& x : expiries_) {
      // The belief must outlast the expiry: one that ended at that instant
      // ended with news of it or by the client's own doing.
      auto b = std::find_if(all.begin(), all.end(), [&](const Belief& b) {
        return b.client == x.client && b.from <= x.time && (b.to < 0 || x.time < b.to);
      });
      if (b == all.end()) continue;
      ++n_[kHolderSessionExpired];
      if (std::any_of(all.begin(), all.end(), [&](const Belief& g) {
            return g.client != x.client && g.from > x.time && (b->to < 0 || g.from < b->to);
          })) {
        ++n_[kGrantedBeforeExpiredHolderKnew];
      }
    }
    for (const Belief& b : all) {
      if (std::any_of(expiries_.begin(), expiries_.end(),
                      [&](const Moment& x) { return x.client == b.client && x.time < b.from; })) {
        ++n_[kGrantedAfterSessionExpired];
      }
    }
    for (const Moment& c : crashes_) {
      // A crash note ends the belief at the crash itself.
      if (std::any_of(all.begin(), all.end(), [&](const Belief& b) {
            return b.client == c.client && b.from <= c.time && (b.to < 0 || c.time <= b.to);
          })) {
        ++n_[kCrashedHolder];
      }
    }
  }

  std::span<const TraceEvent> trace_;
  const History& history_;
  std::array<int, kProbes> n_{};
  std::vector<ClientState> clients_;
  std::vector<Moment> expiries_, crashes_;
  std::vector<TimedOut> timed_out_;
  int lost_creates_ = 0;        // clients with a lost create not yet found again
  bool watch_events_ = false;   // a reconnect or an expiry happened: watch events matter
  unsigned looked_at_ = 0;      // bit per TraceKind, see update_looked_at
};

}  // namespace

std::map<std::string, int> count_probes(std::span<const TraceEvent> trace, const History& history) {
  const std::array<int, kProbes> n = Pass(trace, history).run();
  const auto& table = probe_table();
  assert(table.size() == kProbes);
  std::map<std::string, int> out;
  for (int p = 0; p < kProbes; ++p) {
    if (n[p] > 0) out.emplace(table[static_cast<std::size_t>(p)].name, n[p]);
  }
  return out;
}

}  // namespace zksim::scenarios
