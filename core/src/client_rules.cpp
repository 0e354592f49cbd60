#include "zksim/client_rules.h"

#include "zksim/path.h"

namespace zksim {

namespace {

struct Refusal {
  Error operator()(const CreateRequest& q) const {
    if (!client_accepts_path(q.path, is_sequential(q.mode))) return Error::BadArguments;
    bool ttl_ok = is_ttl(q.mode) ? q.ttl_ms > 0 && q.ttl_ms <= kMaxTtlMs : q.ttl_ms <= 0;
    return ttl_ok ? Error::Ok : Error::BadArguments;
  }
  Error operator()(const MultiRequest& q) const { return c_client_refusal(q.ops); }
  Error operator()(const SetWatchesRequest&) const { return Error::Ok; }
  Error operator()(const GetEphemeralsRequest&) const { return Error::Ok; }
  Error operator()(const RemoveWatchesRequest& q) const {
    if (!client_accepts_path(q.path)) return Error::BadArguments;
    // pathHasWatcher knows only the three kinds: no watcher of another.
    bool known = q.type == WatcherType::Children || q.type == WatcherType::Data ||
                 q.type == WatcherType::Any;
    return known ? Error::Ok : Error::NoWatcher;
  }
  template <class Q>
  Error operator()(const Q& q) const {
    return client_accepts_path(q.path) ? Error::Ok : Error::BadArguments;
  }
};

}  // namespace

Error c_client_refusal(const Request& r) { return std::visit(Refusal{}, r); }

Error c_client_refusal(const std::vector<MultiOp>& ops) {
  for (const MultiOp& op : ops) {
    const auto* c = std::get_if<CreateRequest>(&op);
    if (c && (is_ttl(c->mode) || c->mode == CreateMode::Container)) return Error::Unimplemented;
    bool sequential = c && is_sequential(c->mode);
    auto path_of = [](const auto& o) -> const std::string& { return o.path; };
    if (!client_accepts_path(std::visit(path_of, op), sequential)) return Error::MarshallingError;
  }
  return Error::Ok;
}

}  // namespace zksim
