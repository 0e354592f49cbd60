// How results become lines: every Stat field but the times, errors by name.
#include "harness.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::conf {

std::string Recorder::zx(std::int64_t zxid) const {
  if (zxid == 0) return "0";
  if (zxid < marker_) return "<m";
  return fmt::format("+{}", zxid - marker_);
}

std::string Recorder::owner(std::int64_t session) const {
  if (session == 0) return "0";
  auto it = sessions_.find(session);
  return it != sessions_.end() ? it->second : fmt::format("?{:x}", session);
}

std::string Recorder::stat(const Stat& s) const {
  return fmt::format("cz={} mz={} pz={} v={} cv={} av={} owner={} len={} n={}", zx(s.czxid),
                     zx(s.mzxid), zx(s.pzxid), s.version, s.cversion, s.aversion,
                     owner(s.ephemeralOwner), s.dataLength, s.numChildren);
}

void Recorder::put(std::string_view what, const Result<void>& r) {
  line(fmt::format("{}: {}", what, r.error()));
}

void Recorder::put(std::string_view what, const Result<Stat>& r) {
  if (!r) return line(fmt::format("{}: {}", what, r.error()));
  line(fmt::format("{}: ZOK {}", what, stat(*r)));
}

void Recorder::put(std::string_view what, const Result<CreateResponse>& r) {
  if (!r) return line(fmt::format("{}: {}", what, r.error()));
  line(fmt::format("{}: ZOK {} {}", what, r->path, stat(r->stat)));
}

void Recorder::put(std::string_view what, const Result<DataResponse>& r) {
  if (!r) return line(fmt::format("{}: {}", what, r.error()));
  line(fmt::format("{}: ZOK '{}' {}", what, r->data, stat(r->stat)));
}

void Recorder::put(std::string_view what, const Result<ChildrenResponse>& r) {
  if (!r) return line(fmt::format("{}: {}", what, r.error()));
  std::vector<std::string> names = r->children;
  std::sort(names.begin(), names.end());
  line(fmt::format("{}: ZOK [{}] {}", what, fmt::join(names, ","), stat(r->stat)));
}

void Recorder::put(std::string_view what, const MultiResult& r) {
  std::vector<std::string> ops;
  for (const OpResult& op : r.results) {
    std::string v;
    if (const auto* c = std::get_if<CreateResponse>(&op.value)) {
      v = fmt::format(" {} {}", c->path, stat(c->stat));
    } else if (const auto* s = std::get_if<StatResponse>(&op.value)) {
      v = fmt::format(" {}", stat(s->stat));
    }
    ops.push_back(fmt::format("{}{}", op.error, v));
  }
  line(fmt::format("{}: {} [{}]", what, r.error, fmt::join(ops, "; ")));
}

void Recorder::events(std::string_view who, std::vector<WatchedEvent>& seen) {
  std::vector<std::string> evs;
  for (const WatchedEvent& e : seen) {
    evs.push_back(fmt::format("{}/{} {}", event_type_name(e.type), keeper_state_name(e.state),
                              e.path));
  }
  line(fmt::format("{} events: [{}]", who, fmt::join(evs, "; ")));
  seen.clear();
}

Task<bool> wait_events(Client& c, const Seen& seen, std::size_t n, TimeMs timeout_ms) {
  TimeMs end = c.now() + timeout_ms;
  while (seen.events.size() < n) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

Task<void> settle(Client& c) {
  auto r = co_await c.sync("/");
  (void)r;
}

}  // namespace zksim::conf
