// The conformance harness: every case is one coroutine against
// zksim::Client&, run once on a fresh simulated world, once with the C
// client (RealClient) on the real server and once with it on `zksim serve`;
// each run records lines, and the simulator's and zksim serve's lists must
// each equal the real server's.
//
// Normalised, and nothing else: session ids (named s1, s2, ... in the order
// the case opened them), ctime/mtime (not recorded), and zxids (recorded as
// offsets from the czxid of the case's own root /c<N>, which the harness
// creates before the case starts; the real server is shared by all cases).
//
//   CONFORMANCE_CASE(Sequential, EmptyPrefix) {
//     Client& zk = env.a();
//     auto made = co_await zk.create(env.root() + "/", "", CreateMode::PersistentSequential);
//     rec.put("create seq", made);
//   }
#pragma once

#include "zksim/client.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::conf {

class Recorder {
 public:
  void set_marker(std::int64_t zxid) { marker_ = zxid; }
  void name_session(SessionId id, std::string name) { sessions_[id.value] = std::move(name); }
  void line(std::string text) { lines_.push_back(std::move(text)); }
  const std::vector<std::string>& lines() const { return lines_; }

  // A zxid as "+k" from the marker; "0"; "<m" for one before the case.
  std::string zx(std::int64_t zxid) const;
  // A session id by its name in the case ("s1"); "0" for none.
  std::string owner(std::int64_t session) const;
  std::string stat(const Stat& s) const;

  void put(std::string_view what, const Result<void>& r);
  void put(std::string_view what, const Result<Stat>& r);
  void put(std::string_view what, const Result<CreateResponse>& r);
  void put(std::string_view what, const Result<DataResponse>& r);
  // Children as a sorted set: ZooKeeper does not order them (the real
  // server returns hash-set order, the simulator a chosen one).
  void put(std::string_view what, const Result<ChildrenResponse>& r);
  void put(std::string_view what, const MultiResult& r);
  // Records and clears the events collected so far.
  void events(std::string_view who, std::vector<WatchedEvent>& seen);

 private:
  std::int64_t marker_ = 0;
  std::map<std::int64_t, std::string> sessions_;
  std::vector<std::string> lines_;
};

// What a case may ask of its backend.
class Env {
 public:
  virtual ~Env() = default;
  // The case's own root, "/c<N>", created by a() before the case starts.
  const std::string& root() const { return root_; }
  std::string path(std::string_view rel) const { return root_ + "/" + std::string(rel); }
  // The first client (session s1).
  Client& a() { return *a_; }
  // Opens another client (4 s session unless told) and waits until it is
  // connected; its session is named s<k>.
  virtual Task<Client*> open(int session_timeout_ms = 4000) = 0;
  // Expires `c`'s session on the server and waits until `c` knows (Expired).
  virtual Task<bool> expire(Client& c) = 0;
  // The backends report "sim", "real" or "serve" only for documenting
  // differences that are the server's own; no case may branch on it to pass.
  virtual const char* name() const = 0;

 protected:
  std::string root_;
  Client* a_ = nullptr;
};

using CaseFn = Task<> (*)(Env&, Recorder&);

// Runs `fn` on the simulator, on the real server and on zksim serve, and
// compares the simulator's lines and zksim serve's with the real server's.
void check_case(CaseFn fn);

// Collects the events a watcher sees.
struct Seen {
  std::vector<WatchedEvent> events;
  Watcher watcher() {
    return [this](const WatchedEvent& e) { events.push_back(e); };
  }
};

// Waits until `seen` has `n` events or `timeout_ms` of the backend's time passed.
Task<bool> wait_events(Client& c, const Seen& seen, std::size_t n, TimeMs timeout_ms = 10'000);
// A round trip on `c`: every event the server sent `c` before it has arrived.
Task<void> settle(Client& c);

}  // namespace zksim::conf

#define CONFORMANCE_CASE(Suite, Name)                                                   \
  static ::zksim::Task<> Suite##_##Name##_case(::zksim::conf::Env& env,                 \
                                               ::zksim::conf::Recorder& rec);           \
  TEST(Suite, Name) { ::zksim::conf::check_case(&Suite##_##Name##_case); }              \
  static ::zksim::Task<> Suite##_##Name##_case(::zksim::conf::Env& env,                 \
                                               [[maybe_unused]] ::zksim::conf::Recorder& rec)
