// The event loop every simulated world runs on: simulated time, and what is
// due at a time, run in the order (time, order scheduled). Two kinds of
// event: a call (any function, cancellable by its id) and a post (a number
// handed to a channel's handler, for the hot paths that must not allocate,
// such as a message's delivery). Calls may be made on a process's behalf:
// the loop applies the process's rules of crashing and pausing. Nothing here
// draws a choice; the worlds draw theirs from their DecisionSource.
#pragma once

#include "zksim/types.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace zksim::runtime {

// A simulated process as the loop sees it. A call made on its behalf does
// not run if the process has crashed by its time, and waits until the end
// of a pause it falls in (a paused process runs nothing).
struct Process {
  bool crashed = false;
  TimeMs paused_until = -1;  // paused while now < paused_until
  bool paused(TimeMs now) const { return paused_until > now; }
};

class EventLoop {
 public:
  // A call's id: never 0, and never that of another call, so a stale id
  // (its call ran or was cancelled) names nothing.
  using CallId = std::uint64_t;
  using Handler = void (*)(void* context, std::uint64_t arg);

  TimeMs now() const { return now_; }
  // Time moves to `t` if that is later, with no event (a run that waits).
  void advance_to(TimeMs t) {
    if (t > now_) now_ = t;
  }

  // A channel for posts; returns its number. `context` is handed to `handler`.
  int add_channel(Handler handler, void* context);
  // `arg` reaches channel `channel`'s handler at `t` (now, if `t` has passed).
  void post(TimeMs t, int channel, std::uint64_t arg);
  // `fn` runs at `t` (now, if `t` has passed) unless cancelled first.
  CallId call_at(TimeMs t, std::function<void()> fn);
  // The same on behalf of `process` (see Process). If `slot` is given it
  // holds the call's id until the call runs or is dropped (then 0), for its
  // owner to cancel; a call put off by a pause keeps it up to date.
  CallId at_process(Process& process, TimeMs t, std::function<void()> fn, CallId* slot = nullptr);
  // Nothing if call `id` ran or was cancelled already.
  void cancel(CallId id);

  // Runs the next event if it is due by `limit` and the step limit is not
  // reached; false if it ran none.
  bool step(TimeMs limit);
  // Events run so far, and steps counted by the world itself (count_step).
  std::uint64_t steps() const { return steps_; }
  // A step the world took outside the loop (an answer given at once, which
  // a recipe can loop on without time passing): it counts toward the limit.
  void count_step() { ++steps_; }
  void set_step_limit(std::uint64_t limit) { step_limit_ = limit; }
  bool stopped() const { return steps_ >= step_limit_; }

 private:
  static constexpr std::int32_t kCall = -1;  // the channel of calls
  struct Event {
    TimeMs time;
    std::uint64_t seq;
    std::int32_t channel;
    std::uint64_t arg;  // a post's argument, a call's id
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  // A call's function in a reusable slot; the id is the slot's generation
  // and index, and the slot moves to its next generation when it is freed.
  struct CallSlot {
    std::function<void()> fn;
    Process* process = nullptr;
    CallId* owner = nullptr;
    std::uint32_t generation = 1;
  };
  struct Channel {
    Handler handler;
    void* context;
  };
  void push(TimeMs t, std::int32_t channel, std::uint64_t arg);
  CallSlot* find(CallId id);
  void free_slot(CallSlot& c, CallId id);
  void run_call(CallId id);

  TimeMs now_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t step_limit_ = UINT64_MAX;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<CallSlot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<Channel> channels_;
};

}  // namespace zksim::runtime
