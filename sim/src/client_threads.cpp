// The simulated client library's threads (FlavourRules; docs/flavours.md):
// when a step of one of them runs, and how a recipe waiting on the
// caller's thread is woken. Every lag is drawn from the decision source, so
// the interleaving of the threads replays like everything else.
#include "world_impl.h"

namespace zksim {

void World::Impl::on_thread(Handle& h, TimeMs& last, Actor a, std::function<void()> fn, std::uint64_t* slot) {
  const TimeMs t = std::max(now() + static_cast<TimeMs>(decisions.pick_for(kThreadLagChoices, actor(h, a))), last);
  last = t;
  loop.at_process(h, t, std::move(fn), slot);
}

void World::Impl::run_completion(Handle& h, PendingOp& op) {
  if (h.hold_completions) {
    h.held_completions.push_back(&op);
    return;
  }
  PendingOp* p = &op;
  auto step = [p] { p->waiter.resume(); };
  switch (h.rules->completions) {
    case FlavourRules::Completions::AtReply:
      op.waiter.resume();
      return;
    case FlavourRules::Completions::OnEventThread:
      on_thread(h, h.threads.event, Actor::Event, std::move(step), &op.deferred);
      return;
    case FlavourRules::Completions::OnOwnThread:
      on_thread(h, h.threads.completion, Actor::Completion, std::move(step), &op.deferred);
      return;
  }
}

std::uint32_t World::Impl::caller_lag(Handle& h, Actor a) {
  return h.rules->recipes_on_caller_thread ? decisions.pick_for(kThreadLagChoices, actor(h, a)) : 0;
}

std::coroutine_handle<> World::Impl::wake(Handle& h, std::coroutine_handle<> c, std::uint64_t& slot) {
  const std::uint32_t lag = caller_lag(h, Actor::Caller);
  if (lag == 0) return c;
  loop.at_process(h, now() + static_cast<TimeMs>(lag) - 1, [c] { c.resume(); }, &slot);
  return std::noop_coroutine();
}

}  // namespace zksim
