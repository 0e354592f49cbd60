// Private state of the real backend: the per-handle Core the loop thread
// owns, and the per-request state a C client completion fills in.
#pragma once

#include "zksim/real_client.h"

#include <zookeeper/zookeeper.h>

#include <coroutine>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace zksim {

// One zhandle and what the loop thread knows of it. Only the loop thread
// touches the members, except `loop` and `zh`, which the C client's threads
// read (through zoo_get_context) while the handle is open.
struct RealClient::Core : std::enable_shared_from_this<Core> {
  Core(RealLoop& l, std::string h, int t) : loop(l), hosts(std::move(h)), timeout_ms(t) {}
  RealLoop& loop;
  std::string hosts;
  int timeout_ms;
  zhandle_t* zh = nullptr;
  SessionState state = SessionState::Connecting;
  SessionId session;
  std::uint64_t next_unique = 1;
  std::string unique_tag;  // random per handle, for unique_id()
  Watcher default_watcher;
  std::map<std::uint64_t, Watcher> listeners;
  std::uint64_t next_listener = 1;
  // A watcher registered with the C client: what it is, and where.
  struct Registered {
    Watcher fn;
    std::string path;
    WatcherType kind;  // Data (exists, getData) or Children (getChildren)
  };
  // Watchers registered with the C client, by the id passed as its context.
  std::map<std::uint64_t, Registered> watchers;
  std::uint64_t next_watch = 1;
  std::vector<std::string> log;

  // Loop thread: a session event from the default watcher.
  void on_session_event(int c_state);
  // Loop thread: an event for the registered watcher `id`.
  void on_watch_event(std::uint64_t id, const WatchedEvent& e);
  // Registers `w` for a request on `path` about to be sent; 0 if there is none.
  std::uint64_t add_watcher(Watcher w, const std::string& path, WatcherType kind);
  // The request was refused or failed, so the C client did not keep the watcher.
  void drop_watcher(std::uint64_t id) { watchers.erase(id); }
  // The C client forgot its watchers of `type` on `path` (removeWatches
  // answered OK); so do we.
  void drop_watchers(const std::string& path, WatcherType type);
};

// What one C request returns, filled in on the completion thread and read on
// the loop thread after the posted resumption.
struct OpState {
  RealLoop* loop = nullptr;
  std::coroutine_handle<> waiter;  // cleared if the awaiting coroutine goes away
  int rc = ZOK;
  std::string text;  // created path, data
  Stat stat;
  std::vector<std::string> children;
  // multi: the C client writes results when the reply arrives.
  std::vector<zoo_op_t> ops;
  std::vector<zoo_op_result_t> results;
  std::vector<std::vector<char>> path_bufs;
  std::vector<::Stat> stats;
};

// Awaits one C request: `start` sends it with the completion data it is
// given and returns the C client's immediate rc.
template <class Start>
struct CCall {
  std::shared_ptr<OpState> st;
  Start start;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    st->waiter = h;
    auto* box = new std::shared_ptr<OpState>(st);
    int rc = start(static_cast<const void*>(box));
    if (rc == ZOK) return true;
    delete box;  // no completion will come
    st->waiter = {};
    st->rc = rc;
    return false;
  }
  void await_resume() const noexcept {}
  CCall(std::shared_ptr<OpState> s, Start f) : st(std::move(s)), start(std::move(f)) {}
  CCall(const CCall&) = delete;
  CCall& operator=(const CCall&) = delete;
  ~CCall() { st->waiter = {}; }
};

std::shared_ptr<OpState> new_op(RealLoop& loop);
Error to_error(int rc);
Stat to_stat(const ::Stat& s);

// Completions (C client threads): copy the results, post the resumption.
void void_done(int rc, const void* data);
void stat_done(int rc, const ::Stat* stat, const void* data);
void data_done(int rc, const char* value, int value_len, const ::Stat* stat,
               const void* data);
void string_done(int rc, const char* value, const void* data);
void string_stat_done(int rc, const char* value, const ::Stat* stat, const void* data);
void strings_stat_done(int rc, const ::String_vector* strings, const ::Stat* stat,
                       const void* data);

// Watcher callbacks (C client threads): post the event to the loop.
void default_watcher_fn(zhandle_t* zh, int type, int state, const char* path, void* ctx);
void watch_fn(zhandle_t* zh, int type, int state, const char* path, void* ctx);

// An ACL list in the C client's layout; the strings live here.
struct CAcl {
  explicit CAcl(const AclList& acl);
  CAcl(const CAcl&) = delete;
  CAcl& operator=(const CAcl&) = delete;
  std::vector<std::string> strings;
  std::vector<::ACL> entries;
  ::ACL_vector vec{};
};

}  // namespace zksim
