#include "zksim/trace.h"

#include "zksim/error.h"
#include "zksim/fault.h"

#include <fmt/format.h>

#include <array>

namespace zksim {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

void fold(std::uint64_t& h, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= kFnvPrime;
  }
}

template <class T>
void fold_int(std::uint64_t& h, T v) {
  // Byte by byte, least significant first: the same on every platform.
  auto u = static_cast<std::uint64_t>(v);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    h ^= (u >> (8 * i)) & 0xFF;
    h *= kFnvPrime;
  }
}

void fold_string(std::uint64_t& h, const std::string& s) {
  fold_int(h, static_cast<std::uint32_t>(s.size()));
  fold(h, s.data(), s.size());
}

constexpr std::array<std::string_view, 16> kRequestNames = {
    "create",  "delete",      "setData",   "check",        "exists",  "getData",
    "getChildren", "getEphemerals", "getAllChildrenNumber", "sync", "getACL", "setACL",
    "addWatch", "removeWatches", "setWatches", "multi"};

constexpr std::array<std::string_view, kFaultKinds> kFaultNames = {
    "drop-before-apply", "drop-after-apply", "expire-session", "pause", "crash", "delay"};

constexpr std::array<std::string_view, 4> kStateNames = {"connecting", "connected", "expired",
                                                         "closed"};

constexpr std::array<std::string_view, 4> kServerNames = {"session-opened", "session-expired",
                                                          "session-closed", "reaped"};

template <std::size_t N>
std::string_view name_in(const std::array<std::string_view, N>& names, std::int32_t i) {
  return i >= 0 && static_cast<std::size_t>(i) < N ? names[static_cast<std::size_t>(i)] : "?";
}

}  // namespace

std::string_view request_kind_name(std::int32_t kind) { return name_in(kRequestNames, kind); }
std::string_view fault_kind_name(std::int32_t kind) { return name_in(kFaultNames, kind); }

void Trace::add(TraceEvent e) {
  fold_int(hash_, e.time);
  fold_int(hash_, static_cast<std::uint8_t>(e.kind));
  fold_int(hash_, e.client);
  fold_int(hash_, e.session.value);
  fold_int(hash_, e.zxid);
  fold_int(hash_, e.code);
  fold_int(hash_, e.code2);
  fold_int(hash_, e.xid);
  fold_string(hash_, e.path);
  fold_string(hash_, e.detail);
  ++count_;
  if (keep_) events_.push_back(std::move(e));
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
  }
  return head;
}

std::string Trace::render() const {
  std::string out;
  for (const TraceEvent& e : events_) {
    out += render(e);
    out += '\n';
  }
  return out;
}

}  // namespace zksim
