// Checkers: exact properties of a run, read from its History (and, where
// named, the server's ground truth). Each returns the violations it found,
// earliest first; none means the property holds. A Violation names the
// property, the clients involved and when it happened.
//
// Belief. A client believes it holds (a lock, a lease, leadership) from the
// ok of its acquire until it invokes the release, or is told "suspended" or
// "lost", or "crashed" — whichever is first. Reentrant acquires nest. A
// correct recipe cannot do better than this: between the server expiring a
// holder and the holder hearing of it, the next contender may be granted.
#pragma once

#include "zksim/scenarios/history.h"
#include "zksim/scenarios/property.h"
#include "zksim/violation.h"
#include "zksim/zk_trace.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zksim::scenarios {

using zksim::Violation;

// One client's belief that it holds, [from, to); to = -1: until the end.
struct Belief {
  int client = -1;
  TimeMs from = 0, to = -1;
  std::int64_t fence = 0;
  std::string kind;          // the acquire's f, e.g. "acquire-read"
};

// The beliefs of `acquire` (ok) ended by `release` (invoked) and by notes.
std::vector<Belief> beliefs(const History& h, const std::string& acquire, const std::string& release);

// A stretch of time in which a client could not act on, or could not have
// known better than, its belief: its process was paused, or the server had
// already expired its session and its library had not heard yet. Nothing a
// recipe does can close that gap (fencing exists for it); checkers of
// belief leave these stretches out.
struct Window {
  int client = -1;
  TimeMs from = 0, to = 0;  // [from, to)
};

// `b` with the windows of each belief's client cut out (a belief may split).
std::vector<Belief> outside(const std::vector<Belief>& b, const std::vector<Window>& excused);

// What a caller that heeds its library's connection news (a recipe of
// Contract::Listener, recipe.h: Curator's ConnectionStateListener, kazoo's
// listener) counts on. `windows`: the stretches in which it counts on no
// hold, from "suspended" until "reconnected" or "lost", and from "lost"
// until it has released every hold it had then (a reentrant grant inside
// one is no new hold). `granted_while_suspended`: grants of a new hold that
// returned while suspended; such a hold counts from "reconnected", as the
// library's documentation tells its users, and is no violation.
struct ListenerView {
  std::vector<Window> windows;
  int granted_while_suspended = 0;
};
// `kinds`: each kind of hold as its (acquire, release) pair.
ListenerView listener_view(const History& h, const std::vector<std::pair<std::string, std::string>>& kinds);

// At most `limit` beliefs at any instant (1: mutual exclusion; N: a
// semaphore; 1 for "campaign": at most one leader). Reported as `property`.
std::vector<Violation> check_at_most(const std::vector<Belief>& b, int limit, const std::string& property);

// Read/write exclusion: no write belief overlaps any other belief.
std::vector<Violation> check_read_write(const std::vector<Belief>& reads,
                                        const std::vector<Belief>& writes);

// A grant as the server's nodes stood at the instant the client was told:
// whether its node still existed, and how many conflicting contenders
// (any, for an exclusive grant; writers, for a read grant) the server had
// created before it.
struct ServerGrant {
  int client = -1;
  TimeMs time = 0;
  std::string node;
  bool exists = false;
  int ahead = 0;
};

// Mutual exclusion as the server's nodes say it: every granted node exists
// and has fewer than `limit` conflicting contenders before it, unless the
// grant falls in one of its client's excused windows.
// Reported as "server-exclusion".
std::vector<Violation> check_server_grants(const std::vector<ServerGrant>& grants, int limit,
                                           const std::vector<Window>& excused);

// FIFO fairness: grants (ok acquires) in completion order carry increasing
// fences (the contender nodes' creation order). A grant inside its client's
// excused window is left out: its node may already be gone on the server.
std::vector<Violation> check_fifo_grants(const History& h, const std::string& acquire,
                                         const std::vector<Window>& excused = {});

// Liveness at quiescence: no call still pending when the run ended after
// faults stopped (a waiter left waiting), among calls named in `fs`. The
// calls of a client noted "crashed" vanished with it and do not count.
std::vector<Violation> check_no_pending(const History& h, const std::vector<std::string>& fs);

// Progress (property "progress"), judged only on runs in which no fault
// struck: every message then arrives within a few milliseconds and no
// session ends, so a correct recipe answers each call within a few round
// trips of the moment it could. Failing or timing out is a legal outcome of
// a call, so without these rules a recipe that never grants, never takes or
// never lets anyone in would pass every other property. Each rule is exact
// for such runs; a run with faults is not judged (a lost reply, a pause or
// an expiry may delay any call for as long as a session lasts).
//
// Every call named in `fs` that ended, ended ok: for calls made without a
// timeout (an acquire waits as long as it takes, so it is granted).
std::vector<Violation> check_all_ok(const History& h, const std::vector<std::string>& fs);

// In a run without faults, a leader that asks who leads is named: every
// "leader" call that ended ok, which the workload makes only while its
// client leads, returned "c<client>". Reported as "one-leader" (the
// election names one leader, and it is the one that believes it leads).
std::vector<Violation> check_leader_named(const History& h);

// No "take" waits `within_ms` while an item nobody has taken is queued:
// for a take X that ended and an item I whose "put" ended ok at p, with
// s = max(X invoked, p), neither X nor any other take ended ok with I by
// s + within_ms while X was still waiting. (A locking queue's take of I
// ending ok means I was claimed; an unclaimed item is free to take.) An
// item given back ("release" ended ok at r) is free again: the same holds
// with s = max(X invoked, r) and the takes of I that ended after the
// release was invoked.
std::vector<Violation> check_prompt_takes(const History& h, TimeMs within_ms);

// Double barrier, per round (the ops' value): the first "enter" to end
// without ok must not end `within_ms` or more after every one of the
// `members` members had invoked its enter. (Until one gives up, the last
// to create its node sees them all and creates "ready", which wakes the
// others at once.)
std::vector<Violation> check_prompt_enters(const History& h, int members, TimeMs within_ms);

// The recipe's own belief after a loss (property "holds-after-loss"). The
// workload asks its recipe whether it still holds (holds(), holds_read(),
// holds_write(), held() > 0, is_leader()) while it works, and at the
// instant the recipe tells it "lost"; each yes is a note "holds". Once the
// recipe told a client "lost", it must not say "holds" again until that
// client invokes one of `acquires` (it may be granted anew, e.g. after a
// Curator or kazoo client opened a new session): the session that held is
// gone, and a holder trusting a yes would work unprotected.
std::vector<Violation> check_holds_after_loss(const History& h, const std::vector<std::string>& acquires);

// What an acquire's SessionExpired tells (property "honest-expiry"): that
// the client's session expired during the acquire or during the hold it
// extends. So an acquire failing with it needs an expiry, in `expiries`
// (client -> times its session expired, as the server or its library
// declared), since the client last held nothing: since the release that
// ended its last hold, where a hold is the acquires of one side
// ("acquire", "acquire-read", ...) nested, ended by as many releases or,
// once the recipe told "lost", by one. A recipe still counting a lost hold
// after that release refuses every later acquire with it. And the other
// way: an acquire during which its session expired does not fail with
// NoNode (which says another client deleted its node; in the workloads
// none deletes another's).
std::vector<Violation> check_honest_expiry(const History& h, const std::map<int, std::vector<TimeMs>>& expiries);

// Fencing: a protected counter that holders increment (read, then write
// with their fence); it refuses a write whose fence is older than the last
// it accepted. Lost updates (accepted increments beyond the final value)
// mean two holders interleaved with fences it could not tell apart.
std::vector<Violation> check_fenced_counter(int accepted_increments, int final_value);

// The change that woke the most waiters, as the runner counts it from the
// trace: watch events one transaction on one path delivered, when the
// first arrived, and to which clients (each once).
struct Wakeups {
  int count = 0;
  TimeMs time = 0;
  std::string path;
  std::vector<int> clients;
  // Why each of `clients` was watching, in their order (empty: not known).
  std::vector<std::string> causes;
};

// Why each client of `w` was watching its path, for a herd-effect finding:
// the last read it sent on that path before the change (what set the
// watch) and the acquire (a call named "acquire...") it was sent in,
// either still waiting at the change, or over by then: a watch an earlier
// attempt left behind, which a careful recipe removes.
std::vector<std::string> wakeup_causes(const Wakeups& w, const Trace& trace, const History& history);

// Herd effect: wake-ups per release; an exclusive lock allows at most one.
std::vector<Violation> check_herd(const Wakeups& worst, int allowed);

// One change's wake-ups in a shared/exclusive (read/write) lock.
struct SharedWakeups {
  TimeMs time = 0;
  std::string path;
  bool reader_node = false;         // the changed node was a reader's
  std::vector<int> writers, readers;  // the waiters it woke, by role
};
// Herd effect for shared/exclusive locks: a change that wakes more than one
// writer (one at most can be granted), or a reader's change that wakes a
// reader (a reader waits only for writers, so a reader's leaving never
// grants it). A writer's release that wakes every reader behind it is fine,
// and so is a writer woken by its predecessor's change, even when an older
// reader still holds (no single watch can wait for the last of several).
std::vector<Violation> check_shared_herd(const std::vector<SharedWakeups>& changes);

// Wake-ups without progress: a metric, reported and never judged. A watch
// event (a node or child change) delivered to a client while one of its
// calls was in progress (invoked by then, not yet ended) is a wake-up of
// that call; the wake-up made progress if the call ended ok no later than
// the client's next watch event, and did not if the call was woken again
// first (it waited again), failed, timed out, or never ended. Events
// delivered to a client in no call (a watch left over) are not wake-ups.
struct Delivery {
  int client = -1;
  TimeMs time = 0;
};
struct WakeupTally {
  int wakeups = 0;
  int without_progress = 0;
};
// REQUIRES: `deliveries` in the order they were delivered.
WakeupTally count_wakeups(const History& h, const std::vector<Delivery>& deliveries);

// Progress of wake-ups (property "progress"): every wake-up, as
// count_wakeups defines it, of the clients in `deliveries` made progress.
// For runs without faults and without timeouts of recipes in which a
// waiter watches only a node that goes when its turn has come: an
// exclusive lock's (or an election's) predecessor, which leaves only by
// its release, after its own grant; a read/write lock reader's nearest
// writer ahead, which is granted (and leaves) only after the writers
// before it. One violation per client, at its first wake-up without
// progress. REQUIRES: `deliveries` in the order they were delivered.
std::vector<Violation> check_wakeups_progress(const History& h, const std::vector<Delivery>& deliveries);

// How a queue delivers its items.
enum class QueueDelivery : std::uint8_t {
  ExactlyOnce,  // Queue, by default: every item put is taken once
  AtMostOnce,   // Queue with RecipeTraits::at_most_once: an item may be lost in transit
  AtLeastOnce,  // LockingQueue: an item returns until it is acknowledged
};

// One session of a client: when the client first used it, and when the
// server expired it (never: INT64_MAX). A client's sessions, in order.
struct SessionSpan {
  TimeMs opened = 0;
  TimeMs expired = INT64_MAX;
};
using SessionSpans = std::map<int, std::vector<SessionSpan>>;

// Queue, over "put" and "take" ops whose value is the item (values are
// unique) and the values still queued at the end (`left`).
//
// A take whose outcome is unknown, and which does not name its item, is
// unresolved: it may have removed any one item (a take ending in info, or
// never ending because its client crashed), or at least once (any take
// that did not end ok) claimed any one item until it ended. A take ending
// in info that names its item may have removed that item. At least once,
// an ok take during which its client's session expired (a note "expired"),
// or which its client went on with in a new session (from `sessions`), may
// have claimed another item in the old one, until that expired. A take
// that failed with SessionExpired may have ended in a new session its
// library opened (Curator, kazoo): a claim it made stands until the server
// expires the session it was made in, which may be any the client had
// while the take ran (from `sessions` when given, else the client's first
// expiry after the take began).
//
// - no-duplicates (not at least once): no value taken twice, or taken and
//   still queued, or queued twice;
// - no-phantoms: every value whose take or queue was seen was put (ok, in
//   info, or by a client that crashed during the put);
// - no-loss: every value whose put ended ok is taken or queued. At most
//   once, an item a take may have removed unseen is lost in transit, not
//   judged (as many missing items as unresolved takes, and those a take in
//   info names), and `*lost_in_transit` counts them; exactly once, it is
//   lost;
// - fifo: when take(b) ended, no older item (its put ended before b's
//   began) was still queued: neither taken by a take invoked by then nor
//   possibly held by an unresolved take; older items left over beyond the
//   unresolved takes at that moment are out of order.
std::vector<Violation> check_queue(const History& h, const std::vector<std::string>& left, QueueDelivery delivery,
                                   const SessionSpans& sessions = {}, int* lost_in_transit = nullptr);

// At-least-once queue (property "claim-exclusion"): an item is held by one
// consumer at a time. A consumer holds the item its "take" names from the
// take's ok until the first of: it invokes "ack" or "release" (gives the
// item back) of that item, the server
// expires one of its sessions (`expired`: client -> times; the claim goes
// with the session, and another consumer may rightly take the item before
// this one hears), its note "crashed", the end of the run. An expiry or a
// crash after the take was invoked ends the hold even if it came before
// the take's ok (the reply was on its way): the hold is then empty.
std::vector<Violation> check_exclusive_claims(const History& h, const std::map<int, std::vector<TimeMs>>& expired);

// Double barrier, per round (the ops' value names the round): no "enter"
// ok before `members` enters were invoked; no "leave" ok before every
// member that entered invoked leave or ended its session (a note "crashed"
// or "expired": its node went with the session).
std::vector<Violation> check_double_barrier(const History& h, int members);

// Barrier (property "barrier-wait"): a "wait" on barrier v (the op's value)
// invoked after a "raise" of v ended ok returns ok only after a "lower" of
// v was invoked, after that raise began: nobody passes a raised barrier.
std::vector<Violation> check_barrier(const History& h);

// Leaks at quiescence, from the server's ground truth.
std::vector<Violation> check_no_leaks(const std::vector<std::string>& nodes_left, std::size_t watches_left);

// sequential-consistency, per client, from the trace: the zxid of each
// reply (the answering server's state for a read, the transaction's for a
// write) is never below that of an earlier reply to the same client. This is
// ZooKeeper's single system image with read-your-writes: it breaks if a
// client reconnects to a server behind what it saw, or a server answers a
// write before it applied it. Replies the client library made up itself
// (zxid 0) are left out. One violation per client, at its first step back.
std::vector<Violation> check_sequential_consistency(std::span<const TraceEvent> trace);

// watch-order, per session, from the trace: the watch event of a change at
// zxid z reaches the client before any reply at zxid z or later (it sees the
// event before the data that follows the change), and events come in the
// order of their changes on one connection. ZooKeeper's Programmer's Guide
// promises both; a server keeps them by queueing the event on the
// connection as it applies the change. It breaks if a server answers from a
// state it has not told its watchers of. Across a reconnection only the
// first holds: an event does not move the client's last seen zxid, so the
// next server may be behind a change already heard of and fire it again.
// setWatches' events on a reconnect carry the zxid of the server that fired
// them. Session events (type None) and replies the
// library made up (zxid 0) are left out. One violation per session.
std::vector<Violation> check_watch_order(std::span<const TraceEvent> trace);

}  // namespace zksim::scenarios
