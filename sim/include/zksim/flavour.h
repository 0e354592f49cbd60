// Client flavours: which real client library a simulated client behaves
// like. A flavour is a set of rules the simulated client library follows
// where the libraries differ; everything else is ZooKeeper's C client (3.8).
// The sources of each rule are in docs/flavours.md.
//
//   Client& zk = world.open("c0", 2000, -1, Flavour::Curator);
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zksim {

enum class Flavour : std::uint8_t { C, Curator, Kazoo };
inline constexpr int kFlavours = 3;

struct FlavourRules {
  std::string_view name;             // "c", "curator", "kazoo"
  std::string_view summary;          // one line for `zksim list`
  // After the session expired, the same client object opens a new session
  // (state Expired, then Connecting with session id 0) and recipes carry on
  // with it; otherwise the handle is final (every call: InvalidState).
  bool new_session_after_expiry;
  // On reconnecting within a session, the library sends setWatches, so the
  // server re-arms the watches set on the old connection and every watcher
  // stays registered (and hears every session event). Without it, when the
  // connection drops each watcher is told Disconnected once and forgotten:
  // its watch is gone for good.
  bool set_watches_on_reconnect;
  // Session listeners run on a thread of their own: each session event
  // reaches them as a separate step, a drawn moment later, interleaved with
  // the event thread's watch events and replies. Otherwise they run at the
  // state change, before the watchers hear of it.
  bool listeners_on_own_thread;
  // The library declares the session lost by itself once it has been
  // disconnected for the negotiated session timeout, without hearing from
  // the server; the server may still hold the session (and its ephemerals)
  // for a while after that.
  bool lost_after_suspended_timeout;
  // Recipe code runs on the caller's thread and blocks on its calls, as
  // Curator's and kazoo's synchronous recipes do: the I/O thread hands a
  // reply to it, and a watcher's wake-up reaches it, a drawn moment later,
  // while the library's other threads go on. Otherwise the recipe runs as
  // the completion callback (the C client's asynchronous API), at once.
  bool recipes_on_caller_thread;
  // Watchers (watch events and the session events they hear) run on an
  // event thread of their own, in arrival order, a drawn moment after the
  // I/O thread received them; the library has already taken the watch out
  // of its table by then. Otherwise they run at arrival.
  bool watchers_on_event_thread;
  // Where the completions of the asynchronous API (Client::in_background)
  // run: at the reply, on the client's one thread (the C client's
  // completion thread); as steps of the event thread, in arrival order with
  // the watchers (the Java client's EventThread, which runs Curator's
  // background callbacks); or as steps of a completion thread of their own,
  // in reply order but in no order with the watchers (kazoo's completion
  // worker). A thread's step comes a drawn moment after the reply.
  enum class Completions : std::uint8_t { AtReply, OnEventThread, OnOwnThread };
  Completions completions;
  // The names its listeners know the states by: disconnected, connected
  // again, lost (Curator: SUSPENDED, RECONNECTED, LOST).
  std::array<std::string_view, 3> state_names;
};

const FlavourRules& rules_of(Flavour f);
std::string_view flavour_name(Flavour f);
std::optional<Flavour> flavour_named(std::string_view name);

}  // namespace zksim
