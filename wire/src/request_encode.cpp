// encode_request: a request frame as a client writes it.
#include "records.h"
#include "zksim/wire/request.h"

#include <type_traits>

namespace zksim::wire {
namespace {

using detail::write_acl;
using detail::write_strings;

void write_string(Writer& w, const std::string& s, bool null) {
  if (null) {
    w.write_null();
  } else {
    w.write_buffer(std::string_view(s));
  }
}

void write_create(Writer& w, OpCode code, const CreateRequest& c, const Nulls& n,
                  std::optional<std::int32_t> unknown_flags = std::nullopt) {
  write_string(w, c.path, n.path);
  write_string(w, c.data, n.data);
  write_acl(w, c.acl, n.acl);
  // createContainer carries the container flag, as real clients send it.
  w.write_int(unknown_flags ? *unknown_flags : static_cast<std::int32_t>(c.mode));
  if (code == OpCode::CreateTtl) w.write_long(c.ttl_ms);
}

void write_multi_header(Writer& w, std::int32_t type, bool done) {
  w.write_int(type);
  w.write_bool(done);
  w.write_int(-1);
}

class RequestWriter {
 public:
  RequestWriter(Writer& w, const RequestFrame& f) : w_(w), f_(f) {}

  void operator()(const Request& r) { std::visit(*this, r); }
  void operator()(const PingRequest&) {}
  void operator()(const CloseSessionRequest&) {}
  void operator()(const WhoAmIRequest&) {}
  void operator()(const AuthRequest& a) {
    w_.write_int(a.type);
    w_.write_buffer(std::string_view(a.scheme));
    w_.write_buffer(std::string_view(a.auth));
  }
  void operator()(const CheckWatchesRequest& c) {
    write_string(w_, c.path, f_.nulls.path);
    w_.write_int(static_cast<std::int32_t>(c.type));
  }
  void operator()(const MultiReadRequest& m) {
    for (const ReadOp& op : m.ops) {
      std::visit(
          [&](const auto& g) {
            const bool data = std::is_same_v<std::decay_t<decltype(g)>, GetDataRequest>;
            write_multi_header(w_, static_cast<std::int32_t>(data ? OpCode::GetData : OpCode::GetChildren), false);
            w_.write_buffer(std::string_view(g.path));
            w_.write_bool(g.watch);
          },
          op);
    }
    write_multi_header(w_, -1, true);
  }

  void operator()(const CreateRequest& c) { write_create(w_, f_.code, c, f_.nulls); }
  void operator()(const DeleteRequest& d) {
    write_string(w_, d.path, f_.nulls.path);
    w_.write_int(d.version.value);
  }
  void operator()(const SetDataRequest& s) {
    write_string(w_, s.path, f_.nulls.path);
    write_string(w_, s.data, f_.nulls.data);
    w_.write_int(s.version.value);
  }
  void operator()(const CheckRequest& c) {
    write_string(w_, c.path, f_.nulls.path);
    w_.write_int(c.version.value);
  }
  void operator()(const ExistsRequest& e) { path_watch(e.path, e.watch); }
  void operator()(const GetDataRequest& g) { path_watch(g.path, g.watch); }
  void operator()(const GetChildrenRequest& g) { path_watch(g.path, g.watch); }
  void operator()(const GetEphemeralsRequest& g) { write_string(w_, g.prefix, f_.nulls.path); }
  void operator()(const GetAllChildrenNumberRequest& g) { write_string(w_, g.path, f_.nulls.path); }
  void operator()(const SyncRequest& s) { write_string(w_, s.path, f_.nulls.path); }
  void operator()(const GetAclRequest& g) { write_string(w_, g.path, f_.nulls.path); }
  void operator()(const SetAclRequest& s) {
    write_string(w_, s.path, f_.nulls.path);
    write_acl(w_, s.acl, f_.nulls.acl);
    w_.write_int(s.version.value);
  }
  void operator()(const AddWatchRequest& a) {
    write_string(w_, a.path, f_.nulls.path);
    w_.write_int(static_cast<std::int32_t>(a.mode));
  }
  void operator()(const RemoveWatchesRequest& r) {
    write_string(w_, r.path, f_.nulls.path);
    w_.write_int(static_cast<std::int32_t>(r.type));
  }
  void operator()(const SetWatchesRequest& s) {
    w_.write_long(s.relative_zxid);
    write_strings(w_, s.data);
    write_strings(w_, s.exist);
    write_strings(w_, s.child);
    if (f_.code == OpCode::SetWatches2) {
      write_strings(w_, s.persistent);
      write_strings(w_, s.persistent_recursive);
    }
  }
  void operator()(const MultiRequest& m) {
    for (std::size_t i = 0; i < m.ops.size(); ++i) {
      const OpInfo info = i < f_.ops.size() ? f_.ops[i] : OpInfo{default_code(m.ops[i]), {}, {}, {}};
      write_multi_header(w_, static_cast<std::int32_t>(info.code), false);
      std::visit(
          [&](const auto& op) {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, CreateRequest>) {
              write_create(w_, info.code, op, info.nulls, info.unknown_flags);
            } else if constexpr (std::is_same_v<T, DeleteRequest>) {
              write_string(w_, op.path, info.nulls.path);
              w_.write_int(op.version.value);
            } else if constexpr (std::is_same_v<T, SetDataRequest>) {
              write_string(w_, op.path, info.nulls.path);
              write_string(w_, op.data, info.nulls.data);
              w_.write_int(op.version.value);
            } else {
              write_string(w_, op.path, info.nulls.path);
              w_.write_int(op.version.value);
            }
          },
          m.ops[i]);
    }
    write_multi_header(w_, -1, true);
  }

 private:
  // The type a client gives an op when the frame names none.
  static OpCode default_code(const MultiOp& op) {
    switch (op.index()) {
      case 0: return is_ttl(std::get<CreateRequest>(op).mode) ? OpCode::CreateTtl : OpCode::Create;
      case 1: return OpCode::Delete;
      case 2: return OpCode::SetData;
      default: return OpCode::Check;
    }
  }
  void path_watch(const std::string& path, bool watch) {
    write_string(w_, path, f_.nulls.path);
    w_.write_bool(watch);
  }

  Writer& w_;
  const RequestFrame& f_;
};

}  // namespace

Bytes encode_request(const RequestFrame& request) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(request.xid);
  w.write_int(static_cast<std::int32_t>(request.code));
  std::visit(RequestWriter(w, request), request.body);
  w.end_frame(mark);
  return out;
}

}  // namespace zksim::wire
