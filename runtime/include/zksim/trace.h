// The trace of a simulated run: every request, response, watch event, state
// change, fault and annotation, with simulated time, client, session and
// zxid. Events are structured (no formatting on the hot path); the run's
// hash folds in every field of every event, so two runs with equal hashes
// did the same things at the same times. What the codes of the ZooKeeper
// world's events mean, and their text, is zksim/zk_trace.h's.
#pragma once

#include "zksim/types.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zksim {

enum class TraceKind : std::uint8_t {
  Request,     // a client sent a request; code = request kind
  Response,    // a client got a reply; code = error, code2 = request kind
  Watch,       // a client got a watch event; code = EventType, zxid = the txn behind it
  State,       // a client's session state changed; code = SessionState
  Fault,       // a fault was injected; code = FaultKind
  Server,      // the server acted on its own: code = ServerAction
  Annotation,  // a recipe or workload wrote `detail`
  Listener,    // a client's session listeners were told, on their own thread; code = KeeperState
};

struct TraceEvent {
  TimeMs time = 0;
  TraceKind kind = TraceKind::Annotation;
  std::int32_t client = -1;  // -1: the server
  SessionId session;
  std::int64_t zxid = 0;
  std::int32_t code = 0;
  std::int32_t code2 = 0;
  std::uint32_t xid = 0;     // request id within the client, for Request and Response
  std::string path;
  std::string detail;
};

class Trace {
 public:
  // With keep_events = false only the hash and the count are kept (benchmarks).
  // Kept events live in storage reused from the last Trace destroyed on this
  // thread (up to kSpareStorage of them): a campaign's runs write their
  // events, strings included, into memory the runs before them grew, so a
  // run's trace costs no allocation once the first runs are done, and no
  // page faults (growing it from empty cost a lock scenario a seventh of its
  // time, and a longer run more).
  explicit Trace(bool keep_events = true);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  void add(TraceEvent e);
  // The same as add(TraceEvent{...}) without building strings unless the
  // events are kept.
  void add(TimeMs time, TraceKind kind, std::int32_t client, SessionId session,
           std::int64_t zxid, std::int32_t code, std::int32_t code2, std::uint32_t xid,
           std::string_view path, std::string_view detail);
  std::uint64_t hash() const { return hash_; }
  std::size_t size() const { return count_; }
  // The kept events; valid until the next add.
  std::span<const TraceEvent> events() const { return {storage_.data(), kept_}; }
  // Moves the kept events out (the hash and count stay), for callers that
  // outlive the world; their storage then goes with them, not to the next
  // trace.
  std::vector<TraceEvent> take_events();

 private:
  static constexpr std::size_t kSpareStorage = 2;
  // Storage larger than this many events is not kept for reuse, so that one
  // long run does not hold its memory for the rest of the process.
  static constexpr std::size_t kMaxReusedEvents = std::size_t{1} << 14;

  void fold(TimeMs time, TraceKind kind, std::int32_t client, SessionId session, std::int64_t zxid,
            std::int32_t code, std::int32_t code2, std::uint32_t xid, std::string_view path,
            std::string_view detail);
  // The slot of the next kept event: a used one (its strings' capacity
  // reused) or a new one.
  TraceEvent& next_slot();
  bool keep_;
  std::uint64_t hash_ = 0x7a6b73696d000001ULL;
  std::size_t count_ = 0;
  std::size_t kept_ = 0;
  // Slots [0, kept_) are this trace's events; the rest are a former
  // trace's, kept for their capacity.
  std::vector<TraceEvent> storage_;
};

}  // namespace zksim
