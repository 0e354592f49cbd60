#include "zksim/trace.h"

#include "zksim/error.h"
#include "zksim/fault.h"
#include "zksim/per_thread.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>

namespace zksim {
namespace {

// Our own 64-bit mix, fed whole words: integers as themselves, strings as
// little-endian 8-byte chunks assembled from bytes, so the hash is the same on
// every platform and compiler (and fast: a trace event costs a few multiplies).
void mix(std::uint64_t& h, std::uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
}

void mix_string(std::uint64_t& h, std::string_view s) {
  mix(h, s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size();
  while (n > 0) {
    std::uint64_t w = 0;
    std::size_t k = n < 8 ? n : 8;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&w, p, k);  // the same word the byte loop assembles
    } else {
      for (std::size_t i = 0; i < k; ++i) w |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    }
    mix(h, w);
    p += k;
    n -= k;
  }
}

constexpr std::array<std::string_view, 4> kStateNames = {"connecting", "connected", "expired",
                                                         "closed"};

constexpr std::array<std::string_view, 13> kServerNames = {
    "session-opened",   "session-expired",  "session-closed",   "reaped",   "connection-refused",
    "server-crashed",   "server-restarted", "leader-elected",   "lag-burst",
    "follower-cut",     "follower-looking", "follower-rejoined", "write-refused"};

template <std::size_t N>
std::string_view name_in(const std::array<std::string_view, N>& names, std::int32_t i) {
  return i >= 0 && static_cast<std::size_t>(i) < N ? names[static_cast<std::size_t>(i)] : "?";
}

}  // namespace

bool is_fault(const TraceEvent& e) {
  if (e.kind == TraceKind::Fault) return true;
  return e.kind == TraceKind::Server && (e.code == static_cast<std::int32_t>(ServerAction::ServerCrashed) ||
                                         e.code == static_cast<std::int32_t>(ServerAction::LagBurst) ||
                                         e.code == static_cast<std::int32_t>(ServerAction::FollowerCut));
}

std::string_view fault_kind_name(std::int32_t kind) { return kind < kFaultKinds ? fault_class_name(kind) : "?"; }
std::string_view session_state_name(std::int32_t state) { return name_in(kStateNames, state); }

namespace {

// The storage of destroyed traces, for the next ones on this thread. Only
// memory moves through it: no event of one trace reaches another. A Trace
// may outlive it (a World held in another thread_local, destroyed after
// it): then it is null (zksim/per_thread.h).
struct SpareStorage {
  std::vector<std::vector<TraceEvent>> traces;
};
using Spare = detail::PerThread<SpareStorage>;

}  // namespace

Trace::Trace(bool keep_events) : keep_(keep_events) {
  if (!keep_) return;
  SpareStorage* spare = Spare::get();
  if (!spare || spare->traces.empty()) {
    storage_.reserve(1024);
    return;
  }
  storage_ = std::move(spare->traces.back());
  spare->traces.pop_back();
}

Trace::~Trace() {
  if (!keep_ || storage_.capacity() == 0 || storage_.size() > kMaxReusedEvents) return;
  SpareStorage* spare = Spare::get();
  if (!spare || spare->traces.size() >= kSpareStorage) return;
  spare->traces.push_back(std::move(storage_));
}

std::vector<TraceEvent> Trace::take_events() {
  storage_.resize(kept_);
  kept_ = 0;
  return std::move(storage_);
}

TraceEvent& Trace::next_slot() {
  if (kept_ == storage_.size()) storage_.emplace_back();
  return storage_[kept_++];
}

void Trace::add(TraceEvent e) {
  fold(e.time, e.kind, e.client, e.session, e.zxid, e.code, e.code2, e.xid, e.path, e.detail);
  if (keep_) next_slot() = std::move(e);
}

void Trace::add(TimeMs time, TraceKind kind, std::int32_t client, SessionId session,
                std::int64_t zxid, std::int32_t code, std::int32_t code2, std::uint32_t xid,
                std::string_view path, std::string_view detail) {
  fold(time, kind, client, session, zxid, code, code2, xid, path, detail);
  if (keep_) {
    TraceEvent& e = next_slot();
    e.time = time;
    e.kind = kind;
    e.client = client;
    e.session = session;
    e.zxid = zxid;
    e.code = code;
    e.code2 = code2;
    e.xid = xid;
    e.path.assign(path);
    e.detail.assign(detail);
  }
}

void Trace::fold(TimeMs time, TraceKind kind, std::int32_t client, SessionId session,
                 std::int64_t zxid, std::int32_t code, std::int32_t code2, std::uint32_t xid,
                 std::string_view path, std::string_view detail) {
  mix(hash_, static_cast<std::uint64_t>(time));
  mix(hash_, static_cast<std::uint64_t>(kind) | static_cast<std::uint64_t>(xid) << 8 |
                 static_cast<std::uint64_t>(static_cast<std::uint32_t>(client)) << 40);
  mix(hash_, static_cast<std::uint64_t>(session.value));
  mix(hash_, static_cast<std::uint64_t>(zxid));
  mix(hash_, static_cast<std::uint64_t>(static_cast<std::uint32_t>(code)) |
                 static_cast<std::uint64_t>(static_cast<std::uint32_t>(code2)) << 32);
  mix_string(hash_, path);
  mix_string(hash_, detail);
  ++count_;
}

std::string Trace::render(const TraceEvent& e) {
  std::string who = e.client < 0 ? "server" : fmt::format("c{}", e.client);
  std::string head = fmt::format("t={:<6} {:<6} {:#018x} z={:#x}", e.time, who,
                                 static_cast<std::uint64_t>(e.session.value), e.zxid);
  switch (e.kind) {
    case TraceKind::Request:
      return fmt::format("{} -> {} {} #{}{}", head, request_kind_name(e.code), e.path, e.xid,
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Response:
      return fmt::format("{} <- {} {} #{} {}{}", head, request_kind_name(e.code2), e.path, e.xid,
                         error_name(static_cast<Error>(e.code)),
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Watch:
      return fmt::format("{} !! {} {}", head, event_type_name(static_cast<EventType>(e.code)),
                         e.path);
    case TraceKind::State:
      return fmt::format("{} == {}", head, name_in(kStateNames, e.code));
    case TraceKind::Fault:
      return fmt::format("{} ** fault {}{}", head, fault_kind_name(e.code),
                         e.detail.empty() ? "" : " " + e.detail);
    case TraceKind::Server:
      return fmt::format("{} ## {}{}", head, name_in(kServerNames, e.code),
                         e.path.empty() ? "" : " " + e.path);
    case TraceKind::Annotation:
      return fmt::format("{} // {}", head, e.detail);
    case TraceKind::Listener:
      return fmt::format("{} => listeners told {}", head, keeper_state_name(static_cast<KeeperState>(e.code)));
  }
  return head;
}

std::string Trace::render() const {
  std::string out;
  for (const TraceEvent& e : events()) {
    out += render(e);
    out += '\n';
  }
  return out;
}

}  // namespace zksim
