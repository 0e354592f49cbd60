#include "zksim/event_loop.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace zksim::runtime {

int EventLoop::add_channel(Handler handler, void* context) {
  channels_.push_back({handler, context});
  return static_cast<int>(channels_.size()) - 1;
}

void EventLoop::push(TimeMs t, std::int32_t channel, std::uint64_t arg) {
  events_.push(Event{std::max(t, now_), next_seq_++, channel, arg});
}

void EventLoop::post(TimeMs t, int channel, std::uint64_t arg) {
  assert(channel >= 0 && static_cast<std::size_t>(channel) < channels_.size());
  push(t, channel, arg);
}

EventLoop::CallId EventLoop::call_at(TimeMs t, std::function<void()> fn) {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  CallSlot& c = slots_[slot];
  c.fn = std::move(fn);
  const CallId id = static_cast<CallId>(c.generation) << 32 | slot;
  push(t, kCall, id);
  return id;
}

EventLoop::CallId EventLoop::at_process(Process& process, TimeMs t, std::function<void()> fn, CallId* slot) {
  const CallId id = call_at(t, std::move(fn));
  CallSlot& c = slots_[static_cast<std::uint32_t>(id)];
  c.process = &process;
  c.owner = slot;
  if (slot) *slot = id;
  return id;
}

EventLoop::CallSlot* EventLoop::find(CallId id) {
  const auto slot = static_cast<std::uint32_t>(id);
  if (slot >= slots_.size() || slots_[slot].generation != id >> 32) return nullptr;
  return &slots_[slot];
}

void EventLoop::free_slot(CallSlot& c, CallId id) {
  c = CallSlot{{}, nullptr, nullptr, c.generation + 1};
  free_slots_.push_back(static_cast<std::uint32_t>(id));
}

void EventLoop::cancel(CallId id) {
  if (CallSlot* c = find(id)) free_slot(*c, id);
}

void EventLoop::run_call(CallId id) {
  CallSlot* c = find(id);
  if (!c) return;  // cancelled
  std::function<void()> fn = std::move(c->fn);
  Process* process = c->process;
  CallId* owner = c->owner;
  free_slot(*c, id);
  if (process) {
    if (owner) *owner = 0;
    if (process->crashed) return;
    if (process->paused(now_)) {
      at_process(*process, process->paused_until, std::move(fn), owner);
      return;
    }
  }
  fn();
}

bool EventLoop::step(TimeMs limit) {
  if (stopped() || events_.empty() || events_.top().time > limit) return false;
  ++steps_;
  const Event e = events_.top();
  events_.pop();
  assert(e.time >= now_);
  now_ = e.time;
  if (e.channel == kCall) {
    run_call(e.arg);
  } else {
    const Channel& ch = channels_[static_cast<std::size_t>(e.channel)];
    ch.handler(ch.context, e.arg);
  }
  return true;
}

}  // namespace zksim::runtime
