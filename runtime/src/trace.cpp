#include "zksim/trace.h"

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

}  // namespace

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

}  // namespace zksim
