// The simulated network between the client handles and the servers:
// connections, each a pair of in-order channels (up: to the server, down:
// to the client) whose messages take a drawn delay. It applies the rules
// of a connection's two ends (a closed end reads nothing; a connection is
// freed once its client end has closed and its channels are drained) and
// knows nothing of sessions or requests: what a delivered message does is
// its hooks'.
#pragma once

#include "zksim/decision.h"
#include "zksim/event_loop.h"
#include "zksim/server.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace zksim {

struct UpMsg {
  enum Kind : std::uint8_t { Connect, Req, Close } kind = Req;
  std::uint32_t xid = 0;     // 0: no reply expected (setWatches)
  int view = -1;             // the client view that sent it
  // Req: the request, held by the sender's PendingOp. An op completes or
  // goes away only once its connection can no longer be served, so the
  // server never reads a request whose op is gone (forget() hands the
  // request over to `own` if that ever changes). A setWatches, which has
  // no op, travels in `own`.
  const Request* request = nullptr;
  std::unique_ptr<Request> own;
  SessionId session;         // Connect: 0 for a new session
  int timeout_ms = 0;        // Connect
  std::int64_t last_zxid = 0;  // Connect: the last zxid the client has seen
};

struct DownMsg {
  enum Kind : std::uint8_t { ConnectOk, ConnectExpired, Reply, Event, Closed } kind = Reply;
  std::uint32_t xid = 0;
  Outcome outcome;             // Reply
  WatchedEvent event;          // Event
  std::int64_t zxid = 0;       // Event: the txn that fired it
  SessionId session;           // ConnectOk
  int timeout_ms = 0;          // ConnectOk
};

// A FIFO that reuses its storage: a channel holds a message or two at a
// time, and std::deque would allocate a block every couple of messages.
template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  T& front() { return items_[head_]; }
  template <class F>
  void for_each(F f) {
    for (std::size_t i = head_; i < items_.size(); ++i) f(items_[i]);
  }
  void push_back(T&& v) { items_.push_back(std::move(v)); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

struct Conn {
  int handle = -1;
  Fifo<UpMsg> up;
  Fifo<DownMsg> down;
  TimeMs up_last = 0, down_last = 0;  // last scheduled delivery, for FIFO
  bool client_open = true;            // the client still reads and writes it
  bool server_open = true;            // the server still serves it
  SessionId session;                  // bound by the server at connect
  TimeMs extra_delay_next = 0;        // a Delay fault for the next down message
  int server = 0;                     // the server it is to
  // Answers its (follower) server still owes it from its queue: while
  // there are any, the session's next requests queue behind them.
  int waiting = 0;
};

class Network {
 public:
  struct Hooks {
    // A message reached the server end of `conn`, which still serves it.
    std::function<void(std::uint64_t conn, UpMsg& msg)> at_server;
    // A message reached the client end of `conn`, which the client still reads.
    std::function<void(std::uint64_t conn, DownMsg& msg)> at_client;
    // The decision actor (DecisionSource::pick_for) of handle `handle`'s messages.
    int (*actor)(int handle) = nullptr;
  };
  // A message takes latency_ms times one more than a drawn choice in
  // [0, delay_choices).
  Network(runtime::EventLoop& loop, DecisionSource& decisions, TimeMs latency_ms, std::uint32_t delay_choices,
          Hooks hooks);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // A new connection of handle `handle` to server `server`: its id, never reused.
  std::uint64_t open(int handle, int server);
  // The connection `id`, or null once it was freed.
  Conn* find(std::uint64_t id) {
    return id < conns_.size() ? conns_[static_cast<std::size_t>(id)].get() : nullptr;
  }
  // One past the last id made (ids start at 1).
  std::uint64_t end() const { return conns_.size(); }
  // `msg` goes up `conn`: it arrives after a drawn delay, and after what
  // was sent on it before. Nothing if the connection was freed.
  void send_up(std::uint64_t conn, UpMsg msg);
  // The same down `conn`, plus its Delay fault's extra time if one is set;
  // nothing once the server end closed, except the Closed message itself.
  void send_down(std::uint64_t conn, DownMsg msg);
  // Frees `conn` if its client end has closed and both channels are empty.
  void free_if_done(std::uint64_t conn);

 private:
  TimeMs delay(int handle);
  void deliver_up(std::uint64_t conn);
  void deliver_down(std::uint64_t conn);

  runtime::EventLoop& loop_;
  DecisionSource& decisions_;
  TimeMs latency_ms_;
  std::uint32_t delay_choices_;
  Hooks hooks_;
  int up_channel_, down_channel_;
  // By id; a freed connection is a null slot.
  std::vector<std::unique_ptr<Conn>> conns_{1};
};

}  // namespace zksim
