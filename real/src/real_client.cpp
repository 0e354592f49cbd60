// RealClient's requests: each one is a C client async call whose completion
// posts the coroutine's resumption to the loop.
#include "real_impl.h"

#include "zksim/client_rules.h"

#include <cstring>

namespace zksim {
namespace {

// The C client's data pointer and length for `data` (never null: "" is empty data).
int length(const std::string& data) { return static_cast<int>(data.size()); }

// Sets up op `i` of a multi in `st`; the C client copies the strings when
// the request is serialized, so they only need to live during zoo_amulti.
struct MultiBuilder {
  OpState& st;
  std::vector<std::unique_ptr<CAcl>>& acls;
  std::size_t i;
  void operator()(const CreateRequest& q) {
    acls.push_back(std::make_unique<CAcl>(q.acl));
    st.path_bufs[i].assign(q.path.size() + 32, '\0');
    zoo_create_op_init(&st.ops[i], q.path.c_str(), q.data.data(), length(q.data),
                       &acls.back()->vec, static_cast<int>(q.mode), st.path_bufs[i].data(),
                       static_cast<int>(st.path_bufs[i].size()));
    st.ops[i].create_op.ttl = q.ttl_ms > 0 ? q.ttl_ms : 0;
  }
  void operator()(const DeleteRequest& q) {
    zoo_delete_op_init(&st.ops[i], q.path.c_str(), q.version.value);
  }
  void operator()(const SetDataRequest& q) {
    zoo_set_op_init(&st.ops[i], q.path.c_str(), q.data.data(), length(q.data), q.version.value,
                    &st.stats[i]);
  }
  void operator()(const CheckRequest& q) {
    zoo_check_op_init(&st.ops[i], q.path.c_str(), q.version.value);
  }
};

// Marks a result the C client has not filled in (no ZooKeeper error is positive).
constexpr int kUnanswered = 1;

// One op's result as the C client reports it: after a successful multi a
// create gives its path only (the C client sends multi creates as plain
// create, whose reply has no Stat), a setData its Stat, delete and check
// nothing; after a failed one, only the per-op errors.
OpResult op_result(const MultiOp& op, const OpState& st, std::size_t i) {
  OpResult r;
  r.error = to_error(st.results[i].err);
  if (st.rc != ZOK) return r;
  if (std::holds_alternative<CreateRequest>(op)) {
    r.value = CreateResponse{std::string(st.path_bufs[i].data()), Stat{}};
  } else if (std::holds_alternative<SetDataRequest>(op)) {
    r.value = StatResponse{to_stat(st.stats[i])};
  }
  return r;
}

}  // namespace

Task<Result<CreateResponse>> RealClient::create(std::string path, std::string data,
                                                CreateMode mode, AclList acl,
                                                std::int64_t ttl_ms) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  CAcl c_acl(acl);
  zhandle_t* zh = core_->zh;
  auto start = [&](const void* box) {
    if (is_ttl(mode) || ttl_ms > 0) {
      return zoo_acreate2_ttl(zh, path.c_str(), data.data(), length(data), &c_acl.vec,
                              static_cast<int>(mode), ttl_ms, string_stat_done, box);
    }
    return zoo_acreate2(zh, path.c_str(), data.data(), length(data), &c_acl.vec,
                        static_cast<int>(mode), string_stat_done, box);
  };
  CCall call(st, start);
  co_await call;
  if (st->rc != ZOK) co_return to_error(st->rc);
  CreateResponse r{std::move(st->text), st->stat};
  co_return r;
}

Task<Result<void>> RealClient::remove(std::string path, Version version) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  auto start = [&](const void* box) {
    return zoo_adelete(zh, path.c_str(), version.value, void_done, box);
  };
  CCall call(st, start);
  co_await call;
  co_return Result<void>(to_error(st->rc));
}

Task<Result<Stat>> RealClient::exists(std::string path, Watcher watcher) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  std::uint64_t id = core_->add_watcher(std::move(watcher), path, WatcherType::Data);
  auto start = [&](const void* box) {
    return zoo_awexists(zh, path.c_str(), id ? watch_fn : nullptr,
                        reinterpret_cast<void*>(id), stat_done, box);
  };
  CCall call(st, start);
  co_await call;
  // activateWatcher: exists keeps the watcher on OK and on NONODE.
  if (id && st->rc != ZOK && st->rc != ZNONODE) core_->drop_watcher(id);
  if (st->rc != ZOK) co_return to_error(st->rc);
  co_return st->stat;
}

Task<Result<DataResponse>> RealClient::get_data(std::string path, Watcher watcher) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  std::uint64_t id = core_->add_watcher(std::move(watcher), path, WatcherType::Data);
  auto start = [&](const void* box) {
    return zoo_awget(zh, path.c_str(), id ? watch_fn : nullptr, reinterpret_cast<void*>(id),
                     data_done, box);
  };
  CCall call(st, start);
  co_await call;
  if (id && st->rc != ZOK) core_->drop_watcher(id);
  if (st->rc != ZOK) co_return to_error(st->rc);
  DataResponse r{std::move(st->text), st->stat};
  co_return r;
}

Task<Result<Stat>> RealClient::set_data(std::string path, std::string data, Version version) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  auto start = [&](const void* box) {
    return zoo_aset(zh, path.c_str(), data.data(), length(data), version.value, stat_done, box);
  };
  CCall call(st, start);
  co_await call;
  if (st->rc != ZOK) co_return to_error(st->rc);
  co_return st->stat;
}

Task<Result<ChildrenResponse>> RealClient::get_children(std::string path, Watcher watcher) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  std::uint64_t id = core_->add_watcher(std::move(watcher), path, WatcherType::Children);
  auto start = [&](const void* box) {
    return zoo_awget_children2(zh, path.c_str(), id ? watch_fn : nullptr,
                               reinterpret_cast<void*>(id), strings_stat_done, box);
  };
  CCall call(st, start);
  co_await call;
  if (id && st->rc != ZOK) core_->drop_watcher(id);
  if (st->rc != ZOK) co_return to_error(st->rc);
  ChildrenResponse r{std::move(st->children), st->stat};
  co_return r;
}

Task<MultiResult> RealClient::multi(std::vector<MultiOp> ops) {
  MultiResult out;
  if (!core_->zh) {
    out.error = Error::InvalidState;
    co_return out;
  }
  // Refused here what the C client would refuse before sending anyway, so
  // zoo_amulti never sees it: a container create it would send, then abort
  // on the reply.
  if (Error e = c_client_refusal(ops); e != Error::Ok) {
    out.error = e;
    co_return out;
  }
  auto st = new_op(core_->loop);
  st->ops.resize(ops.size());
  zoo_op_result_t unanswered{};
  unanswered.err = kUnanswered;
  st->results.assign(ops.size(), unanswered);
  st->path_bufs.resize(ops.size());
  st->stats.resize(ops.size());
  std::vector<std::unique_ptr<CAcl>> acls;
  for (std::size_t i = 0; i < ops.size(); ++i) std::visit(MultiBuilder{*st, acls, i}, ops[i]);
  zhandle_t* zh = core_->zh;
  auto start = [&](const void* box) {
    return zoo_amulti(zh, static_cast<int>(ops.size()), st->ops.data(), st->results.data(),
                      void_done, box);
  };
  CCall call(st, start);
  co_await call;
  out.error = to_error(st->rc);
  // The C client fills the per-op results only when the server answered.
  bool answered = !ops.empty() && st->results.front().err != kUnanswered;
  if (answered) {
    for (std::size_t i = 0; i < ops.size(); ++i) out.results.push_back(op_result(ops[i], *st, i));
  }
  co_return out;
}

Task<Result<void>> RealClient::sync(std::string path) {
  if (!core_->zh) co_return Error::InvalidState;
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  auto start = [&](const void* box) { return zoo_async(zh, path.c_str(), string_done, box); };
  CCall call(st, start);
  co_await call;
  co_return Result<void>(to_error(st->rc));
}

Task<Result<void>> RealClient::add_watch(std::string, AddWatchMode, Watcher) {
  co_return Error::Unimplemented;
}

Task<Result<void>> RealClient::remove_all_watches(std::string path, WatcherType type) {
  if (!core_->zh) co_return Error::InvalidState;
  // The C client answers NOWATCHER for a kind it does not know without
  // sending anything; refused here so no out-of-range ZooWatcherType is made.
  if (type != WatcherType::Children && type != WatcherType::Data && type != WatcherType::Any) {
    co_return Error::NoWatcher;
  }
  auto st = new_op(core_->loop);
  zhandle_t* zh = core_->zh;
  // zookeeper.h declares the completion as void_completion_t*, but
  // zookeeper.c casts that pointer back to a void_completion_t and calls
  // it: the function's own address is what it wants.
  auto* completion = reinterpret_cast<void_completion_t*>(&void_done);
  auto start = [&](const void* box) {
    return zoo_aremove_all_watches(zh, path.c_str(), static_cast<ZooWatcherType>(type),
                                   /*local=*/0, completion, box);
  };
  CCall call(st, start);
  co_await call;
  // The C client forgot its watchers when the OK reply arrived; their
  // events, if any fired before, were posted before this completion.
  if (st->rc == ZOK) core_->drop_watchers(path, type);
  co_return Result<void>(to_error(st->rc));
}

}  // namespace zksim
